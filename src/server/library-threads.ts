// Questions and ingest jobs on worker threads, each with the library open: questions spread over as many threads as
// there are cores, and ingest on a thread of its own, so neither waits for the other's JavaScript. Callbacks (moments,
// streamed text, extraction and ingest progress) and cancellation cross the thread boundary as messages. Searches and
// asks wait in one queue for the first thread with room (see `QuestionQueue`).

import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { IngestEvent, IngestOptions, IngestReport } from "../ingest/index.js";
import { disableOnnxTelemetry } from "../providers/onnx/index.js";
import type { AskOptions, LibraryOptions, SearchOptions, SummarizeOptions } from "../library.js";
import { VideoRagError, type Answer, type ErrorCode, type Hit, type PreliminaryAnswer } from "../spec/index.js";
import type { VideoSummary } from "../summary/index.js";
import type { WorkerReply, WorkerRequest } from "./library-worker.js";

/** The library calls the server runs off its own thread. */
export interface LibraryThreads {
  search(query: string, options?: SearchOptions): Promise<Hit[]>;
  ask(question: string, options?: AskOptions): Promise<Answer>;
  /** A video's summary; a language model writes it on a thread, where the model is loaded, not on the server's. */
  summarize(reference: string, options?: SummarizeOptions): Promise<VideoSummary>;
  ingest(inputs: string[], options?: IngestOptions): Promise<IngestReport>;
  close(): Promise<void>;
}

/** A request without its id (each thread numbers its own). */
type WorkerCall = WorkerRequest extends infer Request ? (Request extends { id: number } ? Omit<Request, "id"> : never) : never;

type Pending = { resolve(value: unknown): void; reject(error: unknown): void; on(event: string, data: unknown): void };

/**
 * A worker on the library: the compiled file in the package; under tsx (tests, `npm run`) the TypeScript source, loaded
 * after registering tsx in the thread, since a worker does not inherit the loader hooks of the thread that starts it.
 */
function libraryWorker(options: LibraryOptions, role: "questions" | "ingest"): Worker {
  const workerData = { options, role };
  if (!import.meta.url.endsWith(".ts")) return new Worker(new URL("./library-worker.js", import.meta.url), { workerData });
  const source = new URL("./library-worker.ts", import.meta.url).href;
  const tsx = import.meta.resolve("tsx/esm/api");
  const bootstrap = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(source)}); })`;
  return new Worker(bootstrap, { eval: true, workerData });
}

/** How long a thread may take to close its library before it is terminated. */
const closeWaitMs = 5_000;

class LibraryThread {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  readonly ready: Promise<void>;
  private failure: VideoRagError | undefined;

  constructor(options: LibraryOptions, role: "questions" | "ingest") {
    this.worker = libraryWorker(options, role);
    let started: (() => void) | undefined;
    let refused: ((error: unknown) => void) | undefined;
    this.ready = new Promise<void>((resolve, reject) => {
      started = resolve;
      refused = reject;
    });
    this.worker.on("message", (reply: WorkerReply) => {
      if (reply.id === 0) return started?.();
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      if ("event" in reply) return waiting.on(reply.event, reply.data);
      this.pending.delete(reply.id);
      if ("error" in reply) {
        const { code, message, retryable, subject } = reply.error;
        waiting.reject(new VideoRagError(code as ErrorCode, message, { retryable, subject }));
      } else waiting.resolve(reply.result);
    });
    const fail = (error: unknown): void => {
      this.failure = new VideoRagError("INTERNAL", `a library thread stopped: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      refused?.(this.failure);
      for (const waiting of this.pending.values()) waiting.reject(this.failure);
      this.pending.clear();
    };
    this.worker.on("error", fail);
    this.worker.on("exit", (code) => fail(new Error(`exit code ${code}`)));
  }

  /** Questions from the queue this thread is working on (see `QuestionQueue`). */
  taken = 0;

  get load(): number {
    return this.failure ? Number.POSITIVE_INFINITY : this.pending.size;
  }

  call<T>(request: WorkerCall, signal: AbortSignal | undefined, on: (event: string, data: unknown) => void = () => undefined): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const abort = (): void => this.worker.postMessage({ id, method: "abort" } satisfies WorkerRequest);
      signal?.addEventListener("abort", abort, { once: true });
      this.pending.set(id, {
        resolve: (value) => {
          signal?.removeEventListener("abort", abort);
          resolve(value as T);
        },
        reject: (error) => {
          signal?.removeEventListener("abort", abort);
          reject(error);
        },
        on,
      });
      this.worker.postMessage({ ...request, id } as WorkerRequest);
    });
  }

  /**
   * Asks the thread to close its library (the database, and its scratch folder) and end; a thread that does not answer
   * within a few seconds is terminated (its scratch is then removed by the next process to open the library).
   */
  async close(): Promise<void> {
    this.worker.removeAllListeners("exit");
    if (!this.failure) {
      const exited = new Promise<void>((resolve) => this.worker.once("exit", () => resolve()));
      const closed = this.call<unknown>({ method: "close" }, undefined).catch(() => undefined);
      const timeout = new Promise<void>((resolve) => setTimeout(resolve, closeWaitMs).unref());
      await Promise.race([closed.then(() => exited), exited, timeout]);
    }
    await this.worker.terminate();
  }
}

