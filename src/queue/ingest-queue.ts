// Enqueues ingest jobs, one per file, for workers on any machine that reaches the same Redis and the same files.

import { createHash } from "node:crypto";
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import type { Queue } from "bullmq";
import { statedLanguage } from "../ingest/index.js";
import { libraryLocation } from "../library-location.js";
import { VideoRagError } from "../spec/index.js";
import { openIngestQueue, queueHost } from "./connection.js";

/** What a job carries: enough for any worker to ingest the file into the library. */
export interface IngestJobData {
  /** Absolute path of the file; workers must see it at the same path (a shared file system). */
  path: string;
  /** The library the video goes into: its folder's absolute path, or its Postgres URL without the password. */
  library: string;
  incremental: boolean;
  /** The language the file speaks or shows (ISO 639-1), as stated when it was enqueued. */
  language?: string;
}

/** A job the enqueue asked for. */
export interface EnqueuedJob {
  id: string;
  path: string;
  /** added: a new job; queued: the same file (same size and modification time) already had one; retried: its job had failed and runs again. */
  state: "added" | "queued" | "retried";
}

export interface EnqueueOptions {
  /** Commit only the light index (see `IngestOptions.incremental`). */
  incremental?: boolean;
  /**
   * The language the files speak or show, as `IngestOptions.language` takes it; checked before anything is enqueued
   * (ARGUMENT_INVALID for one that names no language).
   */
  language?: string;
}

/** Tries per job for failures that may pass (a model server down, the library busy); bad input is not tried again. */
export const ingestAttempts = 3;

/** The name of the entity-description job, one at a time per library. */
export const describeJobName = "describe";

/**
 * Queues the library's entity-description pass unless one is already waiting (its id is the library's): removed once
 * it has run, so the next ingested file queues a new one.
 */
export async function enqueueDescribe(queue: Queue<IngestJobData>, library: string): Promise<void> {
  const id = `describe-${createHash("sha256").update(library).digest("hex").slice(0, 32)}`;
  await queue.add(
    describeJobName,
    { path: "(entity descriptions)", library, incremental: false },
    { jobId: id, attempts: ingestAttempts, backoff: { type: "exponential", delay: 5000 }, removeOnComplete: true, removeOnFail: true },
  );
}

/**
 * The job id: the library, the file and its size and modification time, hashed, and the language stated. Enqueuing an
 * unchanged file twice finds the first job instead of adding a second; a changed file, or one stated in another
 * language (which indexes it again in that language), gets a new job.
 */
export async function ingestJobId(library: string, path: string, language?: string): Promise<string> {
  const info = await stat(path).catch(() => undefined);
  const version = info ? `${info.size}:${info.mtimeMs}` : "missing";
  // Without a language, the id of before: jobs queued by an earlier videorag are still found.
  const stated = language ? `\n${language}` : "";
  return `ingest-${createHash("sha256").update(`${library}\n${path}\n${version}${stated}`).digest("hex").slice(0, 32)}`;
}

/** Adds one ingest job per file (files, not folders: expand those first) and returns at once. */
export async function enqueueIngest(queueUrl: string, library: string, files: string[], options: EnqueueOptions = {}): Promise<EnqueuedJob[]> {
  const language = statedLanguage(options.language);
  const queue = await openIngestQueue(queueUrl);
  const libraryPath = libraryLocation(library).name;
  try {
    const jobs: EnqueuedJob[] = [];
    for (const file of files) {
      const path = resolve(file);
      const id = await ingestJobId(libraryPath, path, language);
      const existing = await queue.getJob(id);
      if (existing) {
        // A job that failed for good is tried again when its file is enqueued again; any other is left as it is.
        const failed = (await existing.getState()) === "failed";
        if (failed) await existing.retry("failed", { resetAttemptsMade: true, resetAttemptsStarted: true });
        jobs.push({ id, path, state: failed ? "retried" : "queued" });
        continue;
      }
      await queue.add(
        "ingest",
        { path, library: libraryPath, incremental: options.incremental ?? false, ...(language ? { language } : {}) },
        { jobId: id, attempts: ingestAttempts, backoff: { type: "exponential", delay: 5000 } },
      );
      jobs.push({ id, path, state: "added" });
    }
    return jobs;
  } catch (error) {
    throw queueError(error, queueUrl);
  } finally {
    await queue.close();
  }
}

/** Errors from Redis become one VideoRagError whose message names the server by host and port only. */
export function queueError(error: unknown, queueUrl: string): unknown {
  if (VideoRagError.isInstance(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  const host = queueHost(queueUrl);
  return new VideoRagError("STORE_FAILED", `the job queue at ${host} failed: ${message.replaceAll(queueUrl, host)}`, { cause: error, retryable: true });
}
