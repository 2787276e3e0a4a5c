// The library API, the spine of the product: open a library folder, ingest, search, ask, list, remove.
// The CLI, and later the server and the web UI, are thin layers over this.

import { mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import { extractiveAnswer } from "./answer/index.js";
import { expandInputs, ingestMediaFile, ingestTranscripts, summarize } from "./ingest/index.js";
import type { IngestOptions, IngestReport, IngestResult } from "./ingest/index.js";
import { chooseLiteProviders, type ProviderChoice } from "./providers/registry.js";
import { analyzeText, rankVideos, searchMoments, termKey } from "./retrieval/index.js";
import { VideoRagError } from "./spec/index.js";
import type { Answer, Hit, Store, Video, VideoHit } from "./spec/index.js";
import { openSqliteStore } from "./store/index.js";

const libraryOptionsSchema = z
  .object({
    /** The library folder; default `VIDEORAG_LIBRARY` or `./.videorag`. */
    path: z.string().min(1).optional(),
    /** Length of the clips that retrieval ranks. */
    clipSeconds: z.number().positive().max(3600).default(30),
    /** Longest stretch of video without a sampled frame for screen text. */
    frameGapSeconds: z.number().positive().max(600).default(5),
    /** Read on-screen text and bitmap subtitles with OCR. */
    ocr: z.boolean().default(true),
    /** Recognise speech in videos without subtitles. */
    speech: z.boolean().default(true),
  })
  .strict();

export type LibraryOptions = z.input<typeof libraryOptionsSchema>;

export interface SearchOptions {
  limit?: number;
}

export interface AskOptions {
  /** How many moments to draw the answer from. */
  limit?: number;
  maxSentences?: number;
}

export interface Library {
  /** Absolute path of the library folder. */
  readonly path: string;
  /** Ingests files, folders and simple globs; resumable; one result per file, never throws for bad input. */
  ingest(inputs: string[], options?: IngestOptions): Promise<IngestReport>;
  /** Ingests a folder of `<id>.txt|.srt|.vtt` transcripts as videos known only by their transcript. */
  ingestTranscripts(directory: string, options?: IngestOptions): Promise<IngestReport>;
  /** Ranked moments (clip hits merged) for a query. */
  search(query: string, options?: SearchOptions): Hit[];
  /** Ranked whole videos for a query. */
  searchVideos(query: string, options?: SearchOptions): VideoHit[];
  /** An answer with citations to the moments it came from. */
  ask(question: string, options?: AskOptions): Promise<Answer>;
  list(): Video[];
  /** Resolves a full id, a unique id prefix, a path or a title to a video. */
  find(reference: string): Video;
  /** Removes a video and everything it contributed. */
  remove(reference: string): Video;
  /** The providers each stage uses, one line each. */
  providers(): Promise<string[]>;
  close(): void;
}

export function defaultLibraryPath(): string {
  return resolve(process.env.VIDEORAG_LIBRARY || ".videorag");
}

export async function openLibrary(options: LibraryOptions = {}): Promise<Library> {
  const parsed = libraryOptionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new VideoRagError("CONFIG_INVALID", `${issue?.path.join(".") || "options"}: ${issue?.message ?? "invalid"}`);
  }
  const settings = parsed.data;
  const path = resolve(settings.path ?? defaultLibraryPath());
  try {
    mkdirSync(path, { recursive: true });
  } catch (error) {
    throw new VideoRagError("STORE_FAILED", `cannot create the library folder ${path}`, { cause: error, subject: path });
  }
  const tempDir = join(path, "tmp");
  rmSync(tempDir, { recursive: true, force: true });
  mkdirSync(tempDir, { recursive: true });
  const store: Store = openSqliteStore(join(path, "library.sqlite"));
  let providerChoice: Promise<ProviderChoice> | undefined;
  const providers = (): Promise<ProviderChoice> =>
    (providerChoice ??= chooseLiteProviders({ ocr: settings.ocr, speech: settings.speech }));

  const find = (reference: string): Video => {
    const videos = store.listVideos();
    const exact = videos.find((video) => video.id === reference || video.path === resolve(reference));
    if (exact) return exact;
    const matches = videos.filter((video) => (reference.length >= 4 && video.id.startsWith(reference)) || video.title === reference);
    if (matches.length === 1 && matches[0]) return matches[0];
    if (matches.length > 1) {
      throw new VideoRagError("ARGUMENT_INVALID", `"${reference}" matches ${matches.length} videos; give more of the id`, { subject: reference });
    }
    throw new VideoRagError("VIDEO_NOT_FOUND", `no video "${reference}" in the library`, { subject: reference });
  };

  const timesEstimated = new Map<string, boolean>();
  const isEstimated = (videoId: string): boolean => {
    if (!timesEstimated.has(videoId)) timesEstimated.set(videoId, store.getVideo(videoId)?.timesEstimated ?? false);
    return timesEstimated.get(videoId) ?? false;
  };

  return {
    path,
    async ingest(inputs, ingestOptions = {}) {
      const started = performance.now();
      const emit = ingestOptions.onProgress ?? (() => undefined);
      const choice = await providers();
      const context = { store, ocr: choice.ocr, transcriber: choice.transcriber, clipSeconds: settings.clipSeconds, frameGapSeconds: settings.frameGapSeconds, tempDir };
      const files = await expandInputs(inputs);
      const results: IngestResult[] = [];
      for (const [position, file] of files.entries()) {
        ingestOptions.signal?.throwIfAborted();
        emit({ type: "video-start", path: file.path, position, total: files.length });
        const result: IngestResult = file.skip
          ? { path: file.path, status: "skipped", durationSeconds: 0, clipCount: 0, stageSeconds: {}, warnings: [], notes: [file.skip] }
          : await ingestMediaFile(context, file.path, emit, ingestOptions.signal);
        results.push(result);
        emit({ type: "video-done", result });
      }
      const report = summarize(results, (performance.now() - started) / 1000);
      report.warnings.unshift(...choice.warnings);
      return report;
    },
    async ingestTranscripts(directory, ingestOptions = {}) {
      const started = performance.now();
      const results = await ingestTranscripts(store, resolve(directory), {
        clipSeconds: settings.clipSeconds,
        onProgress: ingestOptions.onProgress,
        signal: ingestOptions.signal,
      });
      return summarize(results, (performance.now() - started) / 1000);
    },
    search(query, searchOptions = {}) {
      return searchMoments(store, query, { limit: searchOptions.limit ?? 10 });
    },
    searchVideos(query, searchOptions = {}) {
      return rankVideos(store, query, { limit: searchOptions.limit ?? 10 });
    },
    async ask(question, askOptions = {}) {
      const started = performance.now();
      if (!question.trim()) throw new VideoRagError("ARGUMENT_INVALID", "the question is empty");
      const moments = searchMoments(store, question, { limit: askOptions.limit ?? 8 });
      const retrieved = performance.now();
      // Sentences are matched on stems; a stem is as informative as the rarest of the question's words sharing it.
      const words = analyzeText(question);
      const { frequencies, documentCount } = store.termDocumentFrequency(words);
      const stemFrequency = new Map<string, number>();
      for (const word of words) {
        const frequency = frequencies.get(word) ?? 0;
        const key = termKey(word);
        stemFrequency.set(key, Math.min(stemFrequency.get(key) ?? frequency, frequency));
      }
      const answer = extractiveAnswer({
        question,
        moments,
        // The whole clips around a moment: the sentence that answers may sit next to the one that matched best.
        sentencesOf: (moment) => store.getSegments(moment.videoId, moment.startSecond - 15, moment.endSecond + 15),
        analyze: (text) => analyzeText(text).map(termKey),
        termWeight: (key) => Math.log(1 + (documentCount + 1) / ((stemFrequency.get(key) ?? 0) + 1)),
        timesEstimated: isEstimated,
        maxSentences: askOptions.maxSentences,
      });
      const finished = performance.now();
      return {
        ...answer,
        profile: "lite (bm25 retrieval, extractive answer, no model)",
        timings: { retrievalMs: Math.round(retrieved - started), answerMs: Math.round(finished - retrieved), totalMs: Math.round(finished - started) },
      };
    },
    list: () => store.listVideos(),
    find,
    remove(reference) {
      const video = find(reference);
      store.removeVideo(video.id);
      timesEstimated.delete(video.id);
      return video;
    },
    async providers() {
      return (await providers()).summary;
    },
    close: () => store.close(),
  };
}
