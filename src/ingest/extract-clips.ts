// Runs deferred stages on some clips and writes their output back, one transaction per batch of clips of one video:
// segments, the clip documents re-indexed for BM25, vectors, the video's graph and the stage states. Full ingest,
// question-time extraction and `videorag extract` all come through here, so there is one pipeline, not two.

import { buildVideoGraph } from "../graph/index.js";
import { buildChapters, chapterVectors, titleChapters } from "../summary/index.js";
import { labelSpeakers } from "./speaker-stage.js";
import { mapConcurrent } from "../providers/runtime/index.js";
import { VideoRagError, toVideoRagError } from "../spec/index.js";
import type { Chapter, ClipDocument, ClipStageRecord, Segment, SegmentSource, SpeakerVoices, Store, VectorRecord, Video, Warning } from "../spec/index.js";
import { buildClipDocuments, ownLanguageDocuments } from "./clip-documents.js";
import { clipStages, derivedStageKeys, derivedStages, type ClipOutput, type ClipStage, type DeferredStage, type ExtractionSettings } from "./clip-stages.js";
import { reportingLanguage, spokenLanguage, stageLanguage, withLanguage, type SpokenLanguage } from "./extraction-language.js";
import { graphNote } from "./graph-stage.js";
import { textSpace } from "../spec/index.js";

/** A clip to extract. */
export interface ClipKey {
  videoId: string;
  clipIndex: number;
}

/** Progress of extraction, for a face to show. */
export type ExtractionEvent =
  | { type: "extract-start"; clips: number }
  | { type: "extract-stage"; videoId: string; path: string; stage: DeferredStage; clipIndexes: number[] }
  | { type: "extract-clip"; videoId: string; path: string; clipIndex: number; stage: DeferredStage; done: number; total: number }
  | { type: "extract-batch"; videoId: string; path: string; clipIndexes: number[]; seconds: number }
  | { type: "extract-done"; clips: number; seconds: number };

export interface ExtractOptions {
  /** The stages that write segments to run (default all); embeddings and the graph follow any text they change. */
  stages?: readonly DeferredStage[];
  /** Stop starting batches after this many seconds (the batch running finishes). */
  budgetSeconds?: number;
  /** Clips written back per transaction. Default 4. */
  batchClips?: number;
  /**
   * Videos whose clips are extracted side by side (each video's batches in order). Default 1. A question's step of two
   * clips of two videos takes one clip's time at 2, not two.
   */
  videosAtOnce?: number;
  /** Run stages that failed on a clip before again. Default false. */
  retryFailed?: boolean;
  /**
   * Find who speaks in the speech recognised so far, before all of a video's speech is in (a question about a person
   * needs it now). Default false: the speakers stage waits for the whole video's speech.
   */
  speakersNow?: boolean;
  onProgress?: (event: ExtractionEvent) => void;
  signal?: AbortSignal;
}

export interface ExtractionReport {
  /** Clips on which at least one stage ran, with the stages. */
  clips: { videoId: string; clipIndex: number; stages: DeferredStage[] }[];
  failed: { videoId: string; clipIndex: number; stage: DeferredStage; error: string }[];
  /** Clips not reached because the time budget ran out. */
  leftForLater: number;
  seconds: number;
  warnings: Warning[];
  /** Seconds of audio transcribed and frames read, for the summary. */
  work: Partial<Record<DeferredStage, number>>;
  /** Per video, what its graph holds after the last batch, in the words of the ingest summary. */
  graphNotes: Record<string, string>;
  /** Per video that had no language, the one found from its speech, and how. */
  languages: Record<string, SpokenLanguage>;
}

