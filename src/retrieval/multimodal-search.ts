// Moments from every retriever the library has models for: BM25 always, dense text vectors when a text embedder is
// configured, and the visual retriever (query text → image-text space → frames → clips) when an image-text encoder is.
// Their clip rankings are fused by reciprocal rank, and each moment says which retrievers found it.

import type { ClipMatch, Hit, ImageTextEncoder, Store, TextEmbedder } from "../spec/index.js";
import { imageSpace, textSpace } from "../ingest/vector-spaces.js";
import { reciprocalRankFusion, type RankedList } from "./fusion.js";
import { lexicalRetriever } from "./lexical-settings.js";
import { mergeClipMatches, momentsToHits } from "./moments.js";
import { analyzeQuery } from "./query-analyzer.js";
import { rankLexicalClips, searchMoments } from "./search-moments.js";

export interface MultimodalSearchOptions {
  limit?: number;
  videoIds?: string[];
  textEmbedder?: TextEmbedder;
  imageText?: ImageTextEncoder;
  signal?: AbortSignal;
}

/** Clips each dense retriever ranks; more than the moments shown, so fusion has overlap to work with. */
const denseCandidates = 50;
/** Frames the visual retriever reads to find its clips. */
const visualFrames = 300;

function clipKey(match: { videoId: string; clipIndex: number }): string {
  return `${match.videoId}#${match.clipIndex}`;
}

/** Vector matches (best first) → clip matches with times, keeping each clip's best rank. */
function toClipMatches(store: Store, matches: { videoId: string; clipIndex: number; distance: number }[], limit: number): ClipMatch[] {
  const seen = new Set<string>();
  const unique = matches.filter((match) => !seen.has(clipKey(match)) && seen.add(clipKey(match))).slice(0, limit);
  const spans = new Map(store.getClips(unique).map((clip) => [clipKey({ videoId: clip.videoId, clipIndex: clip.index }), clip]));
  return unique.flatMap((match) => {
    const clip = spans.get(clipKey(match));
    return clip ? [{ videoId: match.videoId, clipIndex: match.clipIndex, startSecond: clip.startSecond, endSecond: clip.endSecond, score: 1 - match.distance }] : [];
  });
}

/** Ranked moments from all configured retrievers; BM25 alone when no vector model is configured. */
export async function searchMultimodal(store: Store, question: string, options: MultimodalSearchOptions = {}): Promise<Hit[]> {
  const limit = options.limit ?? 10;
  const { textEmbedder, imageText, signal } = options;
  if (!textEmbedder && !imageText) return searchMoments(store, question, options);
  const query = analyzeQuery(question);
  const lists: RankedList<ClipMatch>[] = [{ retriever: lexicalRetriever, items: rankLexicalClips(store, query, { limit: denseCandidates, videoIds: options.videoIds }) }];
  const filter = options.videoIds ? { videoIds: options.videoIds } : {};
  if (textEmbedder) {
    const [vector] = await textEmbedder.embed([question], { signal });
    if (vector) {
      const matches = store.searchVectors({ space: textSpace(textEmbedder), vector, limit: denseCandidates, owner: "clip", ...filter });
      lists.push({ retriever: "dense", items: toClipMatches(store, matches, denseCandidates) });
    }
  }
  if (imageText) {
    const [vector] = await imageText.embedTexts([question], { signal });
    if (vector) {
      const matches = store.searchVectors({ space: imageSpace(imageText), vector, limit: visualFrames, owner: "frame", ...filter });
      lists.push({ retriever: "visual", items: toClipMatches(store, matches, denseCandidates) });
    }
  }
  const fused = reciprocalRankFusion(lists, clipKey).slice(0, limit * 2);
  const retrieversOf = new Map(fused.map((entry) => [clipKey(entry.item), entry.retrievers]));
  const moments = mergeClipMatches(fused.map((entry) => ({ ...entry.item, score: entry.score }))).slice(0, limit);
  return moments.flatMap((moment) => {
    const retrievers = new Set(moment.clipIndexes.flatMap((clipIndex) => retrieversOf.get(clipKey({ videoId: moment.videoId, clipIndex })) ?? []));
    return momentsToHits(store, [moment], query.terms, [...retrievers].join("+"));
  });
}
