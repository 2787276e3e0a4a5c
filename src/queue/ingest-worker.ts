// A worker: takes ingest jobs from the queue and ingests each file into its library, reporting progress on the job.
// Delivery is at least once: a job whose worker died is taken again, and ingest finds the video committed (`unchanged`)
// or resumes its stages, because a video's id is its content hash and its commit is one transaction.

import type { Job } from "bullmq";
import type { IngestEvent, MediaStage } from "../ingest/index.js";
import type { Library } from "../library.js";
import { toVideoRagError, type ErrorCode } from "../spec/index.js";
import { connectionOptions, ingestQueueName, loadBullmq, openIngestQueue } from "./connection.js";
import { describeJobName, enqueueDescribe, type IngestJobData } from "./ingest-queue.js";

/** What a job reports as it runs, readable by `queue status` and `ingest --wait`. */
export interface IngestJobProgress {
  stage: MediaStage | "queued";
  /** Share of the stage done, 0 to 1. */
  fraction: number;
  /** Index of the file within the job (always 0: one file per job). */
  position: number;
}

/** What a finished job returns. */
export interface IngestJobResult {
  /** "described" for the entity-description job. */
  status: "ingested" | "unchanged" | "skipped" | "described";
  videoId?: string;
  clipCount: number;
  /** Entities the description job described. */
  described?: number;
}

/** What the worker tells its caller, one event per step of a job. */
export type WorkerEvent =
  | { type: "ready" }
  | { type: "job-start"; jobId: string; path: string; attempt: number }
  | { type: "job-done"; jobId: string; path: string; result: IngestJobResult }
  | { type: "job-failed"; jobId: string; path: string; code: ErrorCode; message: string; retried: boolean }
  | { type: "error"; message: string };

export interface RunWorkerOptions {
  /** `redis://[user:password@]host:port[/db]`. */
  queueUrl: string;
  /** The library the jobs ingest into; a job for another library fails with ARGUMENT_INVALID. */
  library: Library;
  /** Jobs run at once in this process (default 1). */
  concurrency?: number;
  /** Aborting stops taking jobs; the running ones finish, then the worker closes and the promise resolves. */
  signal?: AbortSignal;
  onEvent?: (event: WorkerEvent) => void;
  /**
   * How long a job stays locked without its worker renewing the lock (default 30): a job whose worker died runs again
   * this long after, once another worker's stalled check (every `stalledCheckSeconds`, default 30) sees it.
   */
  lockSeconds?: number;
  stalledCheckSeconds?: number;
}

/** Bad input fails its job for good; anything else (a model server down, the library busy) is tried again. */
function isRetryable(code: ErrorCode): boolean {
  return !code.startsWith("INPUT_") && code !== "ARGUMENT_INVALID" && code !== "PATH_OUTSIDE_LIBRARY";
}

/** Runs a worker until `signal` aborts; resolves once it has closed its connections. */
export async function runWorker(options: RunWorkerOptions): Promise<void> {
  if (options.signal?.aborted) return;
  const { Worker, UnrecoverableError } = await loadBullmq();
  const { library, onEvent = () => undefined } = options;

  /** Throws the failure the way BullMQ needs it: the message starts with the code, so `queue status` can show it. */
  const fail = (job: Job<IngestJobData>, code: ErrorCode, message: string): never => {
    const retried = isRetryable(code) && job.attemptsMade + 1 < (job.opts.attempts ?? 1);
    onEvent({ type: "job-failed", jobId: String(job.id), path: job.data.path, code, message, retried });
    const text = `${code}: ${message}`;
    throw isRetryable(code) ? new Error(text) : new UnrecoverableError(text);
  };

  // Entity descriptions are a job of their own, queued after each ingested file: one pass serves every file that
  // committed while it waited, and a slow language model does not hold an ingest slot.
  const queue = await openIngestQueue(options.queueUrl, true);
  const describe = async (job: Job<IngestJobData>): Promise<IngestJobResult> => {
    onEvent({ type: "job-start", jobId: String(job.id), path: job.data.path, attempt: job.attemptsMade + 1 });
    let described: number;
    try {
      described = await library.describeEntities();
    } catch (error) {
      const failure = toVideoRagError(error);
      return fail(job, failure.code, failure.message);
    }
    const done: IngestJobResult = { status: "described", clipCount: 0, described };
    onEvent({ type: "job-done", jobId: String(job.id), path: job.data.path, result: done });
    return done;
  };

  const processor = async (job: Job<IngestJobData>): Promise<IngestJobResult> => {
    const { path, incremental, language } = job.data;
    if (job.data.library !== library.location) {
      return fail(job, "ARGUMENT_INVALID", `the job is for the library ${job.data.library}; this worker serves ${library.location}`);
    }
    if (job.name === describeJobName) return describe(job);
    onEvent({ type: "job-start", jobId: String(job.id), path, attempt: job.attemptsMade + 1 });
    let lastReport = 0;
    const report = (progress: IngestJobProgress, force: boolean): void => {
      // Each report is a round trip to Redis: a stage's start always, its progress at most twice a second.
      const now = Date.now();
      if (!force && now - lastReport < 500) return;
      lastReport = now;
      job.updateProgress({ ...progress }).catch(() => undefined);
    };
    const onProgress = (event: IngestEvent): void => {
      if (event.type === "stage-start") report({ stage: event.stage, fraction: 0, position: 0 }, true);
      else if (event.type === "stage-progress") report({ stage: event.stage, fraction: event.fraction, position: 0 }, false);
    };
    let result;
    try {
      [result] = (await library.ingest([path], { incremental, onProgress, describeEntities: false, ...(language ? { language } : {}) })).results;
    } catch (error) {
      const failure = toVideoRagError(error);
      return fail(job, failure.code, failure.message);
    }
    if (!result) return fail(job, "INPUT_NOT_FOUND", `nothing to ingest at ${path}`);
    if (result.status === "failed") return fail(job, result.error?.code ?? "INTERNAL", result.error?.message ?? "ingest failed");
    if (result.status === "ingested") await enqueueDescribe(queue, job.data.library);
    const done: IngestJobResult = { status: result.status, clipCount: result.clipCount, ...(result.videoId ? { videoId: result.videoId } : {}) };
    onEvent({ type: "job-done", jobId: String(job.id), path, result: done });
    return done;
  };

  const worker = new Worker<IngestJobData, IngestJobResult>(ingestQueueName, processor, {
    connection: connectionOptions(options.queueUrl, true),
    concurrency: options.concurrency ?? 1,
    autorun: false,
    ...(options.lockSeconds ? { lockDuration: options.lockSeconds * 1000 } : {}),
    ...(options.stalledCheckSeconds ? { stalledInterval: options.stalledCheckSeconds * 1000 } : {}),
  });
  // Without a listener an 'error' event (Redis gone for a moment) would end the process; the worker reconnects by itself.
  worker.on("error", (error) => onEvent({ type: "error", message: error.message }));
  const closed = new Promise<void>((resolveClosed) => {
    const close = (): void => void worker.close().then(resolveClosed, resolveClosed);
    options.signal?.addEventListener("abort", close, { once: true });
  });
  await worker.waitUntilReady();
  onEvent({ type: "ready" });
  const running = worker.run();
  await closed;
  await running;
  await queue.close();
}
