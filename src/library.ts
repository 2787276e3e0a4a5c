// The library API, the spine of the product: open a library folder, ingest, search, ask, list, remove.
// The CLI, and later the server and the web UI, are thin layers over this.

import { mkdirSync, mkdtempSync, readdirSync, rmdirSync, rmSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, resolve } from "node:path";
import { z } from "zod";
import { answerQuestion, extractiveAnswer, StepTimes, readExtractiveInput, selectClipFrames, summarizeWithModel, type ExtractiveOptions, type FrameSource, type QuestionExtractionEvent } from "./answer/index.js";
import { buildChapters, libraryTopics, liteSummary, type LibraryTopic, type SummaryLength, type VideoSummary } from "./summary/index.js";
import type { VideoRagConfig } from "./config/index.js";
import { clipStages, derivedStageKeys } from "./ingest/clip-stages.js";
import { createBackgroundExtraction } from "./ingest/background-extraction.js";
import { extractionOrder } from "./ingest/extraction-order.js";
import { expandInputs, extractClips, ingestMediaFile, ingestTranscripts, statedLanguage, summarize } from "./ingest/index.js";
import type { ExtractionEvent, ExtractionReport, ExtractionSettings, GraphSettings, IngestOptions, IngestReport, IngestResult } from "./ingest/index.js";
import { chooseProviders, liteConfig, type ProviderChoice } from "./providers/registry.js";
import { entityNameKey, refreshEntityDescriptions } from "./graph/index.js";
import { analyzeText, questionLanguage, retrievalHits, retrieve, retrieveVideos, searchChapters, termKeyFor, type Retrieval, type ScoredVideo } from "./retrieval/index.js";
import { VideoRagError } from "./spec/index.js";
import type { Answer, Chapter, EntityMatch, QuestionIntent, ExtractionStatus, GraphEntity, GraphStats, Hit, PreliminaryAnswer, RetrievalMode, Segment, SegmentSource, Store, Video } from "./spec/index.js";
import { libraryLocation } from "./library-location.js";
import { videoSpeakers, type VideoSpeaker } from "./library-speakers.js";
import { isStore, openSqliteStore } from "./store/index.js";

const libraryOptionsSchema = z
  .object({
    /** The library folder, or a `postgres://` URL; default `VIDEORAG_LIBRARY` or `./.videorag`. */
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
    /** Where the library's videos, index and graph are kept; SQLite at `<library>/library.sqlite` when absent. */
    store: z.custom<Store>(isStore, { message: "expected a Store (an object with every Store method)" }).optional(),
    /** Progress of models downloaded on first use (when the configuration allows downloads). */
    onModelDownload: z
      .custom<(model: string, file: string, doneBytes: number, totalBytes: number | undefined) => void>((value) => typeof value === "function")
      .optional(),
  })
  .strict();

export type LibraryOptions = z.input<typeof libraryOptionsSchema>;
export type { VideoSpeaker };

export interface SearchOptions {
  limit?: number;
  /** Only these videos (ids, id prefixes, paths or titles); VIDEO_NOT_FOUND for one that is not in the library. */
  videos?: readonly string[];
  /** Only moments where this speaker (a name or a label) speaks; none when no video has such a speaker. */
  speaker?: string;
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
  /** Progress of question-time extraction (incremental libraries): each round's plan, then clip by clip. */
  onExtraction?: (event: QuestionExtractionEvent) => void;
  /** The moments the answer will be drawn from, as soon as retrieval has them (before a language model writes). */
  onMoments?: (moments: Hit[]) => void;
  /**
   * When the question needs extraction: the lite answer from what is indexed, at once, before extraction runs; the
   * final answer replaces it (and carries it as `preliminary`).
   */
  onPreliminary?: (answer: PreliminaryAnswer) => void;
  /** false: answer from what is indexed now, extract nothing. Default true. */
  extract?: boolean;
  /** Files or folders an ingest is working through now: their pending clips are left to it, not extracted here. */
  busyPaths?: readonly string[];
  /** Answer about these videos only (ids, id prefixes, paths or titles); VIDEO_NOT_FOUND for one not in the library. */
  videos?: readonly string[];
  /** The kind of answer to give (fact, overview, procedure, enumeration); read from the question when absent. */
  intent?: QuestionIntent;
  signal?: AbortSignal;
}

