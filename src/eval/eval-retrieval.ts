// Retrieval evaluation: recall@1/5/10 of each question's source video among the ranked videos, and search latency.

import { latencyPercentiles } from "./latency-percentiles.js";
import type { EvalQuestion } from "./load-questions.js";
import { recallAtK } from "./recall-at-k.js";

/** Ranks videos for a question, best first, as ids or hits; at least 10 are needed for recall@10. */
export type RankFunction = (question: string) => readonly (string | { videoId: string })[];

export interface RetrievalReport {
  questions: number;
  recallAt1: number;
  recallAt5: number;
  recallAt10: number;
  /** Wall time of one `rank` call. */
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
export function evalRetrieval(questions: readonly EvalQuestion[], options: EvalRetrievalOptions): RetrievalReport {
  const { rank } = options;
  const latencies: number[] = [];
  const ranks: RetrievalReport["ranks"] = [];
  const sums = { 1: 0, 5: 0, 10: 0 };
  questions.forEach((question, index) => {
    const started = performance.now();
    const ranked = rank(question.question).map((hit) => (typeof hit === "string" ? hit : hit.videoId));
    latencies.push(performance.now() - started);
    const relevant = question.relevantVideos.slice(0, 1);
    for (const k of [1, 5, 10] as const) sums[k] += recallAtK(ranked, relevant, k);
    const position = ranked.indexOf(relevant[0] ?? "");
    ranks.push({ id: question.id, rank: position === -1 ? null : position + 1 });
    options.onProgress?.(index + 1, questions.length);
  });
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
