// The queue commands: `ingest --queue` enqueues, `worker` runs jobs, `queue status` shows the queue. BullMQ loads only here.

import { basename } from "node:path";
import { expandInputs } from "../ingest/index.js";
import { libraryLocation } from "../library-location.js";
import type { Library } from "../library.js";
import { enqueueIngest, queueHost, queueStatus, runWorker, waitForJobs, type IngestJobState, type WorkerEvent } from "../queue/index.js";
import { VideoRagError } from "../spec/index.js";

/** The flags these commands read. */
export interface QueueFlags {
  queue?: string;
  wait?: boolean;
  concurrency?: string;
  incremental?: boolean;
  language?: string;
  json?: boolean;
}

function queueUrl(flags: QueueFlags): string {
  const url = flags.queue ?? process.env.VIDEORAG_QUEUE;
  if (!url) throw new VideoRagError("ARGUMENT_INVALID", "this command needs --queue redis://host:port (or $VIDEORAG_QUEUE)");
  if (!/^rediss?:\/\//.test(url)) throw new VideoRagError("ARGUMENT_INVALID", `--queue takes a redis:// or rediss:// URL, got ${queueHost(url)}`);
  return url;
}

function seconds(name: string): number | undefined {
  const value = process.env[name];
  if (value === undefined || value === "") return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new VideoRagError("ARGUMENT_INVALID", `$${name} must be a positive number of seconds, got "${value}"`);
  return parsed;
}

function describeJob(job: IngestJobState, position: string): string {
  const name = basename(job.path);
  switch (job.state) {
    case "done":
      return `${position} ✓ ${name}: ${job.status ?? "done"}`;
    case "failed":
      return `${position} ✗ ${name}: ${job.failure?.code} ${job.failure?.message}`;
    case "active":
      return `${position} ${name}: ${job.progress ? `${job.progress.stage} ${Math.round(job.progress.fraction * 100)}%` : "started"}`;
    default:
      return `${position} ${name}: waiting`;
  }
}

/** `ingest --queue`: one job per file, then return (or, with --wait, show progress until every job has finished). */
export async function queueIngestCommand(flags: QueueFlags, inputs: string[], library: string, signal: AbortSignal): Promise<void> {
  const url = queueUrl(flags);
  const expanded = await expandInputs(inputs);
  for (const skipped of expanded.filter((file) => file.skip)) process.stderr.write(`- ${skipped.path}: skipped (${skipped.skip})\n`);
  const files = expanded.filter((file) => !file.skip).map((file) => file.path);
  const jobs = await enqueueIngest(url, library, files, { incremental: flags.incremental ?? false, ...(flags.language ? { language: flags.language } : {}) });
  const name = libraryLocation(library).name;
  const host = queueHost(url);
  if (!flags.wait) {
    if (flags.json) console.log(JSON.stringify({ queue: host, library: name, jobs }, null, 2));
    else {
      for (const job of jobs) console.log(`${job.id}  ${job.state.padEnd(7)}  ${job.path}`);
      const queued = jobs.filter((job) => job.state === "queued").length;
      process.stderr.write(`videorag: ${jobs.length - queued} jobs queued on ${host} for ${name}${queued ? ` (${queued} already queued)` : ""}\n`);
    }
    return;
  }
  const positions = new Map(jobs.map((job, index) => [job.id, `[${index + 1}/${jobs.length}]`]));
  const states = await waitForJobs(url, jobs.map((job) => job.id), {
    signal,
    onChange: (job) => process.stderr.write(`${describeJob(job, positions.get(job.id) ?? "")}\n`),
  });
  if (flags.json) console.log(JSON.stringify({ queue: host, library: name, jobs: states }, null, 2));
  else console.log(`${states.filter((job) => job.state === "done").length} done, ${states.filter((job) => job.state === "failed").length} failed`);
  if (states.some((job) => job.state === "failed")) process.exitCode = 3;
}

function workerLine(event: WorkerEvent): string | undefined {
  switch (event.type) {
    case "job-start":
      return `started job ${event.jobId} ${event.path} (attempt ${event.attempt})`;
    case "job-done":
      return `done job ${event.jobId} ${event.path}: ${event.result.status}${event.result.videoId ? ` ${event.result.videoId}` : ""}`;
    case "job-failed":
      return `failed job ${event.jobId} ${event.path}: ${event.code} ${event.message}${event.retried ? " (will be tried again)" : ""}`;
    case "error":
      return `queue error: ${event.message}`;
    default:
      return undefined;
  }
}

/**
 * `worker`: runs ingest jobs until SIGINT or SIGTERM; then the running jobs finish and the worker closes. A second
 * signal ends the process at once: its jobs run again on another worker once their locks expire.
 */
export async function workerCommand(flags: QueueFlags, withLibrary: (work: (library: Library) => Promise<void>) => Promise<void>): Promise<void> {
  const url = queueUrl(flags);
  const concurrency = flags.concurrency === undefined ? 1 : Number(flags.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new VideoRagError("ARGUMENT_INVALID", `--concurrency must be a whole number of at least 1, got "${flags.concurrency}"`);
  const lockSeconds = seconds("VIDEORAG_QUEUE_LOCK_SECONDS");
  const stalledCheckSeconds = seconds("VIDEORAG_QUEUE_STALLED_CHECK_SECONDS");
  await withLibrary(async (library) => {
    const controller = new AbortController();
    const stop = (): void => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      process.stderr.write("videorag: stopping; running jobs finish first (a second Ctrl-C stops now, and they run again elsewhere)\n");
      controller.abort();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    try {
      await runWorker({
        queueUrl: url,
        library,
        concurrency,
        signal: controller.signal,
        ...(lockSeconds ? { lockSeconds } : {}),
        ...(stalledCheckSeconds ? { stalledCheckSeconds } : {}),
        onEvent: (event) => {
          if (event.type === "ready") {
            process.stderr.write(`videorag: worker on ${queueHost(url)} ingesting into ${library.location} (concurrency ${concurrency})\n`);
            return;
          }
          const line = workerLine(event);
          if (line) process.stderr.write(`${new Date().toISOString()} ${line}\n`);
        },
      });
    } finally {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
    }
  });
}

/** `queue status`: counts, the running jobs with their stage, the failed ones with their error codes. */
export async function queueCommand(flags: QueueFlags, args: string[]): Promise<void> {
  const [action] = args;
  if (action !== "status") throw new VideoRagError("ARGUMENT_INVALID", "queue needs 'status'");
  const url = queueUrl(flags);
  const status = await queueStatus(url);
  if (flags.json) {
    console.log(JSON.stringify({ queue: queueHost(url), ...status }, null, 2));
    return;
  }
  console.log(
    [
      `queue at ${queueHost(url)}: ${status.waiting} waiting, ${status.active} active, ${status.failed} failed, ${status.done} done`,
      ...status.activeJobs.map((job) => `  active  ${job.id}  ${job.path}${job.progress ? `  ${job.progress.stage} ${Math.round(job.progress.fraction * 100)}%` : ""}`),
      ...status.failedJobs.map((job) => `  failed  ${job.id}  ${job.code}  ${job.path}: ${job.message}`),
    ].join("\n"),
  );
}