/** Runs the deferred stages still pending on `targets` (in that order), writing back batch by batch. */
export async function extractClips(store: Store, settings: ExtractionSettings, targets: ClipKey[], options: ExtractOptions = {}): Promise<ExtractionReport> {
  const started = performance.now();
  const elapsed = (): number => (performance.now() - started) / 1000;
  const report: ExtractionReport = { clips: [], failed: [], leftForLater: 0, seconds: 0, warnings: [], work: {}, graphNotes: {}, languages: {} };
  const byVideo = new Map<string, number[]>();
  for (const target of targets) {
    const list = byVideo.get(target.videoId) ?? [];
    if (!list.includes(target.clipIndex)) list.push(target.clipIndex);
    byVideo.set(target.videoId, list);
  }
  options.onProgress?.({ type: "extract-start", clips: [...byVideo.values()].reduce((sum, list) => sum + list.length, 0) });
  const batchClips = Math.max(1, options.batchClips ?? 4);
  // Each video's batches one after another (a batch rebuilds what is derived from the whole video); videos side by side.
  await mapConcurrent(
    [...byVideo],
    Math.max(1, options.videosAtOnce ?? 1),
    async ([videoId, clipIndexes]) => {
      const video = await store.getVideo(videoId);
      if (!video) return;
      for (let at = 0; at < clipIndexes.length; at += batchClips) {
        options.signal?.throwIfAborted();
        if (options.budgetSeconds !== undefined && elapsed() >= options.budgetSeconds) {
          report.leftForLater += clipIndexes.length - at;
          return;
        }
        await extractBatch(store, settings, video, clipIndexes.slice(at, at + batchClips), options, report);
      }
    },
    options.signal,
  );
  report.seconds = elapsed();
  options.onProgress?.({ type: "extract-done", clips: report.clips.length, seconds: report.seconds });
  return report;
}

/** The stage states of one video, by clip and stage. */
async function stageTable(store: Store, videoId: string): Promise<Map<number, Map<string, ClipStageRecord>>> {
  const table = new Map<number, Map<string, ClipStageRecord>>();
  for (const record of await store.clipStages({ videoId })) {
    const row = table.get(record.clipIndex) ?? new Map<string, ClipStageRecord>();
    row.set(record.stage, record);
    table.set(record.clipIndex, row);
  }
  return table;
}

function owned(segment: Segment, clipIndex: number, sources: readonly SegmentSource[]): boolean {
  return segment.clipIndex === clipIndex && sources.includes(segment.source);
}

