// What the ingest queue holds: jobs waiting, running, failed (with their error codes) and done.

import type { ErrorCode } from "../spec/index.js";
import { openIngestQueue } from "./connection.js";
import { queueError } from "./ingest-queue.js";
import type { IngestJobProgress } from "./ingest-worker.js";

/** A job that failed for good, or is waiting to be tried again. */
export interface FailedIngestJob {
  id: string;
  path: string;
  /** The error code the worker reported; INTERNAL for a failure without one (a worker that died twice on the job). */
  code: ErrorCode | "INTERNAL";
  message: string;
  attempts: number;
}

/** A job a worker is running now. */
export interface ActiveIngestJob {
  id: string;
  path: string;
  progress?: IngestJobProgress;
}

export interface QueueStatus {
  /** Waiting, delayed (to be retried after a back-off) and prioritised jobs. */
  waiting: number;
  active: number;
  failed: number;
  done: number;
  activeJobs: ActiveIngestJob[];
  failedJobs: FailedIngestJob[];
}

/** Splits `INPUT_NOT_MEDIA: the file …` into its code and message, as the worker wrote it. */
export function parseFailure(reason: string | undefined): { code: ErrorCode | "INTERNAL"; message: string } {
  const match = /^([A-Z][A-Z_]+): ([\s\S]*)$/.exec(reason ?? "");
  return match ? { code: match[1] as ErrorCode, message: match[2] ?? "" } : { code: "INTERNAL", message: reason ?? "unknown failure" };
}

/** Counts the queue's jobs and lists the running and the failed ones (at most `limit` each, newest first). */
export async function queueStatus(queueUrl: string, limit = 100): Promise<QueueStatus> {
  const queue = await openIngestQueue(queueUrl);
  try {
    const counts = await queue.getJobCounts("waiting", "delayed", "prioritized", "waiting-children", "active", "failed", "completed");
    const active = await queue.getActive(0, limit - 1);
    const failed = await queue.getFailed(0, limit - 1);
    return {
      waiting: (counts.waiting ?? 0) + (counts.delayed ?? 0) + (counts.prioritized ?? 0) + (counts["waiting-children"] ?? 0),
      active: counts.active ?? 0,
      failed: counts.failed ?? 0,
      done: counts.completed ?? 0,
      activeJobs: active.map((job) => ({
        id: String(job.id),
        path: job.data.path,
        ...(typeof job.progress === "object" ? { progress: job.progress as unknown as IngestJobProgress } : {}),
      })),
      failedJobs: failed.map((job) => ({ id: String(job.id), path: job.data.path, ...parseFailure(job.failedReason), attempts: job.attemptsMade })),
    };
  } catch (error) {
    throw queueError(error, queueUrl);
  } finally {
    await queue.close();
  }
}

/** Where one job stands, as `ingest --wait` shows it. */
export interface IngestJobState {
  id: string;
  path: string;
  state: "waiting" | "active" | "done" | "failed";
  progress?: IngestJobProgress;
  /** For done jobs: ingested, unchanged or skipped. */
  status?: string;
  failure?: { code: ErrorCode | "INTERNAL"; message: string };
}

/**
 * Polls the jobs until each is done or has failed for good, calling `onChange` with a job whenever its state, stage or
 * progress moved; returns their last states. A job no longer in the queue counts as done.
 */
export async function waitForJobs(
  queueUrl: string,
  ids: string[],
  options: { onChange?: (job: IngestJobState) => void; signal?: AbortSignal; intervalSeconds?: number } = {},
): Promise<IngestJobState[]> {
  const queue = await openIngestQueue(queueUrl);
  const last = new Map<string, string>();
  try {
    for (;;) {
      const states: IngestJobState[] = [];
      for (const id of ids) {
        const job = await queue.getJob(id);
        const raw = job ? await job.getState() : "completed";
        const state = raw === "completed" ? "done" : raw === "failed" ? "failed" : raw === "active" ? "active" : "waiting";
        const progress = job && typeof job.progress === "object" ? (job.progress as unknown as IngestJobProgress) : undefined;
        const returned = job?.returnvalue as { status?: string } | null | undefined;
        states.push({
          id,
          path: job?.data.path ?? id,
          state,
          ...(progress && state === "active" ? { progress } : {}),
          ...(state === "done" && returned?.status ? { status: returned.status } : {}),
          ...(state === "failed" ? { failure: parseFailure(job?.failedReason) } : {}),
        });
      }
      for (const job of states) {
        const key = `${job.state}:${job.progress?.stage ?? ""}:${Math.floor((job.progress?.fraction ?? 0) * 10)}`;
        if (last.get(job.id) === key) continue;
        last.set(job.id, key);
        options.onChange?.(job);
      }
      if (states.every((job) => job.state === "done" || job.state === "failed")) return states;
      options.signal?.throwIfAborted();
      await new Promise<void>((resolveDelay) => setTimeout(resolveDelay, (options.intervalSeconds ?? 0.5) * 1000));
      options.signal?.throwIfAborted();
    }
  } catch (error) {
    throw queueError(error, queueUrl);
  } finally {
    await queue.close();
  }
}