/**
 * Questions a thread takes from the queue at once: one waiting in the thread while it works on the other, so that it
 * never idles between two, and no more, so that a question does not wait behind a slow one while another thread is free.
 */
const questionsPerThread = 2;

/**
 * Searches and asks, first come first served, each given to the thread with the fewest questions when it has room.
 * Sent straight to a thread's own queue, a question waited behind everything that thread had been given, a slow search
 * (one whose words' lists the thread reads the first time) included, while the other thread could have been free. An
 * ask gives its place back at its first event: once its moments are found (writing the answer then waits on a model
 * server, or is short), or once its preliminary answer is out (extraction then waits on its programs).
 */
export class QuestionQueue<Thread extends { taken: number; readonly load: number } = LibraryThread> {
  private readonly waiting: { start(thread: Thread): void }[] = [];

  constructor(private readonly threads: readonly Thread[]) {}

  /** Runs `work` on a thread when one has room; `release` (called at the latest when `work` settles) frees its place. */
  run<T>(signal: AbortSignal | undefined, work: (thread: Thread, release: () => void) => Promise<T>): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<T>((resolve, reject) => {
      const entry = {
        start: (thread: Thread): void => {
          signal?.removeEventListener("abort", withdraw);
          thread.taken += 1;
          let released = false;
          const release = (): void => {
            if (released) return;
            released = true;
            thread.taken -= 1;
            this.dispatch();
          };
          work(thread, release).finally(release).then(resolve, reject);
        },
      };
      // A question cancelled while it waits leaves the queue.
      const withdraw = (): void => {
        const at = this.waiting.indexOf(entry);
        if (at < 0) return;
        this.waiting.splice(at, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", withdraw, { once: true });
      this.waiting.push(entry);
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.waiting.length > 0) {
      // A thread that stopped has an infinite load. When every thread stopped, the first fails the questions itself.
      const running = this.threads.filter((thread) => thread.load < Number.POSITIVE_INFINITY);
      const thread = running.reduce<Thread | undefined>((best, candidate) => (best && best.taken <= candidate.taken ? best : candidate), undefined);
      if (thread && thread.taken >= questionsPerThread) return;
      (this.waiting.shift() as { start(thread: Thread): void }).start(thread ?? (this.threads[0] as Thread));
    }
  }
}

/** Starts `queryThreads` threads for questions (default: one per core) and one for ingest, each with the library open. */
export async function startLibraryThreads(options: LibraryOptions, settings: { queryThreads?: number } = {}): Promise<LibraryThreads> {
  // Set on this thread, the real environment: a thread's own process.env is a copy the native library never reads.
  disableOnnxTelemetry();
  // Callbacks cannot cross to a thread; the server's own library reports model downloads.
  const { onModelDownload: _onModelDownload, ...threadOptions } = options;
  const count = Math.max(1, settings.queryThreads ?? availableParallelism());
  const queries = Array.from({ length: count }, () => new LibraryThread(threadOptions, "questions"));
  const ingester = new LibraryThread(threadOptions, "ingest");
  try {
    await Promise.all([...queries, ingester].map((thread) => thread.ready));
  } catch (error) {
    await Promise.all([...queries, ingester].map((thread) => thread.close()));
    throw error;
  }
  const leastBusy = (): LibraryThread => queries.reduce((best, thread) => (thread.load < best.load ? thread : best));
  const questions = new QuestionQueue(queries);
  return {
    search: (query, { signal, ...rest } = {}) =>
      questions.run(signal, (thread) =>
        thread.call<Hit[]>(
          { method: "search", query, options: { limit: rest.limit, mode: rest.mode, videos: rest.videos ? [...rest.videos] : undefined, speaker: rest.speaker } },
          signal,
        ),
      ),
    ask: (question, { signal, onMoments, onText, onExtraction, onPreliminary, ...rest } = {}) =>
      questions.run(signal, (thread, release) =>
        thread.call<Answer>(
          {
            method: "ask",
            question,
            options: { limit: rest.limit, mode: rest.mode, extract: rest.extract, busyPaths: rest.busyPaths ? [...rest.busyPaths] : undefined, videos: rest.videos ? [...rest.videos] : undefined },
          },
          signal,
          (event, data) => {
            // Its first event says the ask is past its search, or waits on extraction's programs: its place goes back.
            release();
            if (event === "moments") onMoments?.(data as Hit[]);
            else if (event === "text") onText?.(data as string);
            else if (event === "extraction") onExtraction?.(data as never);
            else if (event === "preliminary") onPreliminary?.(data as PreliminaryAnswer);
          },
        ),
      ),
    summarize: (reference, { signal, onText, length } = {}) =>
      leastBusy().call<VideoSummary>({ method: "summarize", reference, options: { length } }, signal, (event, data) => {
        if (event === "text") onText?.(data as string);
      }),
    // Every option that is data crosses to the thread; confinement above all, or a folder's links would lead out.
    ingest: (inputs, { signal, onProgress, ...rest } = {}) =>
      ingester.call<IngestReport>({ method: "ingest", inputs, options: rest }, signal, (_event, data) => onProgress?.(data as IngestEvent)),
    close: async () => {
      await Promise.all([...queries, ingester].map((thread) => thread.close()));
    },
  };
}
