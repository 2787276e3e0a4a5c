// Ingest jobs for the server: one at a time per library, kept on disk so they outlive the client that started them
// and resume after a restart. A job is a list of files for `library.ingest`; ingest itself is resumable and a video's id
// is its content hash, so running a job again after a crash or a shutdown redoes nothing that was committed.

import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { JobJson } from "../api/index.js";
import type { IngestEvent, IngestResult } from "../ingest/index.js";
import type { Library } from "../library.js";
import { VideoRagError, toVideoRagError } from "../spec/index.js";

/** What a job needs to run; kept beside its public JSON. */
interface StoredJob extends JobJson {
  /** Absolute paths handed to ingest. */
  paths: string[];
  /** The folder an upload was received into, removed of files that did not become videos. */
  uploadDir?: string;
  /** Real folders every file the job reads must resolve inside (the server's media roots). */
  confineTo?: string[];
}

export interface EnqueueInput {
  paths: string[];
  /** Display names, one per path (an upload's file name). */
  names: string[];
  incremental: boolean;
  /** The language the files speak or show (ISO 639-1), as stated: checked by the caller (statedLanguage). */
  language?: string;
  uploadDir?: string;
  /** Real folders every file the job reads, named or found in a folder, must resolve inside. */
  confineTo?: string[];
  /** An id chosen beforehand (an upload's folder is named after its job). */
  id?: string;
}

export interface IngestJobs {
  enqueue(input: EnqueueInput): JobJson;
  get(id: string): JobJson;
  list(): JobJson[];
  /** Cancels a queued job, or stops a running one at its next stage boundary (what was committed stays). */
  cancel(id: string): JobJson;
  /** Calls `listener` with the job now and on every change; returns the unsubscribe function. */
  subscribe(id: string, listener: (job: JobJson) => void): () => void;
  /** The paths a full (not incremental) ingest is working through now: questions leave their pending clips to it. */
  busyPaths(): string[];
  /** Starts the queue: jobs left queued or running by an earlier process run first. */
  start(): void;
  /** Stops the running job at its next stage boundary and leaves it queued for the next start. */
  shutdown(): Promise<void>;
}

/** A fresh job id: 12 hex characters, safe as a folder name. */
export function newJobId(): string {
  return randomBytes(6).toString("hex");
}

const jobIdPattern = /^[0-9a-f]{12}$/;
/** Progress is written to disk at most this often; status changes are written at once. */
const persistEveryMs = 1000;