async function extractBatch(
  store: Store,
  settings: ExtractionSettings,
  video: Video,
  clipIndexes: number[],
  options: ExtractOptions,
  report: ExtractionReport,
): Promise<void> {
  const started = performance.now();
  const stages = clipStages(settings);
  const derivedKeys = derivedStageKeys(settings);
  const wanted = new Set<DeferredStage>(options.stages ?? ["speech", "screen-text", "visual", "embeddings", "graph", "chapters", "speakers"]);
  const table = await stageTable(store, video.id);
  const isOpen = (clipIndex: number, stage: string, key: string): boolean => {
    const record = table.get(clipIndex)?.get(stage);
    if (!record) return false;
    if (record.status === "failed") return options.retryFailed === true;
    return record.status === "pending" || record.key !== key;
  };
  const spans = await store.getClips(Array.from({ length: video.clipCount }, (_, index) => ({ videoId: video.id, clipIndex: index })));
  const spanOf = new Map(spans.map((span) => [span.index, span]));
  const planned = clipIndexes.filter((index) => spanOf.has(index));
  const runs = new Map<ClipStage, number[]>(
    // A stage without its model in this process is left as recorded, for a process that has it.
    stages.map((stage) => [stage, wanted.has(stage.name) && stage.enabled ? planned.filter((index) => isOpen(index, stage.name, stage.settingsKey)) : []]),
  );
  const derivedOpen = (index: number): boolean =>
    (["embeddings", "graph", "chapters", "speakers"] as const).some((stage) => wanted.has(stage) && isOpen(index, stage, derivedKeys[stage]));
  if ([...runs.values()].every((list) => list.length === 0) && !planned.some(derivedOpen)) return;

  let segments = await store.getSegments(video.id, 0, Number.POSITIVE_INFINITY);
  const signals = new Map((await store.clipSignals(video.id, planned)).map((signal) => [signal.clipIndex, signal]));
  const records: ClipStageRecord[] = [];
  const replaces: { clipIndex: number; sources: SegmentSource[] }[] = [];
  const added: Segment[] = [];
  const vectors: VectorRecord[] = [];
  const replaceFrameVectors: number[] = [];
  const ran = new Map<number, Set<DeferredStage>>();
  const noteRun = (clipIndex: number, stage: DeferredStage): void => {
    const set = ran.get(clipIndex) ?? new Set<DeferredStage>();
    set.add(stage);
    ran.set(clipIndex, set);
  };
  const path = video.path;
  // The language the transcriber heard in each clip, and the video's own where it had none (extraction-language.ts).
  const heard = new Map<number, string>();
  let found: SpokenLanguage | undefined;
  const runner = (stage: ClipStage, clipIndex: number): ClipStage => {
    const transcriber = settings.transcriber;
    if (stage.name !== "speech" || !transcriber) return stage;
    const hearing = reportingLanguage(transcriber, (language) => heard.set(clipIndex, language));
    return clipStages({ ...settings, transcriber: hearing }).find((own) => own.name === "speech") ?? stage;
  };

  for (const stage of stages) {
    const clips = runs.get(stage) ?? [];
    if (clips.length === 0) continue;
    options.onProgress?.({ type: "extract-stage", videoId: video.id, path, stage: stage.name, clipIndexes: clips });
    let done = 0;
    const outputs = await mapConcurrent(
      clips,
      stage.concurrency,
      async (clipIndex): Promise<ClipOutput | { error: string }> => {
        const clip = spanOf.get(clipIndex) as ClipDocument;
        try {
          return await runner(stage, clipIndex).run(
            {
              video,
              clip,
              signals: signals.get(clipIndex) ?? { clipIndex, screenChanges: 0 },
              segments: segments.filter((segment) => segment.startSecond < clip.endSecond && segment.endSecond > clip.startSecond),
              frames: stage.name === "screen-text" ? await store.getFrames(video.id, clip.startSecond, clip.endSecond) : [],
            },
            options.signal,
          );
        } catch (error) {
          if (options.signal?.aborted) throw error;
          const failure = toVideoRagError(error);
          return { error: `${failure.code}: ${failure.message}` };
        } finally {
          options.onProgress?.({ type: "extract-clip", videoId: video.id, path, clipIndex, stage: stage.name, done: ++done, total: clips.length });
        }
      },
      options.signal,
    );
    if (stage.name === "speech" && !video.language) {
      const recognised = outputs.flatMap((output) => ("error" in output ? [] : output.segments));
      found = await spokenLanguage(clips.flatMap((clipIndex) => heard.get(clipIndex) ?? []), recognised);
    }
    clips.forEach((clipIndex, position) => {
      const result = outputs[position] as ClipOutput | { error: string };
      const output = "error" in result ? result : { ...result, segments: withLanguage(result.segments, stageLanguage(stage.name, video, found, heard.get(clipIndex), settings.ocr)) };
      if ("error" in output) {
        records.push({ clipIndex, stage: stage.name, key: stage.settingsKey, status: "failed", error: output.error });
        report.failed.push({ videoId: video.id, clipIndex, stage: stage.name, error: output.error });
        return;
      }
      records.push({ clipIndex, stage: stage.name, key: stage.settingsKey, status: "done" });
      noteRun(clipIndex, stage.name);
      report.work[stage.name] = (report.work[stage.name] ?? 0) + output.work;
      for (const warning of output.warnings) if (!report.warnings.some((known) => known.detail === warning.detail)) report.warnings.push(warning);
      replaces.push({ clipIndex, sources: stage.sources });
      if (stage.name === "visual" && stage.enabled) replaceFrameVectors.push(clipIndex);
      segments = [...segments.filter((segment) => !owned(segment, clipIndex, stage.sources)), ...output.segments].sort(
        (a, b) => a.startSecond - b.startSecond,
      );
      added.push(...output.segments);
      vectors.push(...output.vectors);
    });
  }

  // A clip's caption reads its transcript and screen text: rewritten text leaves a caption made before it stale.
  const visual = stages.find((stage) => stage.name === "visual");
  for (const [clipIndex, stagesRun] of ran) {
    const textChanged = stagesRun.has("speech") || stagesRun.has("screen-text");
    const record = table.get(clipIndex)?.get("visual");
    if (visual?.enabled && textChanged && !stagesRun.has("visual") && record?.status === "done") {
      records.push({ clipIndex, stage: "visual", key: visual.settingsKey, status: "pending" });
    }
  }

  // Speakers are the whole video's, like chapters: once every clip's speech is in, its speech segments are labelled
  // together (the diarizer over the whole audio, or the transcriber's own labels), replacing them with the labels on.
  // Before that, only a question about a person (`speakersNow`) diarizes; the voices it keeps then label the speech
  // recognised after, so labels never change their voice.
  const speakersOpen = planned.some((index) => isOpen(index, "speakers", derivedKeys.speakers)) || [...ran.values()].some((stagesRun) => stagesRun.has("speech"));
  const speechSettled = spans.every((span) => {
    const record = records.find((entry) => entry.clipIndex === span.index && entry.stage === "speech") ?? table.get(span.index)?.get("speech");
    return !record || record.status === "done";
  });
  const kept = wanted.has("speakers") && speakersOpen ? await store.speakerVoices(video.id) : undefined;
  const speech = segments.filter((segment) => segment.source === "speech");
  let voices: SpeakerVoices | undefined;
  const labelNow = wanted.has("speakers") && speakersOpen && speech.length > 0 && (speechSettled || kept?.key === derivedKeys.speakers || options.speakersNow === true);
  if (labelNow) {
    options.onProgress?.({ type: "extract-stage", videoId: video.id, path, stage: "speakers", clipIndexes: planned });
    const labelled = await labelSpeakers({
      video,
      segments: speech,
      diarizer: settings.diarizer,
      key: derivedKeys.speakers,
      ...(kept ? { kept } : {}),
      speakers: settings.speakers,
      // Where voice activity detection ran, its regions; without it (no detector), the diarizer finds speech itself.
      ...(await speechRegionsOf(store, video.id)),
      tempDir: settings.tempDir,
      signal: options.signal,
    });
    voices = labelled.voices;
    for (const warning of labelled.warnings) if (!report.warnings.some((known) => known.detail === warning.detail)) report.warnings.push(warning);
    // Nothing is rewritten when no segment gained or changed a speaker (no diarizer, no labels).
    const same = labelled.segments.length === speech.length && labelled.segments.every((segment, index) => segment.speaker === speech[index]?.speaker);
    const owners = new Set(same ? [] : labelled.segments.map((segment) => segment.clipIndex).filter((index): index is number => index !== undefined));
    for (const clipIndex of owners) replaces.push({ clipIndex, sources: ["speech"] });
    added.splice(0, added.length, ...added.filter((segment) => segment.source !== "speech" || !owners.has(segment.clipIndex ?? -1)), ...labelled.segments);
    if (!same) segments = [...segments.filter((segment) => segment.source !== "speech"), ...labelled.segments].sort((a, b) => a.startSecond - b.startSecond);
  }
  if (wanted.has("speakers") && speakersOpen && speechSettled) {
    for (const span of spans) {
      if (table.get(span.index)?.has("speakers")) records.push({ clipIndex: span.index, stage: "speakers", key: derivedKeys.speakers, status: "done" });
    }
  } else if (!wanted.has("speakers") || !speechSettled) {
    for (const [clipIndex, stagesRun] of ran) {
      if (stagesRun.has("speech") && table.get(clipIndex)?.get("speakers")?.status === "done") {
        records.push({ clipIndex, stage: "speakers", key: derivedKeys.speakers, status: "pending" });
      }
    }
  }

  // Documents are rebuilt from the whole video's segments, so a line said across a boundary lands where full ingest puts it.
  const documents = buildClipDocuments(video.id, spans, segments);
  const changed = documents.filter((document) => {
    const stored = spanOf.get(document.index);
    return !stored || stored.transcript !== document.transcript || stored.screen !== document.screen || stored.visual !== document.visual;
  });
  const changedIndexes = new Set(changed.map((document) => document.index));

  // A derived stage left out of this run goes pending where the text it read changed.
  const markStale = (stage: "embeddings" | "graph" | "chapters", key: string): void => {
    for (const index of changedIndexes) {
      if (table.get(index)?.get(stage)?.status === "done") records.push({ clipIndex: index, stage, key, status: "pending" });
    }
  };
  const embedder = settings.textEmbedder;
  const toEmbed = wanted.has("embeddings")
    ? documents.filter((document) => changedIndexes.has(document.index) || (planned.includes(document.index) && isOpen(document.index, "embeddings", derivedKeys.embeddings)))
    : [];
  if (!wanted.has("embeddings")) markStale("embeddings", derivedKeys.embeddings);
  if (toEmbed.length > 0) {
    options.onProgress?.({ type: "extract-stage", videoId: video.id, path, stage: "embeddings", clipIndexes: toEmbed.map((document) => document.index) });
    if (embedder) {
      const texts = toEmbed.map(clipText);
      const withText = toEmbed.filter((_, index) => texts[index]?.trim());
      const embedded = await embedder.embed(withText.map(clipText), { signal: options.signal });
      withText.forEach((document, index) => {
        const vector = embedded[index];
        if (vector) vectors.push({ space: textSpace(embedder), owner: "clip", videoId: video.id, clipIndex: document.index, vector });
      });
    }
    for (const document of toEmbed) {
      if (table.get(document.index)?.has("embeddings")) records.push({ clipIndex: document.index, stage: "embeddings", key: derivedKeys.embeddings, status: "done" });
      noteRun(document.index, "embeddings");
    }
  }

  const settled = (index: number): boolean =>
    stages.every((stage) => {
      const record = records.find((entry) => entry.clipIndex === index && entry.stage === stage.name) ?? table.get(index)?.get(stage.name);
      return !record || record.status === "done";
    });
  const graphClips = wanted.has("graph") ? planned.filter((index) => changedIndexes.has(index) || isOpen(index, "graph", derivedKeys.graph)) : [];
  if (!wanted.has("graph")) markStale("graph", derivedKeys.graph);
  let graph: Awaited<ReturnType<typeof buildVideoGraph>>["graph"] | undefined;
  if (wanted.has("graph") && (graphClips.length > 0 || changed.length > 0)) {
    options.onProgress?.({ type: "extract-stage", videoId: video.id, path, stage: "graph", clipIndexes: graphClips });
    // A language model reads only clips whose heavy stages are all done, so unextracted clips cost no model call;
    // chunks whose text did not change come from the output cache.
    const ownDocuments = ownLanguageDocuments(documents, spans, segments, video.language);
    const graphDocuments = settings.graph.model ? ownDocuments.filter((document) => settled(document.index)) : ownDocuments;
    const built = await buildVideoGraph(graphDocuments, {
      model: settings.graph.model,
      embedder: settings.graph.embedder,
      glean: settings.graph.glean,
      maxTokens: settings.graph.chunkTokens,
      signal: options.signal,
      language: video.language,
    });
    graph = { ...built.graph, mergeDistance: settings.graph.mergeDistance };
    report.graphNotes[video.id] = graphNote({ ...graph, modelCalls: built.modelCalls, liteChunks: built.liteChunks, modelExtractor: settings.graph.model !== undefined });
    for (const index of graphClips) {
      if (table.get(index)?.has("graph")) records.push({ clipIndex: index, stage: "graph", key: derivedKeys.graph, status: "done" });
      noteRun(index, "graph");
    }
  }

  // Chapters are the whole video's: any change of its text makes them again, and every clip's record follows.
  if (!wanted.has("chapters")) markStale("chapters", derivedKeys.chapters);
  let chapters: Chapter[] | undefined;
  if (wanted.has("chapters") && (changed.length > 0 || planned.some((index) => isOpen(index, "chapters", derivedKeys.chapters)))) {
    options.onProgress?.({ type: "extract-stage", videoId: video.id, path, stage: "chapters", clipIndexes: planned });
    chapters = buildChapters({ segments, durationSeconds: video.durationSeconds, frames: await store.getFrames(video.id, 0, Number.POSITIVE_INFINITY), language: video.language });
    // A language model titles them once the whole video's text is in: until then the lite titles stand, pending.
    const model = settings.chapterModel;
    let done = model === undefined;
    if (model && chapters.length > 0 && spans.every((span) => settled(span.index))) {
      const titled = await titleChapters(chapters, model, { signal: options.signal });
      chapters = titled.chapters;
      done = titled.failures === 0;
      if (titled.failures > 0) {
        report.warnings.push({ type: "degraded", feature: "chapters", detail: `${model.id} gave no usable title for ${titled.failures} chapters of ${video.title}; lite titles kept` });
      }
    }
    if (settings.textEmbedder) vectors.push(...(await chapterVectors(video.id, chapters, settings.textEmbedder, { signal: options.signal })));
    for (const span of spans) {
      if (table.get(span.index)?.has("chapters")) records.push({ clipIndex: span.index, stage: "chapters", key: derivedKeys.chapters, status: done ? "done" : "pending" });
    }
  }

  options.signal?.throwIfAborted();
  try {
    await store.writeBack({
      videoId: video.id,
      documents: changed,
      replaces,
      segments: added,
      vectors,
      replaceFrameVectors,
      graph,
      chapters,
      stages: records,
      ...(found ? { language: found.language } : {}),
    });
    if (found) report.languages[video.id] = found;
    // The voices are kept once the labels they gave are written: a process stopped between the two diarizes again.
    if (voices) await store.setSpeakerVoices(video.id, voices);
  } catch (error) {
    // The video was removed while its clips were extracted: there is nothing left to write to, and a question that
    // asked for the extraction answers from what remains rather than failing.
    if (VideoRagError.isInstance(error) && error.code === "VIDEO_NOT_FOUND") return;
    throw error;
  }
  for (const [clipIndex, stagesRun] of [...ran].sort((a, b) => a[0] - b[0])) {
    if (![...stagesRun].some((stage) => !derivedStages.includes(stage)) && !planned.includes(clipIndex)) continue;
    report.clips.push({ videoId: video.id, clipIndex, stages: [...stagesRun] });
  }
  options.onProgress?.({ type: "extract-batch", videoId: video.id, path, clipIndexes: planned, seconds: (performance.now() - started) / 1000 });
}

/** The text a clip's dense vector is made from. */
export function clipText(document: ClipDocument): string {
  return [document.visual, document.transcript, document.screen].filter(Boolean).join("\n");
}

/** The speech regions the light index found in a video, when voice activity detection ran on it. */
async function speechRegionsOf(store: Store, videoId: string): Promise<{ speechRegions?: [number, number][] }> {
  const signals = await store.clipSignals(videoId);
  if (signals.some((signal) => signal.speechRegions === undefined)) return {};
  return { speechRegions: signals.flatMap((signal) => signal.speechRegions ?? []) };
}
