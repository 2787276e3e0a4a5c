// Benchmark of transcript ingest and lexical retrieval on ../shared/datasets/howto-qa: ingests the 8,648 transcripts
// into a library, times it, and measures recall@1/5/10 of each dev question's source video and search latency.
//
//   node --import tsx scripts/bench-transcripts.ts [--library dir] [--variants] [--questions file] [--store postgres://…]
//
// --store measures a library on a Postgres store instead of SQLite: an empty database at that URL, or `postgres`
// for a throwaway PostgreSQL 15 cluster (where one is installed; see src/test-support/postgres.ts).
// --library reuses (or creates) a library folder, so a second run skips the unchanged transcripts; without it a temporary
// library is made and removed. --variants also measures the retrieval variants the defaults were chosen from.

import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { evalRetrieval, latencyPercentiles, loadQuestions, type EvalQuestion, type RankFunction } from "../src/eval/index.js";
import { buildLiteVideoGraph, refreshEntityDescriptions } from "../src/graph/index.js";
import { ingestTranscripts } from "../src/ingest/transcripts.js";
import { analyzeQuery, rankVideos, retrieve, searchMoments, tokenize, type LexicalSettings, type RetrieveOptions } from "../src/retrieval/index.js";
import { retrievalModes, type Store } from "../src/spec/index.js";
import { openSqliteStore } from "../src/store/index.js";
import { sharedDir } from "../src/test-support/shared.js";

export interface BenchTranscriptsOptions {
  /** Library folder to reuse or create; default a temporary one, removed afterwards. */
  library?: string;
  /** Questions file; default the dataset's dev-questions.json. */
  questions?: string;
  /** Also measure the retrieval variants the defaults were chosen from. */
  variants?: boolean;
  /** Progress lines go here; default stderr. */
  log?: (line: string) => void;
  /** A `postgres://` URL of an empty database, or "postgres" for a throwaway cluster; SQLite when absent. */
  store?: string;
}

/** Opens the library's store: SQLite in the folder, or Postgres (a throwaway cluster for "postgres"). */
async function openBenchStore(folder: string, store: string | undefined): Promise<{ store: Store; stop: () => Promise<void> }> {
  if (!store) return { store: openSqliteStore(join(folder, "library.sqlite")), stop: async () => undefined };
  const { openPostgresStore } = await import("../src/store/postgres/index.js");
  if (store !== "postgres") return { store: await openPostgresStore(store), stop: async () => undefined };
  const { startPostgres } = await import("../src/test-support/postgres.js");
  const server = await startPostgres();
  return { store: await openPostgresStore(await server.createDatabase()), stop: () => server.stop() };
}

