// The library API, the spine of the product: open a library folder, ingest, search, ask, list, remove.
// The CLI, and later the server and the web UI, are thin layers over this.

import { mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import { buildEvidence, extractiveAnswer, redescribeClip, selectClipFrames, streamLlmAnswer } from "./answer/index.js";
import type { VideoRagConfig } from "./config/index.js";
import { expandInputs, ingestMediaFile, ingestTranscripts, summarize } from "./ingest/index.js";
import type { GraphSettings, IngestOptions, IngestReport, IngestResult } from "./ingest/index.js";
import { chooseProviders, liteConfig, type ProviderChoice } from "./providers/registry.js";
import { entityNameKey, refreshEntityDescriptions } from "./graph/index.js";
import { analyzeText, retrievalHits, retrieve, retrieveVideos, termKey, type Retrieval, type ScoredVideo } from "./retrieval/index.js";
import { VideoRagError, toVideoRagError } from "./spec/index.js";
import type { Answer, GraphEntity, GraphStats, Hit, ImageInput, ImageTextEncoder, RetrievalMode, Segment, Store, Video } from "./spec/index.js";
import { openSqliteStore } from "./store/index.js";

const libraryOptionsSchema = z
  .object({
    /** The library folder; default `VIDEORAG_LIBRARY` or `./.videorag`. */
    path: z.string().min(1).optional(),
    /** Which model runs each stage (see loadConfig); the lite profile when absent. */
    config: z.custom<VideoRagConfig>((value) => typeof value === "object" && value !== null).optional(),
    /** Length of the clips that retrieval ranks; overrides the configuration. */
    clipSeconds: z.number().positive().max(3600).optional(),
    /** Longest stretch of video without a sampled frame for screen text; overrides the configuration. */
    frameGapSeconds: z.number().positive().max(600).optional(),
    /** Read on-screen text and bitmap subtitles with OCR. */
    ocr: z.boolean().default(true),
    /** Recognise speech in videos without subtitles. */
    speech: z.boolean().default(true),
    /** Run the detector, tagger, image-text encoder and captioner over frames. */
    visual: z.boolean().default(true),
    /** The folder holding local models; overrides the configuration. */
    modelsDir: z.string().min(1).optional(),
    /** Progress of models downloaded on first use (when the configuration allows downloads). */
    onModelDownload: z
      .custom<(model: string, file: string, doneBytes: number, totalBytes: number | undefined) => void>((value) => typeof value === "function")
      .optional(),
  })
  .strict();

export type LibraryOptions = z.input<typeof libraryOptionsSchema>;

export interface SearchOptions {
  limit?: number;
  /** How to retrieve; the configuration's `retrieval.mode` (default hybrid) when absent. */
  mode?: RetrievalMode;
  signal?: AbortSignal;
}

export interface RetrieveOptions extends SearchOptions {
  /** Leave channels out of `hybrid`, for ablations. */
  without?: readonly ("graph" | "visual")[];
}

export interface AskOptions {
  /** How many moments to draw the answer from. */
  limit?: number;
  maxSentences?: number;
  /** Receives the answer's text as a language model writes it, citations already resolved. */
  onText?: (delta: string) => void;
  /** Give a vision-language model the frames of the best moments (default true when it accepts images). */
  frames?: boolean;
  /** How to retrieve; the configuration's `retrieval.mode` (default hybrid) when absent. */
  mode?: RetrievalMode;
  signal?: AbortSignal;
}

export interface Library {
  /** Absolute path of the library folder. */
  readonly path: string;
  /** Ingests files, folders and simple globs; resumable; one result per file, never throws for bad input. */
  ingest(inputs: string[], options?: IngestOptions): Promise<IngestReport>;
  /** Ingests a folder of `<id>.txt|.srt|.vtt` transcripts as videos known only by their transcript. */
  ingestTranscripts(directory: string, options?: IngestOptions): Promise<IngestReport>;
  /** Ranked moments (clip hits merged) for a query, from every retriever the configured models allow. */
  search(query: string, options?: SearchOptions): Promise<Hit[]>;
  /** Ranked whole videos for a query: text and visual evidence fused (the `video` mode). */
  searchVideos(query: string, options?: Omit<SearchOptions, "mode">): Promise<ScoredVideo[]>;
  /** The retrieval behind search and ask: clips with provenance, the videos they rank, the rewrites and the model time. */
  retrieve(question: string, options?: RetrieveOptions): Promise<Retrieval>;
  /** An answer with citations to the moments it came from. */
  ask(question: string, options?: AskOptions): Promise<Answer>;
  list(): Video[];
  /** Resolves a full id, a unique id prefix, a path or a title to a video. */
  find(reference: string): Video;
  /** Removes a video and everything it contributed, the graph entities only it mentioned included. */
  remove(reference: string): Promise<Video>;
  /** An entity of the knowledge graph by name, with its sources; undefined when there is none. */
  entity(name: string): GraphEntity | undefined;
  graphStats(): GraphStats;
  /** The providers each stage uses, one line each. */
  providers(): Promise<string[]>;
  /** Model calls, cache hits and retries per model since the library was opened. */
  modelStats(): Promise<Record<string, { calls: number; items: number; cacheHits: number; retries: number; failures: number }>>;
  close(): void;
}

/** The order retrievers are named in a profile. */
const retrieverOrder = ["video", "bm25", "dense", "graph", "visual"];

/** Frames given per moment when a vision-language model answers; the best moments first until the model's limit. */
const framesPerMoment = 4;
/** Moments a vision-language model re-describes for the question in hybrid mode. */
const redescribedMoments = 3;

/** Attaches frames of the best moments to their first evidence item: the "video as context" answer. */
async function attachFrames(
  evidence: { path: string; videoId: string; startSecond: number; endSecond: number; images?: ImageInput[] }[],
  options: { maxImages: number; question: string; imageText?: ImageTextEncoder; signal?: AbortSignal },
): Promise<void> {
  let budget = options.maxImages;
  const done = new Set<string>();
  for (const item of evidence) {
    const key = `${item.videoId}@${item.startSecond}`;
    if (budget <= 0 || done.has(key)) continue;
    done.add(key);
    const images = await momentFrames(item.path, item.startSecond, item.endSecond, { ...options, count: Math.min(framesPerMoment, budget) });
    if (images.length > 0) {
      item.images = images;
      budget -= images.length;
    }
  }
}

/** Frames chosen for the question; none when the source is gone or has no pictures (the text still answers). */
async function momentFrames(
  path: string,
  startSecond: number,
  endSecond: number,
  options: { count: number; question: string; imageText?: ImageTextEncoder; signal?: AbortSignal },
): Promise<ImageInput[]> {
  try {
    return await selectClipFrames(path, startSecond, endSecond, options);
  } catch (error) {
    if (options.signal?.aborted) throw error;
    return [];
  }
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
  const config: VideoRagConfig = {
    ...(settings.config ?? liteConfig()),
    ...(settings.clipSeconds ? { clipSeconds: settings.clipSeconds } : {}),
    ...(settings.frameGapSeconds ? { frameGapSeconds: settings.frameGapSeconds } : {}),
    ...(settings.modelsDir ? { modelsDir: settings.modelsDir } : {}),
  };
  const path = resolve(settings.path ?? config.library ?? defaultLibraryPath());
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
    (providerChoice ??= chooseProviders(config, {
      cachePath: join(path, "model-cache.sqlite"),
      ocr: settings.ocr,
      speech: settings.speech,
      onDownloadProgress: settings.onModelDownload,
    }));

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

  /** The lite answer: the sentences of the moments that carry the question's rarest words, each cited. */
  const extractive = (question: string, moments: Hit[], maxSentences?: number): Omit<Answer, "profile" | "timings"> => {
    // Sentences are matched on stems; a stem is as informative as the rarest of the question's words sharing it.
    const words = analyzeText(question);
    const { frequencies, documentCount } = store.termDocumentFrequency(words);
    const stemFrequency = new Map<string, number>();
    for (const word of words) {
      const frequency = frequencies.get(word) ?? 0;
      const key = termKey(word);
      stemFrequency.set(key, Math.min(stemFrequency.get(key) ?? frequency, frequency));
    }
    return extractiveAnswer({
      question,
      moments,
      // The whole clips around a moment: the sentence that answers may sit next to the one that matched best.
      sentencesOf: (moment) => store.getSegments(moment.videoId, moment.startSecond - 15, moment.endSecond + 15),
      analyze: (text) => analyzeText(text).map(termKey),
      termWeight: (key) => Math.log(1 + (documentCount + 1) / ((stemFrequency.get(key) ?? 0) + 1)),
      timesEstimated: isEstimated,
      maxSentences,
    });
  };

  const graphSettings = (choice: ProviderChoice): GraphSettings => ({
    model: choice.llm,
    embedder: choice.textEmbedder,
    chunkTokens: config.graph.chunkTokens,
    glean: config.graph.glean,
    mergeDistance: config.graph.mergeDistance,
  });
  /** Entities whose sources changed get one description again, synthesised by the language model when there is one. */
  const describeEntities = async (choice: ProviderChoice, signal?: AbortSignal): Promise<void> => {
    await refreshEntityDescriptions(store, { model: choice.llm, signal });
  };
  const retrieval = async (question: string, options: RetrieveOptions = {}): Promise<Retrieval> => {
    const choice = await providers();
    return retrieve(store, question, {
      mode: options.mode ?? config.retrieval.mode,
      limit: options.limit ?? 20,
      llm: choice.llm,
      textEmbedder: choice.textEmbedder,
      imageText: choice.imageText,
      alpha: config.retrieval.alpha,
      filter: config.retrieval.filter,
      graphWeight: config.retrieval.graphWeight,
      ...(options.without ? { without: options.without } : {}),
      signal: options.signal,
    });
  };

  return {
    path,
    async ingest(inputs, ingestOptions = {}) {
      const started = performance.now();
      const emit = ingestOptions.onProgress ?? (() => undefined);
      const choice = await providers();
      const context = {
        store,
        ocr: choice.ocr,
        transcriber: choice.transcriber,
        clipSeconds: config.clipSeconds,
        frameGapSeconds: config.frameGapSeconds,
        tempDir,
        visual: settings.visual
          ? { detector: choice.detector, tagger: choice.tagger, imageText: choice.imageText, vision: choice.vision, everySeconds: config.visualEverySeconds }
          : undefined,
        textEmbedder: choice.textEmbedder,
        graph: graphSettings(choice),
      };
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
      await describeEntities(choice, ingestOptions.signal);
      const report = summarize(results, (performance.now() - started) / 1000);
      report.warnings.unshift(...choice.warnings);
      report.providers = choice.summary;
      return report;
    },
    async ingestTranscripts(directory, ingestOptions = {}) {
      const started = performance.now();
      const choice = await providers();
      const results = await ingestTranscripts(store, resolve(directory), {
        clipSeconds: config.clipSeconds,
        graph: graphSettings(choice),
        onProgress: ingestOptions.onProgress,
        signal: ingestOptions.signal,
      });
      await describeEntities(choice, ingestOptions.signal);
      return summarize(results, (performance.now() - started) / 1000);
    },
    async search(query, searchOptions = {}) {
      const limit = searchOptions.limit ?? 10;
      return retrievalHits(store, query, await retrieval(query, { ...searchOptions, limit: limit * 2 }), limit);
    },
    async searchVideos(query, searchOptions = {}) {
      const choice = await providers();
      return retrieveVideos(store, query, {
        limit: searchOptions.limit ?? 10,
        alpha: config.retrieval.alpha,
        imageText: choice.imageText,
        signal: searchOptions.signal,
      });
    },
    retrieve: retrieval,
    async ask(question, askOptions = {}) {
      const started = performance.now();
      if (!question.trim()) throw new VideoRagError("ARGUMENT_INVALID", "the question is empty");
      const choice = await providers();
      const { llm, textEmbedder, imageText } = choice;
      const limit = askOptions.limit ?? 8;
      const found = await retrieval(question, { mode: askOptions.mode, limit: limit * 2, signal: askOptions.signal });
      const moments = retrievalHits(store, question, found, limit);
      const used = new Set(retrieverOrder.filter((retriever) => moments.some((moment) => moment.retriever.split("+").includes(retriever))));
      const models = [used.has("dense") && textEmbedder ? `dense: ${textEmbedder.id}` : "", used.has("visual") && imageText ? `visual: ${imageText.id}` : ""].filter(Boolean);
      const retrievers = `${found.mode} mode: ${[...used].join("+") || "nothing found"}${models.length > 0 ? ` (${models.join(", ")})` : ""}`;
      const answered = { mode: found.mode, moments };
      const retrieved = performance.now();
      const timings = (finished: number): Record<string, number> => ({
        retrievalMs: Math.round(retrieved - started),
        answerMs: Math.round(finished - retrieved),
        totalMs: Math.round(finished - started),
      });
      const warnings: Answer["warnings"] = [];
      if (llm) {
        // Hybrid with a vision-language model: the best moments are described again for this question, from frames
        // chosen for it, and that description leads their evidence; other modes hand the frames to the answer itself.
        const redescribe = found.mode === "hybrid" && llm.capabilities.acceptsImages && askOptions.frames !== false;
        const withFrames = llm.capabilities.acceptsImages && (askOptions.frames === true || (askOptions.frames !== false && !redescribe));
        let streamed = false;
        try {
          const descriptions = new Map<Hit, Segment>();
          if (redescribe) {
            for (const moment of moments.slice(0, redescribedMoments)) {
              const count = Math.min(config.retrieval.redescribeFrames, llm.capabilities.maxImages);
              const images = await momentFrames(moment.path, moment.startSecond, moment.endSecond, { count, question, imageText, signal: askOptions.signal });
              if (images.length === 0) continue;
              const transcript = store.getSegments(moment.videoId, moment.startSecond, moment.endSecond).filter((segment) => segment.source !== "visual" && segment.source !== "caption").map((segment) => segment.text).join(" ");
              const text = await redescribeClip(llm, { question, keywords: found.keywords ?? [], images, transcript, signal: askOptions.signal });
              if (text) descriptions.set(moment, { startSecond: moment.startSecond, endSecond: moment.endSecond, text, source: "caption" });
            }
          }
          const evidence = buildEvidence(moments, {
            segmentsOf: (moment) => {
              const description = descriptions.get(moment);
              return [...(description ? [description] : []), ...store.getSegments(moment.videoId, moment.startSecond, moment.endSecond)];
            },
            timesEstimated: isEstimated,
          });
          if (withFrames) await attachFrames(evidence, { maxImages: llm.capabilities.maxImages, question, imageText, signal: askOptions.signal });
          const onText = askOptions.onText;
          const answer = await streamLlmAnswer({
            question,
            evidence,
            model: llm,
            signal: askOptions.signal,
            onText: (delta) => {
              streamed = true;
              onText?.(delta);
            },
          });
          return {
            ...answered,
            text: answer.text,
            citations: answer.citations,
            warnings: [...found.warnings, ...answer.warnings],
            profile: `${llm.id} answer${withFrames ? " with frames" : ""}${descriptions.size > 0 ? `, ${descriptions.size} moments re-described from frames` : ""} over ${retrievers} retrieval`,
            timings: timings(performance.now()),
          };
        } catch (error) {
          const failure = toVideoRagError(error);
          // Half an answer already on the user's screen cannot be taken back; otherwise the extractive answer stands in.
          if (streamed || failure.code === "INTERRUPTED" || askOptions.signal?.aborted) throw failure;
          warnings.push({ type: "fallback", feature: "answers", detail: `${llm.id} failed (${failure.code}: ${failure.message}); extractive answer instead` });
        }
      }
      const answer = extractive(question, moments, askOptions.maxSentences);
      askOptions.onText?.(answer.text);
      return {
        ...answered,
        ...answer,
        warnings: [...found.warnings, ...warnings, ...answer.warnings],
        profile: `lite (${retrievers} retrieval, extractive answer, no language model)`,
        timings: timings(performance.now()),
      };
    },
    list: () => store.listVideos(),
    find,
    async remove(reference) {
      const video = find(reference);
      store.removeVideo(video.id);
      timesEstimated.delete(video.id);
      await describeEntities(await providers());
      return video;
    },
    entity: (name) => store.getEntity(entityNameKey(name)),
    graphStats: () => store.graphStats(),
    async providers() {
      return (await providers()).summary;
    },
    async modelStats() {
      return (await providers()).runtime.stats();
    },
    close: () => store.close(),
  };
}