export interface SummarizeOptions {
  /** short: a few lines; medium (default): a paragraph; long: a page. */
  length?: SummaryLength;
  /** Receives the summary as a language model writes it. */
  onText?: (delta: string) => void;
  signal?: AbortSignal;
}

/** A video as its page shows it: the segments per source, the clips, and the deferred work per stage. */
export interface VideoDetail {
  video: Video;
  sources: Partial<Record<SegmentSource, number>>;
  clips: { index: number; startSecond: number; endSecond: number }[];
  stages: Record<string, { done: number; pending: number; failed: number }>;
  pendingClips: number;
  failedClips: number;
}

export interface ExtractLibraryOptions {
  /** Most clips to extract in this run; all pending clips when absent. */
  budgetClips?: number;
  /** Only this video (an id, id prefix, path or title). */
  video?: string;
  /** Run stages that failed before again (default true). */
  retryFailed?: boolean;
  onProgress?: (event: ExtractionEvent) => void;
  signal?: AbortSignal;
}

export interface Library {
  /** Absolute path of the library folder; for a Postgres library, this machine's folder for its scratch and caches. */
  readonly path: string;
  /** How the library is named: the folder, or the Postgres URL without its password. Queue jobs carry it. */
  readonly location: string;
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
  /** Deferred work per stage and video: clips extracted, pending, failed. */
  status(): Promise<ExtractionStatus>;
  /**
   * Runs pending deferred work now, clips near moments that questions asked about first; each batch is written back
   * as it finishes, so an interrupted run loses at most the batch in flight.
   */
  extract(options?: ExtractLibraryOptions): Promise<ExtractionReport>;
  list(): Promise<Video[]>;
  /** Resolves a full id, a unique id prefix, a path or a title to a video. */
  find(reference: string): Promise<Video>;
  /** A video's chapters: start, end, title, one-line summary, in order; none when it has no text. */
  chapters(reference: string): Promise<{ video: Video; chapters: Chapter[] }>;
  /** A video's summary, every sentence citing its moment: lite (extractive), or written by the language model. */
  summarize(reference: string, options?: SummarizeOptions): Promise<VideoSummary>;
  /** The library's topics: its videos clustered by what they say, each topic labelled and listing its videos. */
  topics(): Promise<LibraryTopic[]>;
  /** A video's speakers in order of first appearance: label, name, talk time and first words. */
  speakers(reference: string): Promise<{ video: Video; speakers: VideoSpeaker[] }>;
  /** Names a speaker of a video (`null` clears the name); no media is read again. */
  renameSpeaker(reference: string, label: string, name: string | null): Promise<VideoSpeaker[]>;
  /** Chapters about a query, best first: BM25 over their titles, lines and text, fused with their vectors when a text embedder is configured. */
  searchChapters(query: string, options?: Omit<SearchOptions, "mode">): Promise<{ video: Video; chapter: Chapter; score: number; retrievers: string[] }[]>;
  /** The indexed text (subtitles, speech, screen text, …) of a video overlapping the seconds given; the whole video by default. */
  transcript(reference: string, fromSecond?: number, toSecond?: number): Promise<{ video: Video; segments: Segment[] }>;
  /** Removes a video and everything it contributed, the graph entities only it mentioned included. */
  remove(reference: string): Promise<Video>;
  /** An entity of the knowledge graph by name, with its sources; undefined when there is none. */
  entity(name: string): Promise<GraphEntity | undefined>;
  /**
   * An entity by its stable key, with its first 100 sources and its strongest relations (the other end named);
   * undefined when there is none.
   */
  entityByKey(key: number): Promise<
    | {
        entity: GraphEntity;
        /** Where each of its first 100 sources is in its video, in seconds. */
        moments: { videoId: string; chunkIndex: number; startSecond: number; endSecond: number }[];
        relations: { source: string; target: string; description: string; strength: number }[];
        /** The videos its first 100 sources are in. */
        videos: Video[];
      }
    | undefined
  >;
  /** Entities whose names or descriptions match a query, best first. */
  searchEntities(query: string, limit?: number): Promise<EntityMatch[]>;
  /** The entities a video mentions, the most mentioned first. */
  videoEntities(reference: string, limit?: number): Promise<EntityMatch[]>;
  /** A video with where its text came from, its clips and its deferred work per stage. */
  videoDetail(reference: string): Promise<VideoDetail>;
  graphStats(): Promise<GraphStats>;
  /** "language-model" when a language model writes answers, else "lite". */
  profile(): Promise<"lite" | "language-model">;
  /** The providers each stage uses, one line each. */
  providers(): Promise<string[]>;
  /** Model calls, cache hits and retries per model since the library was opened. */
  modelStats(): Promise<Record<string, { calls: number; items: number; cacheHits: number; retries: number; failures: number }>>;
  /**
   * Describes the entities whose sources changed (with the language model, or the lite summary); how many. Ingest does
   * this itself unless told not to (`describeEntities: false`).
   */
  describeEntities(options?: { signal?: AbortSignal }): Promise<number>;
  /**
   * Resolves once the clips questions left to the background are extracted (the rest of a plan whose answer held, or
   * whose budget ran out); they are extracted while no question is.
   */
  settled(): Promise<void>;
  /** Stops background extraction (its clips stay pending) and closes the store, an injected one included. */
  close(): Promise<void>;
}

