// The library in a worker thread: the server sends questions, summaries and ingest jobs here so that both cores work, a burst of
// questions does not stall an ingest's frame work, and an ingest's frame work does not stall answers. Each worker opens
// the library itself (its own SQLite connection; WAL lets readers go on while a writer commits).

import { parentPort, workerData } from "node:worker_threads";
import { openLibrary, type LibraryOptions } from "../library.js";
import { setChildProcessNiceness } from "../media/index.js";
import { VideoRagError, toVideoRagError } from "../spec/index.js";
import type { SummaryLength } from "../summary/index.js";

/** A request from the server's thread. */
export type WorkerRequest =
  | { id: number; method: "search"; query: string; options: { limit?: number; mode?: string; videos?: string[]; speaker?: string } }
  | { id: number; method: "ask"; question: string; options: { limit?: number; mode?: string; extract?: boolean; busyPaths?: string[]; videos?: string[] } }
  | { id: number; method: "summarize"; reference: string; options: { length?: SummaryLength } }
  | { id: number; method: "ingest"; inputs: string[]; options: { incremental?: boolean; confineTo?: string[]; describeEntities?: boolean; language?: string } }
  | { id: number; method: "abort" }
  /** Stop the work, close the library (its database and its scratch folder), answer, then end the thread. */
  | { id: number; method: "close" };

/** What comes back: callback events while the work runs, then its result or its error. */
export type WorkerReply =
  | { id: number; event: "moments" | "text" | "extraction" | "preliminary" | "progress"; data: unknown }
  | { id: number; result: unknown }
  | { id: number; error: { code: string; message: string; retryable: boolean; subject?: string } };

async function serve(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error("library-worker runs only as a worker thread");
  const { options, role } = workerData as { options: LibraryOptions; role: "questions" | "ingest" };
  // Ingest in the background gives way: its ffmpeg, tesseract and pocketsphinx run below the questions' priority.
  if (role === "ingest") setChildProcessNiceness(10);
  const library = await openLibrary(options);
  const running = new Map<number, AbortController>();
  let closing: Promise<void> | undefined;
  port.on("message", (request: WorkerRequest) => {
    if (request.method === "abort") {
      running.get(request.id)?.abort(new VideoRagError("INTERRUPTED", "the request was cancelled"));
      return;
    }
    if (request.method === "close") {
      for (const controller of running.values()) controller.abort(new VideoRagError("INTERRUPTED", "the server is shutting down"));
      void (closing ??= library.close()).finally(() => {
        port.postMessage({ id: request.id, result: "closed" } satisfies WorkerReply);
        port.close();
      });
      return;
    }
    const controller = new AbortController();
    running.set(request.id, controller);
    const send = (event: "moments" | "text" | "extraction" | "preliminary" | "progress") => (data: unknown) => port.postMessage({ id: request.id, event, data } satisfies WorkerReply);
    const work = (): Promise<unknown> => {
      const signal = controller.signal;
      switch (request.method) {
        case "search":
          return library.search(request.query, { ...request.options, mode: request.options.mode as never, signal });
        case "ask":
          return library.ask(request.question, {
            ...request.options,
            mode: request.options.mode as never,
            signal,
            onMoments: send("moments"),
            onText: send("text"),
            onExtraction: send("extraction"),
            onPreliminary: send("preliminary"),
          });
        case "summarize":
          return library.summarize(request.reference, { ...request.options, signal, onText: send("text") });
        case "ingest":
          return library.ingest(request.inputs, { ...request.options, signal, onProgress: send("progress") });
      }
    };
    work()
      .then((result) => port.postMessage({ id: request.id, result } satisfies WorkerReply))
      .catch((error: unknown) => {
        const failure = controller.signal.aborted && controller.signal.reason ? toVideoRagError(controller.signal.reason) : toVideoRagError(error);
        port.postMessage({ id: request.id, error: { code: failure.code, message: failure.message, retryable: failure.retryable, subject: failure.subject } } satisfies WorkerReply);
      })
      .finally(() => running.delete(request.id));
  });
  port.once("close", () => void (closing ??= library.close()));
  port.postMessage({ id: 0, result: "ready" } satisfies WorkerReply);
}

await serve();
