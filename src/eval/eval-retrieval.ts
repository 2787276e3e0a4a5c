// Retrieval evaluation: recall@1/5/10 of each question's source video among the ranked videos, and search latency.

import { latencyPercentiles } from "./latency-percentiles.js";
import type { EvalQuestion } from "./load-questions.js";
import { recallAtK } from "./recall-at-k.js";

/** Videos best first, as ids or hits; at least 10 are needed for recall@10. */
export type RankedVideos = readonly (string | { videoId: string })[];

/**
 * Ranks videos for a question. It may say how long it waited for models (query rewriting, embeddings), which the
 * latency leaves out: the engine's own cost is what is measured, since model time depends on the server.
 */
export type RankFunction = (question: string) => RankedVideos | { videos: RankedVideos; modelMs: number } | Promise<RankedVideos | { videos: RankedVideos; modelMs: number }>;

export interface RetrievalReport {
  questions: number;
  recallAt1: number;
  recallAt5: number;
  recallAt10: number;
  /** Wall time of one `rank` call, less the time it spent waiting for models. */
  latencyMs: { p50: number; p95: number };
  /** Per question: the 1-based rank of its source video, or null when it is not in the returned list. */
  ranks: { id: string; rank: number | null }[];
}

export interface EvalRetrievalOptions {
  /** The ranking under test, e.g. the library's video search with limit 10. */
  rank: RankFunction;
  onProgress?: (done: number, total: number) => void;
}

/** Relevance is `relevantVideos[0]`, the video the question was written from. */
export async function evalRetrieval(questions: readonly EvalQuestion[], options: EvalRetrievalOptions): Promise<RetrievalReport> {
  const { rank } = options;
  const latencies: number[] = [];
  const ranks: RetrievalReport["ranks"] = [];
  const sums = { 1: 0, 5: 0, 10: 0 };
  for (const [index, question] of questions.entries()) {
    const started = performance.now();
    const returned = await rank(question.question);
    const elapsed = performance.now() - started;
    const { videos, modelMs } = "videos" in returned ? returned : { videos: returned, modelMs: 0 };
    const ranked = videos.map((hit) => (typeof hit === "string" ? hit : hit.videoId));
    latencies.push(Math.max(0, elapsed - modelMs));
    const relevant = question.relevantVideos.slice(0, 1);
    for (const k of [1, 5, 10] as const) sums[k] += recallAtK(ranked, relevant, k);
    const position = ranked.indexOf(relevant[0] ?? "");
    ranks.push({ id: question.id, rank: position === -1 ? null : position + 1 });
    options.onProgress?.(index + 1, questions.length);
  }
  const count = questions.length;
  const mean = (sum: number): number => (count === 0 ? 0 : Math.round((sum / count) * 1000) / 1000);
  return {
    questions: count,
    recallAt1: mean(sums[1]),
    recallAt5: mean(sums[5]),
    recallAt10: mean(sums[10]),
    latencyMs: latencyPercentiles(latencies),
    ranks,
  };
}
