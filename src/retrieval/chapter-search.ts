// Chapters ranked for a question: BM25 over their title, line and text, and, when a text embedder is configured, the
// nearest chapter vectors, fused by rank. What overview questions start from when no video is named.

import { chapterSpace } from "../spec/index.js";
import type { ChapterMatch, Store, TextEmbedder } from "../spec/index.js";
import { reciprocalRankFusion } from "./fusion.js";
import { isKindCue } from "./question-kind.js";
import { analyzeText } from "./query-analyzer.js";

export interface ChapterSearchOptions {
  limit?: number;
  videoIds?: string[];
  textEmbedder?: TextEmbedder;
  /** The question's language (ISO 639-1): its stop words are left out of the search; English when absent. */
  language?: string;
  signal?: AbortSignal;
}

/** Best chapters first, each with the retrievers that found it ("bm25", "dense"). */
export async function searchChapters(store: Store, question: string, options: ChapterSearchOptions = {}): Promise<(ChapterMatch & { retrievers: string[] })[]> {
  const limit = options.limit ?? 10;
  const weights = new Map<string, number>();
  for (const word of analyzeText(question, options.language).filter((word) => !isKindCue(word))) weights.set(word, (weights.get(word) ?? 0) + 1);
  const terms = [...weights].map(([text, weight]) => ({ text, weight }));
  const scope = options.videoIds ? { videoIds: options.videoIds } : {};
  const lexical = terms.length > 0 ? await store.searchChapters({ terms, limit: limit * 2, ...scope }) : [];
  const dense: ChapterMatch[] = [];
  const embedder = options.textEmbedder;
  if (embedder) {
    const [vector] = await embedder.embed([question], { signal: options.signal, purpose: "query" });
    const found = vector ? await store.searchVectors({ space: chapterSpace(embedder), vector, limit: limit * 2, ...scope }) : [];
    // A vector whose chapter was made again with fewer chapters points at nothing: it is dropped here.
    const chapters = new Map<string, Map<number, { startSecond: number; endSecond: number }>>();
    for (const videoId of new Set(found.map((match) => match.videoId))) {
      chapters.set(videoId, new Map((await store.getChapters(videoId)).map((chapter) => [chapter.index, chapter])));
    }
    for (const match of found) {
      const chapter = chapters.get(match.videoId)?.get(match.clipIndex);
      if (chapter) dense.push({ videoId: match.videoId, chapterIndex: match.clipIndex, startSecond: chapter.startSecond, endSecond: chapter.endSecond, score: 1 - match.distance });
    }
  }
  return reciprocalRankFusion(
    [
      { retriever: "bm25", items: lexical },
      { retriever: "dense", items: dense },
    ],
    (match) => `${match.videoId}#${match.chapterIndex}`,
  )
    .slice(0, limit)
    .map((fused) => ({ ...fused.item, score: fused.score, retrievers: fused.retrievers }));
}