export function createIngestJobs(options: {
  library: Library;
  dir: string;
  /** Where ingest runs; default the library on this thread (the server passes its ingest thread). */
  ingest?: Library["ingest"];
  log?: (line: string) => void;
}): IngestJobs {
  const { library, dir } = options;
  const ingest = options.ingest ?? ((inputs, ingestOptions) => library.ingest(inputs, ingestOptions));
  const log = options.log ?? (() => undefined);
  mkdirSync(dir, { recursive: true });
  const jobs = new Map<string, StoredJob>();
  const listeners = new Map<string, Set<(job: JobJson) => void>>();
  let running: { id: string; controller: AbortController; done: Promise<void> } | undefined;
  let started = false;
  let stopping = false;
  let lastPersist = 0;

  for (const name of readdirSync(dir)) {
    if (!name.endsWith(".json")) continue;
    try {
      const job = JSON.parse(readFileSync(join(dir, name), "utf8")) as StoredJob;
      if (!jobIdPattern.test(job.id)) continue;
      // A job that was running when its process stopped runs again from the start; committed videos are unchanged.
      if (job.status === "running") Object.assign(job, { status: "queued", results: [], progress: { position: 0, total: job.paths.length } });
      jobs.set(job.id, job);
    } catch {
      log(`jobs: skipped unreadable ${name}`);
    }
  }

  const publicJob = (job: StoredJob): JobJson => {
    const { paths: _paths, uploadDir: _uploadDir, confineTo: _confineTo, ...rest } = job;
    return structuredClone(rest);
  };
  const persist = (job: StoredJob): void => {
    const file = join(dir, `${job.id}.json`);
    writeFileSync(`${file}.tmp`, JSON.stringify(job));
    renameSync(`${file}.tmp`, file);
    lastPersist = Date.now();
  };
  const changed = (job: StoredJob, durable: boolean): void => {
    if (durable || Date.now() - lastPersist >= persistEveryMs) persist(job);
    const snapshot = publicJob(job);
    for (const listener of listeners.get(job.id) ?? []) listener(snapshot);
  };
  const lookup = (id: string): StoredJob => {
    const job = jobs.get(id);
    if (!job) throw new VideoRagError("JOB_NOT_FOUND", `no job "${id}"`, { subject: id });
    return job;
  };

  const progressFrom = (job: StoredJob, event: IngestEvent): void => {
    switch (event.type) {
      case "video-start":
        job.progress = { position: event.position, total: event.total, path: event.path };
        break;
      case "stage-start":
        job.progress = { ...job.progress, path: event.path, stage: event.stage, fraction: 0 };
        break;
      case "stage-progress":
        job.progress = { ...job.progress, stage: event.stage, fraction: event.fraction };
        break;
      case "stage-done":
        job.progress = { ...job.progress, stage: event.stage, fraction: 1 };
        break;
      case "video-done":
        job.results.push(resultJson(event.result));
        break;
    }
  };

  /**
   * Files of an upload that did not become a video (a duplicate, not media) are removed; the rest are the videos. A job
   * cancelled after a video was committed, before its result was reported, still has that video: the library says.
   */
  const tidyUpload = async (job: StoredJob): Promise<void> => {
    if (!job.uploadDir) return;
    const uploaded = new Set(job.paths);
    const committed = job.status === "done" ? [] : (await library.list()).map((video) => video.path).filter((path) => uploaded.has(path));
    const kept = new Set([...job.results.filter((result) => result.status === "ingested").map((result) => result.path), ...committed]);
    // A sidecar subtitle stays beside the video it belongs to.
    const stems = new Set([...kept].map((path) => path.replace(/\.[^./]+$/, "")));
    for (const path of job.paths) {
      if (kept.has(path) || stems.has(path.replace(/\.[^./]+$/, ""))) continue;
      rmSync(path, { force: true });
    }
    if (kept.size === 0) rmSync(job.uploadDir, { recursive: true, force: true });
  };

  const runJob = async (job: StoredJob, controller: AbortController): Promise<void> => {
    Object.assign(job, { status: "running", startedAt: new Date().toISOString(), results: [], error: undefined });
    changed(job, true);
    log(`job ${job.id}: ingesting ${job.paths.length} file(s)`);
    try {
      await ingest(job.paths, {
        incremental: job.incremental,
        ...(job.language ? { language: job.language } : {}),
        ...(job.confineTo ? { confineTo: job.confineTo } : {}),
        signal: controller.signal,
        onProgress: (event) => {
          progressFrom(job, event);
          changed(job, event.type === "video-done");
        },
      });
      const failures = job.results.filter((result) => result.status === "failed");
      job.status = failures.length > 0 && failures.length === job.results.length ? "failed" : "done";
      if (job.status === "failed" && failures[0]?.error) job.error = failures[0].error;
    } catch (error) {
      if (controller.signal.aborted && stopping) {
        // Shut down mid-job: it runs again at the next start (what was committed is kept and skipped then).
        Object.assign(job, { status: "queued", results: [], progress: { position: 0, total: job.paths.length } });
        changed(job, true);
        log(`job ${job.id}: left queued for the next start`);
        return;
      }
      const failure = toVideoRagError(error);
      job.status = controller.signal.aborted ? "cancelled" : "failed";
      job.error = { code: failure.code, message: failure.message };
    }
    job.finishedAt = new Date().toISOString();
    await tidyUpload(job);
    changed(job, true);
    log(`job ${job.id}: ${job.status}`);
  };

  const pump = (): void => {
    if (!started || stopping || running) return;
    const next = [...jobs.values()].filter((job) => job.status === "queued").sort((a, b) => a.createdAt.localeCompare(b.createdAt))[0];
    if (!next) return;
    const controller = new AbortController();
    const done = runJob(next, controller)
      .catch((error: unknown) => log(`job ${next.id}: ${toVideoRagError(error).message}`))
      .finally(() => {
        running = undefined;
        pump();
      });
    running = { id: next.id, controller, done };
  };

  return {
    enqueue(input) {
      const id = input.id ?? newJobId();
      const job: StoredJob = {
        id,
        kind: "ingest",
        status: "queued",
        createdAt: new Date().toISOString(),
        inputs: input.names,
        incremental: input.incremental,
        ...(input.language ? { language: input.language } : {}),
        progress: { position: 0, total: input.paths.length },
        results: [],
        paths: input.paths,
        ...(input.uploadDir ? { uploadDir: input.uploadDir } : {}),
        ...(input.confineTo ? { confineTo: input.confineTo } : {}),
      };
      jobs.set(id, job);
      persist(job);
      pump();
      return publicJob(job);
    },
    get: (id) => publicJob(lookup(id)),
    list: () => [...jobs.values()].sort((a, b) => b.createdAt.localeCompare(a.createdAt)).map(publicJob),
    cancel(id) {
      const job = lookup(id);
      if (job.status === "queued") {
        Object.assign(job, { status: "cancelled", finishedAt: new Date().toISOString() });
        changed(job, true);
        void tidyUpload(job).catch((error: unknown) => log(`job ${id}: tidying its upload failed: ${toVideoRagError(error).message}`));
      } else if (job.status === "running" && running?.id === id) {
        running.controller.abort(new VideoRagError("INTERRUPTED", "the job was cancelled"));
      }
      return publicJob(job);
    },
    subscribe(id, listener) {
      const job = lookup(id);
      const set = listeners.get(id) ?? new Set();
      listeners.set(id, set);
      set.add(listener);
      listener(publicJob(job));
      return () => {
        set.delete(listener);
        if (set.size === 0) listeners.delete(id);
      };
    },
    busyPaths() {
      const job = running ? jobs.get(running.id) : undefined;
      return job && !job.incremental ? [...job.paths] : [];
    },
    start() {
      started = true;
      pump();
    },
    async shutdown() {
      stopping = true;
      const current = running;
      if (!current) return;
      current.controller.abort(new VideoRagError("INTERRUPTED", "the server is shutting down"));
      await current.done;
    },
  };
}

function resultJson(result: IngestResult): JobJson["results"][number] {
  const { path, videoId, status, error, durationSeconds, clipCount, notes } = result;
  return { path, ...(videoId ? { videoId } : {}), status, ...(error ? { error } : {}), durationSeconds, clipCount, notes };
}
