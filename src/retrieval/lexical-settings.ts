// The settings shared by the lexical retrievers, and the two store queries they are built from: whole videos by BM25,
// then the clips of the best of those videos.

import type { ClipMatch, LexicalQuery, Store, VideoMatch } from "../spec/index.js";
import type { AnalyzedQuery } from "./query-analyzer.js";

/** The knobs of lexical retrieval; the defaults were measured on the 534 how-to dev questions (scripts/bench-transcripts.ts). */
export interface LexicalSettings {
  /** Videos ranked by their whole text that are then re-scored with clip evidence and searched for moments. */
  candidateVideos: number;
  /** Weight of a video's best clip score added to its whole-text score (0 ranks by whole text alone). */
  clipEvidenceWeight: number;
  /** Weight of a moment's video whole-text score added to its clip score when ranking moments across videos. */
  videoEvidenceWeight: number;
  /** Moments kept per ranked video. */
  momentsPerVideo: number;
  fieldWeights: { transcript: number; screen: number; visual: number };
}

export const defaultLexicalSettings: LexicalSettings = {
  candidateVideos: 20,
  clipEvidenceWeight: 0.5,
  videoEvidenceWeight: 0.5,
  momentsPerVideo: 3,
  // Unmeasured priors (the how-to corpus has transcripts only): OCR'd screen text and visual words are noisier.
  fieldWeights: { transcript: 1, screen: 0.8, visual: 0.5 },
};

/** The name hits carry in `retriever`. */
export const lexicalRetriever = "bm25";

/** Clips searched per candidate video: every clip of a 2-hour video. */
const clipsPerVideo = 240;

function lexicalQuery(query: AnalyzedQuery, settings: LexicalSettings, limit: number, videoIds?: string[]): LexicalQuery {
  return {
    terms: query.terms,
    phrases: query.phrases,
    fieldWeights: settings.fieldWeights,
    limit,
    ...(videoIds ? { videoIds } : {}),
    ...(query.language ? { language: query.language } : {}),
  };
}

/** The best videos by BM25 over their whole text. */
export async function candidateVideos(
  store: Store,
  query: AnalyzedQuery,
  settings: LexicalSettings,
  limit: number,
  videoIds?: string[],
): Promise<VideoMatch[]> {
  return store.searchVideos(lexicalQuery(query, settings, limit, videoIds));
}

/**
 * Every matching clip of the candidate videos, best first. Finding the candidates first by whole-video BM25 keeps the
 * clip search to a few hundred documents: over the 104k clips of the how-to corpus an unrestricted clip search takes
 * 35 ms at p95, this ~10 ms, and ranks videos better than clips alone (recall@10 0.403 vs 0.463).
 */
export async function candidateClips(store: Store, query: AnalyzedQuery, settings: LexicalSettings, videoIds: string[]): Promise<ClipMatch[]> {
  if (videoIds.length === 0) return [];
  return store.searchClips(lexicalQuery(query, settings, videoIds.length * clipsPerVideo, videoIds));
}