/** Frames chosen for the question; none when the source is gone or has no pictures (the text still answers). */
const momentFrames: FrameSource = async (path, startSecond, endSecond, options) => {
  try {
    return await selectClipFrames(path, startSecond, endSecond, options);
  } catch (error) {
    if (options.signal?.aborted) throw error;
    return [];
  }
};

/**
 * This opening's scratch folder, `tmp/<pid>/<random>`: one per opening, as a server's threads each open the library
 * in one process. Every program's scratch (audio, frames, a transcriber's pieces) lives below it. Those of processes
 * that are gone, killed or crashed, are removed here; `close` removes this one.
 */
function openScratch(libraryPath: string): { dir: string; remove(): void } {
  const root = join(libraryPath, "tmp");
  mkdirSync(root, { recursive: true });
  for (const entry of readdirSync(root)) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid || isAlive(pid)) continue;
    rmSync(join(root, entry), { recursive: true, force: true });
  }
  const mine = join(root, String(process.pid));
  mkdirSync(mine, { recursive: true });
  const dir = mkdtempSync(join(mine, "open-"));
  return {
    dir,
    remove() {
      rmSync(dir, { recursive: true, force: true });
      try {
        // The process's folder goes with its last opening; another thread's opening keeps it.
        rmdirSync(mine);
      } catch {
        // Not empty: another opening in this process still works there.
      }
    },
  };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
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
  const location = libraryLocation(settings.path ?? config.store?.url ?? config.library ?? defaultLibraryPath());
  const path = location.folder;
  try {
    mkdirSync(path, { recursive: true });
  } catch (error) {
    throw new VideoRagError("STORE_FAILED", `cannot create the library folder ${path}`, { cause: error, subject: path });
  }
  // Several processes (CLI, server, workers) may open one library: each keeps its own scratch.
  const scratch = openScratch(path);
  const tempDir = scratch.dir;
  const store: Store =
    settings.store ??
    (location.kind === "postgres"
      ? await (await import("./store/postgres/index.js")).openPostgresStore(location.url)
      : openSqliteStore(join(path, "library.sqlite")));
  // The rest of a question's plan once its answer held, extracted while no question is extracting, a lane a core.
  const background = createBackgroundExtraction(
    async (clips, stages, signal) => {
      const extraction = extractionSettings(await providers());
      return extractClips(store, extraction, clips, { stages, batchClips: 4, signal });
    },
    undefined,
    { lanes: Math.min(4, availableParallelism()) },
  );
  // How long question-time extraction steps took lately, so that a question starts only steps that end within its budget.
  const stepTimes = new StepTimes();
  let providerChoice: Promise<ProviderChoice> | undefined;
  const providers = (): Promise<ProviderChoice> =>
    (providerChoice ??= chooseProviders(config, {
      cachePath: join(path, "model-cache.sqlite"),
      ocr: settings.ocr,
      speech: settings.speech,
      onDownloadProgress: settings.onModelDownload,
    }).then(async (choice) => {
      // A changed model or setting marks pending only the deferred stages that depend on it.
      const extraction = extractionSettings(choice);
      // A stage switched off in this process (--no-speech, a model missing here) leaves its records as they are.
      for (const stage of clipStages(extraction)) if (stage.enabled) await store.refreshStageKey(stage.name, stage.settingsKey);
      const derived = derivedStageKeys(extraction);
      if (extraction.textEmbedder) await store.refreshStageKey("embeddings", derived.embeddings);
      await store.refreshStageKey("graph", derived.graph);
      await store.refreshStageKey("chapters", derived.chapters);
      await store.refreshStageKey("speakers", derived.speakers);
      return choice;
    }).catch((error: unknown) => {
      // Not kept: a store that was unreachable for a moment must not fail every later call of this library.
      providerChoice = undefined;
      throw error;
    }));

  const find = async (reference: string): Promise<Video> => {
    // An exact id is one lookup; a path, title or prefix reads the list.
    const byId = await store.getVideo(reference);
    if (byId) return byId;
    const videos = await store.listVideos();
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
  const isEstimated = async (videoId: string): Promise<boolean> => {
    if (!timesEstimated.has(videoId)) timesEstimated.set(videoId, (await store.getVideo(videoId))?.timesEstimated ?? false);
    return timesEstimated.get(videoId) ?? false;
  };

  /** The lite answer: sentences of the moments chosen for the question, each cited. */
  const extractive = async (question: string, moments: Hit[], options: ExtractiveOptions = {}): Promise<Omit<Answer, "profile" | "timings">> =>
    extractiveAnswer({ ...(await readExtractiveInput(store, question, moments, isEstimated, options)), maxSentences: options.maxSentences });

  const graphSettings = (choice: ProviderChoice): GraphSettings => ({
    model: choice.llm,
    embedder: choice.textEmbedder,
    chunkTokens: config.graph.chunkTokens,
    glean: config.graph.glean,
    mergeDistance: config.graph.mergeDistance,
  });
  const extractionSettings = (choice: ProviderChoice): ExtractionSettings => ({
    ocr: choice.ocr,
    transcriber: choice.transcriber,
    visual: settings.visual
      ? { detector: choice.detector, tagger: choice.tagger, imageText: choice.imageText, vision: choice.vision, everySeconds: config.visualEverySeconds }
      : undefined,
    textEmbedder: choice.textEmbedder,
    graph: graphSettings(choice),
    chapterModel: choice.llm,
    diarizer: choice.diarizer,
    frameGapSeconds: config.frameGapSeconds,
    tempDir,
  });
  /** Entities whose sources changed get one description again, synthesised by the language model when there is one. */
  const describeEntities = async (choice: ProviderChoice, signal?: AbortSignal): Promise<number> => {
    return (await refreshEntityDescriptions(store, { model: choice.llm, signal })).described;
  };
  const scopeIds = async (references: readonly string[] | undefined): Promise<string[] | undefined> =>
    references && references.length > 0 ? [...new Set(await Promise.all(references.map(async (reference) => (await find(reference)).id)))] : undefined;
  /** Chapters as stored; a video ingested before chapters existed gets them made now and written back. */
  const chaptersOf = async (video: Video): Promise<Chapter[]> => {
    const stored = await store.getChapters(video.id);
    if (stored.length > 0) return stored;
    const segments = await store.getSegments(video.id, 0, Number.POSITIVE_INFINITY);
    if (segments.length === 0) return [];
    const frames = await store.getFrames(video.id, 0, Number.POSITIVE_INFINITY);
    const chapters = buildChapters({ segments, durationSeconds: video.durationSeconds, frames, language: video.language });
    try {
      await store.writeBack({ videoId: video.id, documents: [], replaces: [], segments: [], vectors: [], chapters, stages: [] });
    } catch (error) {
      if (!(VideoRagError.isInstance(error) && error.code === "VIDEO_NOT_FOUND")) throw error;
    }
    return chapters;
  };
  const speakersOf = (video: Video): Promise<VideoSpeaker[]> => videoSpeakers(store, video);
  const liteSummaryOf = async (video: Video, length: SummaryLength): Promise<VideoSummary> =>
    liteSummary({ video, chapters: await chaptersOf(video), segments: await store.getSegments(video.id, 0, Number.POSITIVE_INFINITY), length });
  // Topics are read from every video's chapters: kept until the library changes in this process.
  let topicsCache: { key: string; topics: LibraryTopic[] } | undefined;
  const topics = async (): Promise<LibraryTopic[]> => {
    const videos = await store.listVideos();
    const key = videos.map((video) => `${video.id}@${video.ingestedAt}`).sort().join(",");
    if (topicsCache?.key === key) return topicsCache.topics;
    const chapters = await store.listChapters();
    const byVideo = new Map<string, Chapter[]>();
    for (const chapter of chapters) byVideo.set(chapter.videoId, [...(byVideo.get(chapter.videoId) ?? []), chapter]);
    // A video ingested before chapters existed gets them now (once: they are written back).
    for (const video of videos) if (!byVideo.has(video.id)) byVideo.set(video.id, await chaptersOf(video));
    const found = libraryTopics(videos.map((video) => ({ video, chapters: byVideo.get(video.id) ?? [] })));
    topicsCache = { key, topics: found };
    return found;
  };

  const retrieval = async (question: string, options: RetrieveOptions & { videoIds?: string[]; language?: string } = {}): Promise<Retrieval> => {
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
      language: options.language,
      ...(options.videoIds ? { videoIds: options.videoIds } : options.videos ? { videoIds: await scopeIds(options.videos) } : {}),
      signal: options.signal,
    });
  };

  return {
    path,
    location: location.name,
    async ingest(inputs, ingestOptions = {}) {
      const started = performance.now();
      const emit = ingestOptions.onProgress ?? (() => undefined);
      const choice = await providers();
      const context = {
        ...extractionSettings(choice),
        ...(ingestOptions.speakers ? { speakers: ingestOptions.speakers } : {}),
        store,
        vad: choice.vad,
        clipSeconds: config.clipSeconds,
        lightVisualSeconds: config.ingest.lightVisualSeconds,
      };
      const incremental = ingestOptions.incremental ?? config.ingest.incremental;
      const language = statedLanguage(ingestOptions.language);
      const files = await expandInputs(inputs, { confineTo: ingestOptions.confineTo });
      const results: IngestResult[] = [];
      for (const [position, file] of files.entries()) {
        ingestOptions.signal?.throwIfAborted();
        emit({ type: "video-start", path: file.path, position, total: files.length });
        const result: IngestResult = file.skip
          ? { path: file.path, status: "skipped", durationSeconds: 0, clipCount: 0, stageSeconds: {}, warnings: [], notes: [file.skip] }
          : await ingestMediaFile(context, file.path, emit, { incremental, confineTo: ingestOptions.confineTo, signal: ingestOptions.signal, ...(language ? { language } : {}) });
        results.push(result);
        emit({ type: "video-done", result });
      }
      if (ingestOptions.describeEntities !== false) await describeEntities(choice, ingestOptions.signal);
      // The batch's writes left the lexical indexes in many pieces, each read by every search.
      await store.compactTextIndexes();
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
      if (ingestOptions.describeEntities !== false) await describeEntities(choice, ingestOptions.signal);
      await store.compactTextIndexes();
      return summarize(results, (performance.now() - started) / 1000);
    },
    async search(query, searchOptions = {}) {
      const limit = searchOptions.limit ?? 10;
      if (!searchOptions.speaker) return retrievalHits(store, query, await retrieval(query, { ...searchOptions, limit: limit * 2 }), limit);
      // A speaker's moments: retrieval in the videos where they speak, then the moments they speak in.
      const labels = new Map<string, Set<string>>();
      for (const match of await store.findSpeakers(searchOptions.speaker)) labels.set(match.videoId, (labels.get(match.videoId) ?? new Set()).add(match.label));
      const scoped = searchOptions.videos ? ((await scopeIds(searchOptions.videos)) ?? []).filter((id) => labels.has(id)) : [...labels.keys()];
      if (scoped.length === 0) return [];
      const found = await retrieval(query, { ...searchOptions, videoIds: scoped, limit: limit * 4 });
      const hits = await retrievalHits(store, query, found, limit * 2);
      // A moment counts when the speaker says one of the query's words in it, not merely speaks somewhere in it.
      const { language } = found;
      const termKey = termKeyFor(language);
      const wanted = new Set(analyzeText(query, language).map(termKey));
      const says = (text: string): boolean => wanted.size === 0 || analyzeText(text, language).some((word) => wanted.has(termKey(word)));
      const ranges = await store.getSegmentRanges(hits);
      return hits
        .filter((hit, at) => (ranges[at] ?? []).some((segment) => segment.speaker !== undefined && labels.get(hit.videoId)?.has(segment.speaker) && says(segment.text)))
        .slice(0, limit);
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
      const choice = await providers();
      const extraction = extractionSettings(choice);
      return answerQuestion(question, {
        store,
        llm: choice.llm,
        textEmbedder: choice.textEmbedder,
        imageText: choice.imageText,
        retrieve: (text, options) => retrieval(text, options),
        hits: (text, found, limit) => retrievalHits(store, text, found, limit),
        extractive,
        timesEstimated: isEstimated,
        frames: momentFrames,
        redescribeFrames: config.retrieval.redescribeFrames,
        videos: () => store.listVideos(),
        summary: async (videoId, length) => {
          const video = await find(videoId);
          return liteSummaryOf(video, length);
        },
        topics,
        extraction: {
          ...config.extraction,
          stages: clipStages(extraction).filter((stage) => stage.enabled).map((stage) => stage.name),
          hold: (work) => background.hold(work),
          extract: (clips, stages, options) =>
            // A step's clips side by side, whichever videos they are of.
            background.foreground(() => extractClips(store, extraction, clips, { stages: [...stages, ...followingStages], batchClips: 4, videosAtOnce: clips.length, ...options })),
          later: (clips, stages) => background.add(clips, [...stages, ...followingStages]),
          stepTimes,
        },
      }, { ...askOptions, videoIds: await scopeIds(askOptions.videos) });
    },
    async chapters(reference) {
      const video = await find(reference);
      return { video, chapters: await chaptersOf(video) };
    },
    async summarize(reference, summarizeOptions = {}) {
      const video = await find(reference);
      const length = summarizeOptions.length ?? "medium";
      const llm = (await providers()).llm;
      if (!llm) {
        const summary = await liteSummaryOf(video, length);
        summarizeOptions.onText?.(summary.text);
        return summary;
      }
      const chapters = await chaptersOf(video);
      const segments = await store.getSegments(video.id, 0, Number.POSITIVE_INFINITY);
      if (segments.length === 0) return liteSummary({ video, chapters, segments, length });
      return summarizeWithModel({ video, chapters, segments, length, model: llm, onText: summarizeOptions.onText, signal: summarizeOptions.signal });
    },
    topics,
    async speakers(reference) {
      const video = await find(reference);
      return { video, speakers: await speakersOf(video) };
    },
    async renameSpeaker(reference, label, name) {
      const video = await find(reference);
      await store.setSpeakerName(video.id, label, name);
      return speakersOf(video);
    },
    async searchChapters(query, searchOptions = {}) {
      const choice = await providers();
      const matches = await searchChapters(store, query, {
        limit: searchOptions.limit ?? 10,
        textEmbedder: choice.textEmbedder,
        signal: searchOptions.signal,
        ...(searchOptions.videos ? { videoIds: await scopeIds(searchOptions.videos) } : {}),
      });
      const found: { video: Video; chapter: Chapter; score: number; retrievers: string[] }[] = [];
      for (const match of matches) {
        const video = await store.getVideo(match.videoId);
        const chapter = video ? (await store.getChapters(video.id)).find((entry) => entry.index === match.chapterIndex) : undefined;
        if (video && chapter) found.push({ video, chapter, score: match.score, retrievers: match.retrievers });
      }
      return found;
    },
    status: () => store.extractionStatus(),
    async extract(extractOptions = {}) {
      const choice = await providers();
      const only = extractOptions.video ? (await find(extractOptions.video)).id : undefined;
      const targets = await extractionOrder(store, await store.clipStages({ videoId: only, statuses: extractOptions.retryFailed === false ? ["pending"] : ["pending", "failed"] }));
      const chosen = extractOptions.budgetClips === undefined ? targets : targets.slice(0, extractOptions.budgetClips);
      const report = await extractClips(store, extractionSettings(choice), chosen, {
        batchClips: 4,
        retryFailed: extractOptions.retryFailed !== false,
        onProgress: extractOptions.onProgress,
        signal: extractOptions.signal,
      });
      await describeEntities(choice, extractOptions.signal);
      return report;
    },
    list: () => store.listVideos(),
    find,
    async transcript(reference, fromSecond, toSecond) {
      const video = await find(reference);
      return { video, segments: await store.getSegments(video.id, fromSecond ?? 0, toSecond ?? video.durationSeconds + 1) };
    },
    describeEntities: async (describeOptions = {}) => describeEntities(await providers(), describeOptions.signal),
    async remove(reference) {
      const video = await find(reference);
      await store.removeVideo(video.id);
      timesEstimated.delete(video.id);
      await describeEntities(await providers());
      return video;
    },
    entity: (name) => store.getEntity(entityNameKey(name)),
    async entityByKey(key) {
      const entity = await store.getEntity(key, { sourceLimit: 100 });
      if (!entity) return undefined;
      const names = new Map<number, string>([[entity.key, entity.name]]);
      const nameOf = async (other: number): Promise<string> => {
        if (!names.has(other)) names.set(other, (await store.getEntity(other, { sourceLimit: 0 }))?.name ?? String(other));
        return names.get(other) ?? String(other);
      };
      const relations: { source: string; target: string; description: string; strength: number }[] = [];
      for (const relation of await store.relationsOf(key, 20, { sourceLimit: 0 })) {
        relations.push({
          source: await nameOf(relation.sourceKey),
          target: await nameOf(relation.targetKey),
          description: relation.description,
          strength: relation.strength,
        });
      }
      const read = await store.getClips(
        entity.sources.flatMap((source) => [{ videoId: source.videoId, clipIndex: source.clipStart }, { videoId: source.videoId, clipIndex: source.clipEnd }]),
      );
      const clips = new Map(read.map((clip) => [`${clip.videoId}#${clip.index}`, clip]));
      const moments = entity.sources.flatMap((source) => {
        const first = clips.get(`${source.videoId}#${source.clipStart}`);
        const last = clips.get(`${source.videoId}#${source.clipEnd}`);
        return first && last ? [{ videoId: source.videoId, chunkIndex: source.chunkIndex, startSecond: first.startSecond, endSecond: last.endSecond }] : [];
      });
      const videos = await store.getVideos([...new Set(entity.sources.map((source) => source.videoId))]);
      return { entity, moments, relations, videos: videos.filter((video) => video !== undefined) };
    },
    searchEntities: async (query, limit = 20) =>
      store.searchEntities({ terms: analyzeText(query, await questionLanguage(query)).map((text) => ({ text, weight: 1 })), limit }),
    videoEntities: async (reference, limit = 50) => store.videoEntities((await find(reference)).id, limit),
    async videoDetail(reference) {
      const video = await find(reference);
      const sources: Partial<Record<SegmentSource, number>> = {};
      for (const segment of await store.getSegments(video.id, 0, video.durationSeconds + 1)) sources[segment.source] = (sources[segment.source] ?? 0) + 1;
      const keys = Array.from({ length: video.clipCount }, (_, clipIndex) => ({ videoId: video.id, clipIndex }));
      const clips = (await store.getClips(keys)).map(({ index, startSecond, endSecond }) => ({ index, startSecond, endSecond }));
      const stages: VideoDetail["stages"] = {};
      const open = new Set<number>();
      const failed = new Set<number>();
      for (const state of await store.clipStages({ videoId: video.id })) {
        const counts = (stages[state.stage] ??= { done: 0, pending: 0, failed: 0 });
        counts[state.status] += 1;
        if (state.status === "pending") open.add(state.clipIndex);
        if (state.status === "failed") failed.add(state.clipIndex);
      }
      return { video, sources, clips, stages, pendingClips: open.size, failedClips: failed.size };
    },
    graphStats: () => store.graphStats(),
    async providers() {
      return (await providers()).summary;
    },
    async profile() {
      return (await providers()).llm ? "language-model" : "lite";
    },
    async modelStats() {
      return (await providers()).runtime.stats();
    },
    settled: () => background.idle(),
    async close() {
      await background.close();
      await store.close();
      scratch.remove();
    },
  };
}

/** The stages that follow whatever text question-time extraction writes. */
const followingStages = ["embeddings", "graph", "chapters", "speakers"] as const;
