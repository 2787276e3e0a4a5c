// The moments that best answer a question across the library: clips inside the best videos, merged where they touch.

import type { ClipMatch, Hit, Store } from "../spec/index.js";
import { candidateClips, candidateVideos, defaultLexicalSettings, lexicalRetriever, type LexicalSettings } from "./lexical-settings.js";
import { mergeClipMatches, momentsToHits, strongClips } from "./moments.js";
import { analyzeQuestion, type AnalyzedQuery } from "./query-analyzer.js";

export interface SearchMomentsOptions {
  /** Moments returned; default 10. */
  limit?: number;
  /** Search only these videos. */
  videoIds?: string[];
  settings?: Partial<LexicalSettings>;
  /** The question's language (ISO 639-1) where the caller identified it already; identified here otherwise. */
  language?: string;
}

/**
 * Moments best first. A clip's score adds half its video's whole-text score: on the how-to dev questions that puts the
 * question's own video first 14.0% of the time against 13.3% for clip scores alone, at the cost of fewer videos among
 * the ten moments (38% vs 39% contain it).
 */
export async function searchMoments(store: Store, question: string, options: SearchMomentsOptions = {}): Promise<Hit[]> {
  const limit = options.limit ?? 10;
  const query = await analyzeQuestion(question, options.language);
  const clips = await rankLexicalClips(store, query, { ...options, limit: limit * 2 });
  return momentsToHits(store, mergeClipMatches(clips).slice(0, limit), query, lexicalRetriever);
}

/** Clips best first by BM25, each lifted by half its video's whole-text score; only each video's strong clips. */
export async function rankLexicalClips(store: Store, query: AnalyzedQuery, options: SearchMomentsOptions = {}): Promise<ClipMatch[]> {
  const settings = { ...defaultLexicalSettings, ...options.settings };
  const limit = options.limit ?? 20;
  if (limit <= 0 || (query.terms.length === 0 && query.phrases.length === 0)) return [];
  const videos = await candidateVideos(store, query, settings, settings.candidateVideos, options.videoIds);
  const videoScore = new Map(videos.map((match) => [match.videoId, match.score]));
  return strongClips(await candidateClips(store, query, settings, [...videoScore.keys()]))
    .map((clip) => ({ ...clip, score: clip.score + settings.videoEvidenceWeight * (videoScore.get(clip.videoId) ?? 0) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, limit);
}