/** A variant ranks with whole-video BM25 from the given terms, optionally re-scored with clip evidence. */
function variant(store: Store, terms: (question: string) => { text: string; weight: number }[], clipWeight: number): RankFunction {
  return async (question) => {
    const query = { terms: terms(question), limit: 20 };
    const videos = await store.searchVideos(query);
    if (clipWeight === 0) return videos.slice(0, 10);
    const clips = await store.searchClips({ ...query, limit: 20 * 240, videoIds: videos.map((video) => video.videoId) });
    const best = new Map<string, number>();
    for (const clip of clips) best.set(clip.videoId, Math.max(best.get(clip.videoId) ?? 0, clip.score));
    return videos
      .map((video) => ({ videoId: video.videoId, score: video.score + clipWeight * (best.get(video.videoId) ?? 0) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, 10);
  };
}

/** Ranks videos by their best clip alone (clip-level BM25 over the whole library, no video documents). */
const bestClipOnly = (store: Store): RankFunction => async (question) => {
  const clips = await store.searchClips({ terms: analyzeQuery(question).terms, limit: 2000 });
  const seen = new Set<string>();
  return clips.filter((clip) => !seen.has(clip.videoId) && Boolean(seen.add(clip.videoId))).slice(0, 10);
};

const countWords = (words: string[]) => {
  const weights = new Map<string, number>();
  for (const word of words) weights.set(word, (weights.get(word) ?? 0) + 1);
  return [...weights].map(([text, weight]) => ({ text, weight }));
};

async function runVariants(store: Store, questions: EvalQuestion[], log: (line: string) => void): Promise<Record<string, unknown>[]> {
  const settings = (partial: Partial<LexicalSettings>): RankFunction => (question) =>
    rankVideos(store, question, { limit: 10, settings: partial });
  const table: Record<string, RankFunction> = {
    "video BM25, all words": variant(store, (question) => countWords(tokenize(question)), 0),
    "video BM25, analyzed question (stopwords + question words)": variant(store, (question) => analyzeQuery(question).terms, 0),
    "best clip only (clip BM25, unrestricted)": bestClipOnly(store),
    "video BM25 + 0.25 x best clip": settings({ clipEvidenceWeight: 0.25 }),
    "video BM25 + 0.5 x best clip (default)": settings({}),
    "video BM25 + 1.0 x best clip": settings({ clipEvidenceWeight: 1 }),
    "default, 10 candidate videos": settings({ candidateVideos: 10 }),
    "default, 40 candidate videos": settings({ candidateVideos: 40 }),
  };
  const rows: Record<string, unknown>[] = [];
  for (const [name, rank] of Object.entries(table)) {
    const report = await evalRetrieval(questions, { rank });
    rows.push({ variant: name, recallAt1: report.recallAt1, recallAt5: report.recallAt5, recallAt10: report.recallAt10, latencyMs: report.latencyMs });
    log(`${name}: ${report.recallAt1} / ${report.recallAt5} / ${report.recallAt10}  p50 ${report.latencyMs.p50} ms  p95 ${report.latencyMs.p95} ms`);
  }
  return rows;
}

/**
 * What the lite graph costs: the extraction and its commit timed on a sample of the library's videos, per hour of
 * video. The lite extractor makes no model call; with a language model each chunk costs two calls (extraction and
 * gleaning), and each merged entity one more for its description.
 */
async function measureGraphCost(store: Store, results: { videoId?: string; durationSeconds: number }[], log: (line: string) => void): Promise<Record<string, number>> {
  const sample = results.filter((result) => result.videoId).slice(0, 500);
  let seconds = 0;
  let chunks = 0;
  for (const result of sample) {
    const video = await store.getVideo(result.videoId ?? "");
    if (!video) continue;
    const clips = await store.getClips(Array.from({ length: video.clipCount }, (_, clipIndex) => ({ videoId: video.id, clipIndex })));
    const started = performance.now();
    chunks += buildLiteVideoGraph(clips).chunks.length;
    seconds += (performance.now() - started) / 1000;
  }
  const hours = sample.reduce((sum, result) => sum + result.durationSeconds, 0) / 3600;
  const cost = { sampleVideos: sample.length, sampleHours: Math.round(hours * 10) / 10, extractSecondsPerHour: Math.round((seconds / hours) * 1000) / 1000, chunksPerHour: Math.round(chunks / hours), modelCallsPerHourWithLlm: Math.round((2 * chunks) / hours) };
  log(`graph cost: ${JSON.stringify(cost)}`);
  return cost;
}

/** Commits one more video into the full library and reports what that touched: only its own chunks. */
async function measureIncrementalInsert(store: Store, transcripts: string): Promise<Record<string, unknown>> {
  const folder = mkdtempSync(join(tmpdir(), "videorag-one-more-"));
  try {
    const [first] = readdirSync(transcripts).filter((name) => name.endsWith(".txt")).sort();
    copyFileSync(join(transcripts, first ?? ""), join(folder, "one-more-video.txt"));
    const before = await store.graphStats();
    const started = performance.now();
    const [result] = await ingestTranscripts(store, folder);
    const seconds = (performance.now() - started) / 1000;
    const after = await store.graphStats();
    const own = (await store.getChunks(Array.from({ length: 50 }, (_, chunkIndex) => ({ videoId: "one-more-video", chunkIndex })))).length;
    await store.removeVideo("one-more-video");
    return { status: result?.status, commitMs: Math.round(seconds * 10000) / 10, chunksAdded: after.chunks - before.chunks, ownChunks: own, entitiesAdded: after.entities - before.entities, crossVideoEntitiesAdded: after.crossVideoEntities - before.crossVideoEntities };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * Recall and latency of each retrieval mode, ranking videos as a user's `eval retrieval --mode` does, plus the ablations
 * of hybrid without the graph and without the visual channel. Latency leaves out model time (there are no models here).
 */
async function runModes(store: Store, questions: EvalQuestion[], log: (line: string) => void): Promise<Record<string, unknown>[]> {
  const variants: { name: string; options: Omit<RetrieveOptions, "limit"> }[] = [
    ...retrievalModes.map((mode) => ({ name: mode, options: { mode } })),
    { name: "hybrid without graph", options: { mode: "hybrid", without: ["graph"] } },
    { name: "hybrid without visual", options: { mode: "hybrid", without: ["visual"] } },
    { name: "hybrid, graph weighted 1 (as an equal list)", options: { mode: "hybrid", graphWeight: 1 } },
  ];
  const rows: Record<string, unknown>[] = [];
  for (const { name, options } of variants) {
    const report = await evalRetrieval(questions, {
      rank: async (question) => {
        const found = await retrieve(store, question, { ...options, limit: 50 });
        return { videos: found.videos.slice(0, 10), modelMs: found.modelMs };
      },
    });
    rows.push({ mode: name, recallAt1: report.recallAt1, recallAt5: report.recallAt5, recallAt10: report.recallAt10, latencyMs: report.latencyMs });
    log(`${name}: ${report.recallAt1} / ${report.recallAt5} / ${report.recallAt10}  p50 ${report.latencyMs.p50} ms  p95 ${report.latencyMs.p95} ms`);
  }
  return rows;
}

/** Ingests the how-to transcripts and evaluates retrieval; `{ skipped }` when ../shared is absent. */
export async function benchTranscripts(options: BenchTranscriptsOptions = {}): Promise<Record<string, unknown>> {
  const log = options.log ?? ((line: string) => console.error(line));
  if (!sharedDir) {
    return { skipped: "../shared (datasets/howto-qa) is not beside this checkout; nothing to benchmark" };
  }
  const transcripts = join(sharedDir, "datasets/howto-qa/transcripts");
  const questionsPath = options.questions ? resolve(options.questions) : join(sharedDir, "datasets/howto-qa/dev-questions.json");
  if (!existsSync(transcripts)) return { skipped: `${transcripts} is missing` };
  const temporary = !options.library;
  const library = options.library ? resolve(options.library) : mkdtempSync(join(tmpdir(), "videorag-bench-"));
  mkdirSync(library, { recursive: true });
  const { store, stop } = await openBenchStore(library, options.store);
  try {
    const started = performance.now();
    let done = 0;
    const results = await ingestTranscripts(store, transcripts, {
      onProgress: (event) => {
        if (event.type === "video-done" && ++done % 1000 === 0) log(`ingested ${done}`);
      },
    });
    const ingestSeconds = (performance.now() - started) / 1000;
    const graphCost = await measureGraphCost(store, results, log);
    const incremental = await measureIncrementalInsert(store, transcripts);
    log(`one more video: ${JSON.stringify(incremental)}`);
    const describing = performance.now();
    await refreshEntityDescriptions(store);
    const describeSeconds = Math.round((performance.now() - describing) / 100) / 10;
    log(`ingest ${ingestSeconds.toFixed(1)} s, entity descriptions ${describeSeconds} s`);
    const count = (status: string) => results.filter((result) => result.status === status).length;

    const questions = loadQuestions(questionsPath);
    const retrieval = await evalRetrieval(questions, { rank: (question) => rankVideos(store, question, { limit: 10 }) });
    // What a user waits for in `ask`: the ranked videos with their moments, then the moments across the library.
    const combined: number[] = [];
    for (const question of questions) {
      const begun = performance.now();
      await rankVideos(store, question.question, { limit: 10 });
      await searchMoments(store, question.question, { limit: 10 });
      combined.push(performance.now() - begun);
    }
    return {
      library: temporary ? "(temporary)" : library,
      ingest: {
        files: results.length,
        ingested: count("ingested"),
        unchanged: count("unchanged"),
        failed: count("failed"),
        clips: results.reduce((sum, result) => sum + result.clipCount, 0),
        seconds: Math.round(ingestSeconds * 10) / 10,
        graph: await store.graphStats(),
        graphCost,
        incremental,
        describeSeconds,
      },
      retrieval: {
        questions: retrieval.questions,
        recallAt1: retrieval.recallAt1,
        recallAt5: retrieval.recallAt5,
        recallAt10: retrieval.recallAt10,
        rankVideosLatencyMs: retrieval.latencyMs,
        rankVideosPlusSearchMomentsLatencyMs: latencyPercentiles(combined),
      },
      ...(options.variants ? { variants: await runVariants(store, questions, log) } : {}),
      modes: await runModes(store, questions, log),
    };
  } finally {
    await store.close();
    await stop();
    if (temporary) rmSync(library, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const { values } = parseArgs({
    options: {
      library: { type: "string" },
      questions: { type: "string" },
      variants: { type: "boolean", default: false },
      store: { type: "string" },
    },
  });
  console.log(JSON.stringify(await benchTranscripts(values), null, 2));
}
