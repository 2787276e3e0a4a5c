// The clip retrievers a mode is built from: BM25 over clip text, dense text vectors, and frames (image-text vectors, or
// detections and tags as words when no image-text encoder is configured). Each returns clips best first, each with how
// it was found.

import { imageSpace, textSpace } from "../spec/index.js";
import type { ClipMatch, HitProvenance, ImageTextEncoder, Store, TextEmbedder, VectorMatch } from "../spec/index.js";
import { visualWordsDetail } from "./hit-evidence.js";
import { lexicalRetriever } from "./lexical-settings.js";
import { analyzeQuery, analyzeQuestion, termKeyFor, tokenize } from "./query-analyzer.js";
import { rankLexicalClips } from "./search-moments.js";

/** A clip as one retriever ranked it. */
export interface ScoredClip extends ClipMatch {
  provenance: HitProvenance;
}

export interface ClipRetrieverOptions {
  limit: number;
  videoIds?: string[];
  /**
   * The question's language (ISO 639-1), identified once for all its retrievers: its words (and the keywords and scene
   * rewritten from it) are analysed and matched in it. BM25 identifies it when absent; the others read English.
   */
  language?: string;
  signal?: AbortSignal;
}

/** Frames the visual retriever reads to find its clips: several frames of one clip often lead. */
const framesPerClip = 6;

export const clipKey = (match: { videoId: string; clipIndex: number }): string => `${match.videoId}#${match.clipIndex}`;

function ranked(clips: ClipMatch[], retriever: string, extra: (clip: ClipMatch) => Partial<HitProvenance> = () => ({})): ScoredClip[] {
  return clips.map((clip, index) => ({ ...clip, provenance: { retriever, rank: index + 1, score: clip.score, ...extra(clip) } }));
}

/** BM25 over clip text, inside the videos whose whole text matches best. */
export async function bm25Clips(store: Store, question: string, options: ClipRetrieverOptions): Promise<ScoredClip[]> {
  return ranked(await rankLexicalClips(store, await analyzeQuestion(question, options.language), options), lexicalRetriever);
}

/** Vector matches (best first) → clips with times, each clip once at its best rank; the best frame's time kept. */
async function vectorClips(store: Store, matches: VectorMatch[], limit: number, retriever: string): Promise<ScoredClip[]> {
  const best = new Map<string, VectorMatch>();
  for (const match of matches) if (!best.has(clipKey(match))) best.set(clipKey(match), match);
  const unique = [...best.values()].slice(0, limit);
  const spans = new Map((await store.getClips(unique)).map((clip) => [clipKey({ videoId: clip.videoId, clipIndex: clip.index }), clip]));
  const clips: ScoredClip[] = [];
  for (const match of unique) {
    const clip = spans.get(clipKey(match));
    if (!clip) continue;
    const score = Math.round((1 - match.distance) * 1000) / 1000;
    clips.push({
      videoId: match.videoId,
      clipIndex: match.clipIndex,
      startSecond: clip.startSecond,
      endSecond: clip.endSecond,
      score,
      provenance: { retriever, rank: clips.length + 1, score, ...(match.timeSecond === undefined ? {} : { frameSecond: match.timeSecond }) },
    });
  }
  return clips;
}

/** Clips whose text vector is nearest the question's. */
export async function denseClips(store: Store, question: string, embedder: TextEmbedder, options: ClipRetrieverOptions): Promise<ScoredClip[]> {
  const [vector] = await embedder.embed([question], { signal: options.signal, purpose: "query" });
  if (!vector) return [];
  const filter = options.videoIds ? { videoIds: options.videoIds } : {};
  const matches = await store.searchVectors({ space: textSpace(embedder), vector, limit: options.limit, owner: "clip", ...filter });
  return vectorClips(store, matches, options.limit, "dense");
}

/**
 * Clips whose frames best match a scene description: through the image-text space when an encoder is configured,
 * otherwise through the detections and tags indexed as visual words (BM25 over the visual field alone), placed at the
 * first frame that saw a matching label.
 */
export async function visualClips(
  store: Store,
  scene: string,
  encoder: ImageTextEncoder | undefined,
  options: ClipRetrieverOptions,
): Promise<ScoredClip[]> {
  const filter = options.videoIds ? { videoIds: options.videoIds } : {};
  if (encoder) {
    const [vector] = await encoder.embedTexts([scene], { signal: options.signal });
    if (!vector) return [];
    const matches = await store.searchVectors({ space: imageSpace(encoder), vector, limit: options.limit * framesPerClip, owner: "frame", ...filter });
    return vectorClips(store, matches, options.limit, "visual");
  }
  const query = analyzeQuery(scene, options.language);
  if (query.terms.length === 0) return [];
  const clips = await store.searchClips({ terms: query.terms, fieldWeights: { transcript: 0, screen: 0, visual: 1 }, limit: options.limit, ...filter });
  const termKey = termKeyFor(options.language);
  const keys = new Set(query.terms.flatMap((term) => tokenize(term.text).map(termKey)));
  // Each clip's segments are read first: the provenance callback is synchronous.
  const ranges = await store.getSegmentRanges(clips);
  const segments = new Map(clips.map((clip, at) => [clipKey(clip), ranges[at] ?? []]));
  return ranked(clips, "visual", (clip) => {
    const seen = (segments.get(clipKey(clip)) ?? [])
      .filter((segment) => segment.source === "visual" && tokenize(segment.text).some((word) => keys.has(termKey(word))));
    const first = seen.reduce<number | undefined>((earliest, segment) => Math.min(earliest ?? Infinity, segment.startSecond), undefined);
    return { detail: visualWordsDetail, ...(first === undefined ? {} : { frameSecond: Math.max(first, clip.startSecond) }) };
  });
}
