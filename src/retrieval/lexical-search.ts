// Lexical (BM25) retrieval over the store's FTS indexes: whole videos ranked by their full text, re-ranked with the
// evidence of their best clip, and moments found inside the best videos.

import type { Hit, LexicalQuery, Store, Video, VideoHit } from "../spec/index.js";
import { momentsToHits, mergeClipMatches } from "./moments.js";
import { analyzeQuery, type AnalyzedQuery } from "./query-analyzer.js";

/** The knobs of lexical retrieval; the defaults were measured on the 534 how-to dev questions (scripts/bench-transcripts.ts). */
export interface LexicalSettings {
  /** Videos ranked by their whole text that are then re-scored with clip evidence and searched for moments. */
  candidateVideos: number;
  /** Weight of a video's best clip score added to its whole-text score (0 ranks by whole text alone). */
  clipEvidenceWeight: number;
  /** Moments kept per ranked video. */
  momentsPerVideo: number;
  fieldWeights: { transcript: number; screen: number; visual: number };
}

export const defaultLexicalSettings: LexicalSettings = {
  candidateVideos: 20,
  clipEvidenceWeight: 0.5,
  momentsPerVideo: 3,
  // Unmeasured priors (the how-to corpus has transcripts only): OCR'd screen text and visual words are noisier.
  fieldWeights: { transcript: 1, screen: 0.8, visual: 0.5 },
};

export interface SearchMomentsOptions {
  /** Moments returned; default 10. */
  limit?: number;
  /** Search only these videos. */
  videoIds?: string[];
  settings?: Partial<LexicalSettings>;
}

export interface RankVideosOptions {
  /** Videos returned; default 10. */
  limit?: number;
  /** Rank only these videos. */
  videoIds?: string[];
  settings?: Partial<LexicalSettings>;
}

const retriever = "bm25";

function lexicalQuery(query: AnalyzedQuery, settings: LexicalSettings, limit: number, videoIds?: string[]): LexicalQuery {
  return {
    terms: query.terms,
    phrases: query.phrases,
    fieldWeights: settings.fieldWeights,
    limit,
    ...(videoIds ? { videoIds } : {}),
  };
}

/**
 * Clip matches inside the candidate videos. Finding the candidates first by whole-video BM25 keeps the clip search to a
 * few hundred documents: over 100k clips an unrestricted clip search takes 60 ms at p95, this takes ~10 ms.
 */
function candidateClips(store: Store, query: AnalyzedQuery, settings: LexicalSettings, videoIds: string[]) {
  if (videoIds.length === 0) return [];
  // Every matching clip of the candidates: a 2-hour video has 240 clips, so allow that many per video.
  return store.searchClips(lexicalQuery(query, settings, videoIds.length * 240, videoIds));
}

/** The moments that best match a question, merged from adjacent matching clips, best first. */
export function searchMoments(store: Store, question: string, options: SearchMomentsOptions = {}): Hit[] {
  const settings = { ...defaultLexicalSettings, ...options.settings };
  const limit = options.limit ?? 10;
  const query = analyzeQuery(question);
  if (limit <= 0 || (query.terms.length === 0 && query.phrases.length === 0)) return [];
  const videoIds =
    options.videoIds ??
    store.searchVideos(lexicalQuery(query, settings, settings.candidateVideos)).map((match) => match.videoId);
  const moments = mergeClipMatches(candidateClips(store, query, settings, videoIds)).slice(0, limit);
  return momentsToHits(store, moments, query.terms, retriever);
}

/** Whole videos ranked for a question, each with its best moments. */
export function rankVideos(store: Store, question: string, options: RankVideosOptions = {}): VideoHit[] {
  const settings = { ...defaultLexicalSettings, ...options.settings };
  const limit = options.limit ?? 10;
  const query = analyzeQuery(question);
  if (limit <= 0 || (query.terms.length === 0 && query.phrases.length === 0)) return [];
  const depth = Math.max(limit, settings.candidateVideos);
  const videos = store.searchVideos(lexicalQuery(query, settings, depth, options.videoIds));
  const clips = candidateClips(store, query, settings, videos.map((match) => match.videoId));
  const bestClip = new Map<string, number>();
  for (const clip of clips) bestClip.set(clip.videoId, Math.max(bestClip.get(clip.videoId) ?? 0, clip.score));
  const ranked = videos
    .map((match) => ({ ...match, score: match.score + settings.clipEvidenceWeight * (bestClip.get(match.videoId) ?? 0) }))
    .sort((a, b) => b.score - a.score || a.videoId.localeCompare(b.videoId))
    .slice(0, limit);
  const moments = mergeClipMatches(clips);
  const cache = new Map<string, Video | undefined>();
  return ranked.flatMap((match) => {
    const own = moments.filter((moment) => moment.videoId === match.videoId).slice(0, settings.momentsPerVideo);
    const hits = momentsToHits(store, own, query.terms, retriever, cache);
    const video = cache.get(match.videoId) ?? store.getVideo(match.videoId);
    if (!video) return [];
    const hit: VideoHit = { videoId: match.videoId, path: video.path, title: video.title, score: match.score, moments: hits };
    return [hit];
  });
}
