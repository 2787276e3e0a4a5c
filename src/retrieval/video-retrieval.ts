// Whole-video retrieval for corpus questions (the corpus VideoRAG design): each video scored by its text evidence and
// its visual evidence, each scaled to the best video's, fused as α·text + (1−α)·visual.

import { imageSpace } from "../spec/index.js";
import type { ImageTextEncoder, Store, VideoHit } from "../spec/index.js";
import { analyzeQuery, questionLanguage } from "./query-analyzer.js";
import { defaultLexicalSettings } from "./lexical-settings.js";
import { rankVideos } from "./rank-videos.js";

export interface VideoRetrievalOptions {
  limit: number;
  /** Weight of text against visual evidence; the published α = 0.7. */
  alpha: number;
  /** The scene description matched against frames; the question when absent. */
  scene?: string;
  imageText?: ImageTextEncoder;
  videoIds?: string[];
  /** The question's language (ISO 639-1) where the caller identified it already; identified here otherwise. */
  language?: string;
  signal?: AbortSignal;
}

/** A video's fused score and its two parts, each 0..1. */
export interface ScoredVideo extends VideoHit {
  textScore: number;
  visualScore: number;
}

/** Videos read for visual evidence by their detections and tags. */
const textCandidates = 50;
/** Frames read to score videos visually. */
const visualFrames = 500;

/** Each video's visual evidence: its best frame's similarity to the scene, or the BM25 of its detections and tags. */
async function visualEvidence(store: Store, question: string, options: VideoRetrievalOptions & { language: string }): Promise<Map<string, number>> {
  const scores = new Map<string, number>();
  const filter = options.videoIds ? { videoIds: options.videoIds } : {};
  const scene = options.scene ?? question;
  if (options.imageText) {
    const [vector] = await options.imageText.embedTexts([scene], { signal: options.signal });
    if (vector) {
      for (const match of await store.searchVectors({ space: imageSpace(options.imageText), vector, limit: visualFrames, owner: "frame", ...filter })) {
        scores.set(match.videoId, Math.max(scores.get(match.videoId) ?? -1, 1 - match.distance));
      }
    }
    return scores;
  }
  const { terms } = analyzeQuery(scene, options.language);
  if (terms.length === 0) return scores;
  for (const match of await store.searchVideos({ terms, fieldWeights: { transcript: 0, screen: 0, visual: 1 }, limit: textCandidates, ...filter })) {
    scores.set(match.videoId, match.score);
  }
  return scores;
}

/** Divides by the largest value, so the best video of each channel scores 1. */
function scaled(scores: Map<string, number>): Map<string, number> {
  const best = Math.max(0, ...scores.values());
  return new Map([...scores].map(([videoId, score]) => [videoId, best > 0 ? Math.max(0, score) / best : 0]));
}

/**
 * Videos best first. A library without visual evidence for the question (transcripts only) ranks exactly as BM25 over
 * whole videos does, since every visual score is then zero.
 */
export async function retrieveVideos(store: Store, question: string, options: VideoRetrievalOptions): Promise<ScoredVideo[]> {
  // The spine's ranking, with its own candidate pool (a larger pool re-scored by clip evidence ranks differently).
  // Text and frames are ranked at once (each on its own connection of a network store).
  const language = options.language ?? (await questionLanguage(question));
  const [byText, byFrames] = await Promise.all([
    rankVideos(store, question, { limit: Math.min(options.limit, defaultLexicalSettings.candidateVideos), language, ...(options.videoIds ? { videoIds: options.videoIds } : {}) }),
    visualEvidence(store, question, { ...options, language }),
  ]);
  const text = scaled(new Map(byText.map((hit) => [hit.videoId, hit.score])));
  const visual = scaled(byFrames);
  const hits = new Map(byText.map((hit) => [hit.videoId, hit]));
  // A video found only by its frames has no text moments; its hit is built from the video row.
  const unseen = [...visual.keys()].filter((videoId) => !hits.has(videoId));
  for (const video of await store.getVideos(unseen)) {
    if (video) hits.set(video.id, { videoId: video.id, path: video.path, title: video.title, score: 0, moments: [] });
  }
  return [...hits.values()]
    .map((hit) => {
      const textScore = text.get(hit.videoId) ?? 0;
      const visualScore = visual.get(hit.videoId) ?? 0;
      return { ...hit, textScore, visualScore, score: Math.round((options.alpha * textScore + (1 - options.alpha) * visualScore) * 1000) / 1000 };
    })
    .sort((a, b) => b.score - a.score || b.textScore - a.textScore || a.videoId.localeCompare(b.videoId))
    .slice(0, options.limit);
}
