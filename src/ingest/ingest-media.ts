// Ingest of one media file in two parts. The light index: probe → subtitles → where speech is (voice-activity
// detection) → where the picture changes → a sparse visual pass → commit, after which the video is listed and searchable.
// Then the deferred stages (speech recognition, screen text, the dense visual pass and captions, text vectors, the
// graph) run per clip through extract-clips.ts: all of them now (full ingest), or later, where questions need them
// (incremental). The light stages are saved as they finish, so a killed ingest resumes where it stopped; deferred work
// is recorded per clip, so it resumes too.

import { stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { mkdtemp, rm } from "node:fs/promises";
import {
  checkDecodable,
  extractAudio,
  frameHash,
  hashDistance,
  planClips,
  probeMedia,
  readSubtitles,
  sampleFrames,
  type MediaInfo,
} from "../media/index.js";
import { VideoRagError, toVideoRagError } from "../spec/index.js";
import type { ClipSignals, ClipStageRecord, Segment, StageRecord, Store, VoiceActivityDetector } from "../spec/index.js";
import { buildClipDocuments, clipIndexAt, ownLanguageDocuments, type ClipSpan } from "./clip-documents.js";
import { clipStages, derivedStageKeys, sameFrameBits, settingsKey, type ExtractionSettings } from "./clip-stages.js";
import { hashFile, videoIdFromHash } from "./content-id.js";
import { extractClips, type ExtractionEvent, type ExtractionReport } from "./extract-clips.js";
import { labelSpeakers } from "./speaker-stage.js";
import type { IngestEvent, IngestResult, MediaStage } from "./types.js";
import { extractVisual, hasVisualModels, imageVectorRecords, type VisualStage } from "./visual-stage.js";
import { graphNote, runGraphStage } from "./graph-stage.js";
import { buildChapters, chapterVectors } from "../summary/index.js";
import { identifyLanguage } from "../text/index.js";
import { framesInClip, templateCaption, visualSegments } from "./visual-words.js";

/** What media ingest needs, passed in so the pipeline can run with any providers. */
export interface MediaIngestContext extends ExtractionSettings {
  store: Store;
  /** Finds where speech is, so speech recognition later runs only there; without one each whole clip may hold speech. */
  vad?: VoiceActivityDetector;
  clipSeconds: number;
  /** The light index's visual pass: a frame every this many seconds (the dense pass is deferred). */
  lightVisualSeconds: number;
}

export interface MediaIngestOptions {
  /** Commit the light index and leave the heavy stages pending, for question time or `extract`. */
  incremental: boolean;
  /** Real folders a sidecar subtitle file must resolve inside (the server's media roots). */
  confineTo?: string[];
  /** The video's language as the user states it (ISO 639-1), trusted over its subtitles' tags and its text. */
  language?: string;
  signal?: AbortSignal;
}

interface SubtitleStage {
  source: string;
  detail: string;
  /** The language the stream's tag or the sidecar's name gives. */
  language?: string;
  /** Each with the language of its stream where its tag or file name gives one. */
  cues: { startSecond: number; endSecond: number; text: string; speaker?: string; language?: string }[];
}

/** Subtitles that name no one, with the speaker of each cue, and the voices found (vectors as plain lists, for JSON). */
interface SubtitleSpeakersStage {
  cues: SubtitleStage["cues"];
  voices?: { key: string; voices: { label: string; turns: [number, number][]; vector?: number[] }[] };
}

/** Speech regions found by voice-activity detection; null when it did not run. */
interface SpeechActivityStage {
  regions: [number, number][] | null;
  detector: string | null;
}

/** The frames sampled for screen changes (and later read by OCR), with their perceptual hashes. */
interface ScreenChangesStage {
  frames: { timeSecond: number; hash: string }[];
}

/** Like Promise.all, but waits for every promise to settle before rejecting with the first failure. */
async function settleAll<T extends readonly unknown[]>(promises: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const settled = await Promise.allSettled(promises);
  const failure = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
  if (failure) throw failure.reason;
  return settled.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

/** Per clip: seconds of speech, the regions starting in it, and how often the picture changed. */
function clipSignals(clips: ClipSpan[], regions: [number, number][] | null, frames: { timeSecond: number; hash: string }[]): ClipSignals[] {
  return clips.map((clip) => {
    const inClip = framesInClip(frames, clip);
    let changes = 0;
    inClip.forEach((frame, index) => {
      const previous = inClip[index - 1];
      if (previous && hashDistance(frame.hash, previous.hash) > sameFrameBits) changes++;
    });
    if (!regions) return { clipIndex: clip.index, screenChanges: changes };
    const overlap = regions.reduce((sum, [start, end]) => sum + Math.max(0, Math.min(end, clip.endSecond) - Math.max(start, clip.startSecond)), 0);
    return {
      clipIndex: clip.index,
      speechSeconds: Math.round(overlap * 100) / 100,
      speechRegions: regions.filter(([start]) => clipIndexAt(clips, start) === clip.index),
      screenChanges: changes,
    };
  });
}

/** Ingests one media file; never throws for bad input (the result says why), only for cancellation. */
export async function ingestMediaFile(
  context: MediaIngestContext,
  path: string,
  emit: (event: IngestEvent) => void,
  options: MediaIngestOptions,
): Promise<IngestResult> {
  const { signal } = options;
  const result: IngestResult = {
    path,
    status: "failed",
    durationSeconds: 0,
    clipCount: 0,
    stageSeconds: {},
    warnings: [],
    notes: [],
  };
  let videoId: string | undefined;
  try {
    const info = await stat(path).catch((error: unknown) => {
      throw new VideoRagError("INPUT_NOT_FOUND", `cannot read ${path}`, { cause: error, subject: path });
    });
    if (info.size === 0) throw new VideoRagError("INPUT_EMPTY", "the file is empty", { subject: path });
    const fingerprint = await hashFile(path).catch((error: unknown) => {
      throw new VideoRagError("INPUT_NOT_FOUND", `cannot read ${path}`, { cause: error, subject: path });
    });
    videoId = videoIdFromHash(fingerprint);
    result.videoId = videoId;
    const existing = await context.store.getVideo(videoId);
    // A language stated now that differs from the one the video was indexed in is a reason to index it again: its text
    // is stemmed, and its speech heard, in its language (names given to its speakers stay: the source is the same).
    const relabelled = options.language !== undefined && existing !== undefined && existing.language !== options.language;
    if (existing && !relabelled && (await context.store.getFingerprint(videoId)) === fingerprint) {
      const unchanged: IngestResult = { ...result, status: "unchanged", durationSeconds: existing.durationSeconds, clipCount: existing.clipCount };
      // A full ingest that was stopped after its light index finishes the deferred work it left.
      const open = options.incremental ? [] : await context.store.clipStages({ videoId, statuses: ["pending"] });
      if (open.length === 0) return unchanged;
      const report = await extractEverything(context, existing.id, existing.clipCount, signal, stageEvents(path, emit, result));
      result.warnings.push(...report.warnings);
      result.notes.push(`resumed: deferred stages ran on ${report.clips.length} clips`, ...extractionNotes(context, report));
      return { ...result, status: "ingested", durationSeconds: existing.durationSeconds, clipCount: existing.clipCount };
    }

    const saved = new Map<string, StageRecord>((await context.store.loadStages(videoId)).map((record) => [record.stage, record]));
    const id = videoId;
    const runStage = async <T>(stage: MediaStage, settings: unknown, work: () => Promise<T>): Promise<T> => {
      signal?.throwIfAborted();
      const key = settingsKey(settings);
      const previous = saved.get(stage);
      if (previous && previous.key === key) {
        emit({ type: "stage-done", path, stage, seconds: 0, resumed: true });
        result.stageSeconds[stage] = 0;
        return previous.output as T;
      }
      emit({ type: "stage-start", path, stage });
      const started = performance.now();
      const output = await work();
      await context.store.saveStage(id, { stage, key, output });
      const seconds = (performance.now() - started) / 1000;
      result.stageSeconds[stage] = seconds;
      emit({ type: "stage-done", path, stage, seconds, resumed: false });
      return output;
    };

    const media = await runStage<MediaInfo>("probe", { version: 1 }, async () => {
      const probed = await probeMedia(path, { signal });
      await checkDecodable(path, probed, { signal });
      return probed;
    });
    result.durationSeconds = media.durationSeconds;

    // Bitmap subtitles are read here, in the light index: a cue is a small image with little text, and a film's
    // subtitles are what most questions about it need.
    const ocr = context.ocr;
    // 2: each cue carries its stream's language.
    const subtitles = await runStage<SubtitleStage>("subtitles", { version: 2, ocr: ocr?.id ?? null }, async () => {
      const found = await readSubtitles(path, media, {
        signal,
        confineTo: options.confineTo,
        recognize: ocr
          ? async (image: Buffer, language?: string) =>
              (await ocr.recognize({ data: image, mimeType: "image/png" }, { mode: "subtitle", signal, ...(language ? { language } : {}) }))
                .map((line) => line.text)
                .join(" ")
          : undefined,
      });
      return { source: found.source, detail: found.detail, cues: found.cues, ...(found.language ? { language: found.language } : {}) };
    });
    if (subtitles.cues.length > 0) result.notes.push(`subtitles: ${subtitles.source} (${subtitles.detail})`);
    const hasSubtitles = subtitles.cues.length > 0;
    const bitmapOnly = media.subtitleStreams.some((stream) => stream.kind === "bitmap") && !ocr;
    if (bitmapOnly && !hasSubtitles) {
      result.warnings.push({ type: "skipped", feature: "bitmap-subtitles", detail: `${basename(path)}: OCR is off, bitmap subtitles not read` });
    }
    if (!media.hasAudio && !hasSubtitles) {
      result.warnings.push({ type: "skipped", feature: "speech", detail: `${basename(path)}: no audio stream and no subtitles, only what is shown is indexed` });
    } else if (media.hasAudio && !hasSubtitles && !context.transcriber) {
      result.warnings.push({ type: "skipped", feature: "speech", detail: `${basename(path)}: speech recognition is off and there are no subtitles` });
    }

    // Subtitles that name no one: who speaks each cue comes from the diarizer, here in the light index (the lite one
    // diarizes a minute of audio in under half a second), since subtitle text has no deferred stage to wait for.
    const diarizer = context.diarizer;
    const speakersKey = derivedStageKeys(context).speakers;
    const voiced = diarizer && media.hasAudio && hasSubtitles && !subtitles.cues.some((cue) => cue.speaker)
      ? await runStage<SubtitleSpeakersStage>("speakers", { version: 2, key: speakersKey, speakers: context.speakers ?? null }, async () => {
          const labelled = await labelSpeakers({
            video: { path, hasAudio: true },
            segments: subtitles.cues.map((cue) => ({ ...cue, source: "subtitle" as const })),
            diarizer,
            key: speakersKey,
            ...(context.speakers ? { speakers: context.speakers } : {}),
            tempDir: context.tempDir,
            signal,
          });
          return {
            cues: labelled.segments.map(({ source: _source, ...cue }) => cue),
            ...(labelled.voices
              ? { voices: { key: labelled.voices.key, voices: labelled.voices.voices.map((voice) => ({ ...voice, vector: voice.vector ? [...voice.vector] : undefined })) } }
              : {}),
          };
        })
      : undefined;
    // Cues of a stream whose tag or file name gives no language are in the language their own text reads as.
    const untagged = subtitles.cues.filter((cue) => !cue.language);
    const identified = untagged.length > 0 ? await identifyLanguage(untagged.map((cue) => cue.text)) : undefined;
    const cues = (voiced?.cues ?? subtitles.cues).map((cue) => (cue.language || !identified ? cue : { ...cue, language: identified }));

    const vad = media.hasAudio && !hasSubtitles && context.transcriber ? context.vad : undefined;
    const screenSettings = { version: 3, ocr: ocr?.id ?? null, frameGapSeconds: context.frameGapSeconds };
    const clips = planClips(media.durationSeconds, context.clipSeconds);
    const visualModels = context.visual;
    // The sparse pass only serves question-time planning; a full ingest runs the dense pass on every clip right away.
    const lightModels = visualModels && options.incremental && hasVisualModels({ ...visualModels, vision: undefined })
      ? { ...visualModels, vision: undefined, everySeconds: Math.max(visualModels.everySeconds, context.lightVisualSeconds), keyframesOnly: true }
      : undefined;
    const lightSettings = {
      // 3: per-class thresholds, box sizes and weak boxes kept for persistence (visual-words.ts).
      version: 3,
      detector: lightModels?.detector?.id ?? null,
      tagger: lightModels?.tagger?.id ?? null,
      imageText: lightModels?.imageText?.id ?? null,
      everySeconds: lightModels?.everySeconds ?? null,
      clipSeconds: context.clipSeconds,
    };
    // The three light passes read different things (sound, keyframes, frames for the models): they run side by side,
    // and all of them settle before a failure is reported, so none saves its output after bad input was discarded.
    const [activity, screen, light] = await settleAll([
      runStage<SpeechActivityStage>("speech-activity", { version: 1, vad: vad?.id ?? null }, async () => {
        if (!vad) return { regions: null, detector: null };
        const scratch = await mkdtemp(join(context.tempDir, "vad-"));
        try {
          const wavPath = join(scratch, "audio.wav");
          await extractAudio(path, wavPath, { signal });
          const regions = await vad.detect(wavPath, {
            signal,
            onProgress: (done, total) => emit({ type: "stage-progress", path, stage: "speech-activity", fraction: total > 0 ? done / total : 0 }),
          });
          return { regions: regions.map((region): [number, number] => [region.startSecond, region.endSecond]), detector: vad.id };
        } finally {
          await rm(scratch, { recursive: true, force: true });
        }
      }),
      runStage<ScreenChangesStage>("screen-changes", screenSettings, async () => {
        // Frames are sampled for OCR to read later; with OCR off there is nothing to read them for.
        if (!media.hasVideo || !ocr) return { frames: [] };
        // Keyframes only: where the picture changes is all the light index needs; OCR samples between them later.
        // Hashed at the size OCR samples the gaps at, so a keyframe and a gap frame of one picture hash alike.
        const frames = await sampleFrames(path, {
          maxGapSeconds: context.frameGapSeconds,
          durationSeconds: media.durationSeconds,
          keyframesOnly: true,
          thumbnailsOnly: true,
          scratchDir: context.tempDir,
          signal,
        });
        return { frames: frames.map((frame) => ({ timeSecond: frame.timeSecond, hash: frameHash(frame.thumbnail) })) };
      }),
      runStage<VisualStage>("visual-light", lightSettings, async () =>
        lightModels
          ? extractVisual(path, media, clips, () => "", lightModels, (fraction) => emit({ type: "stage-progress", path, stage: "visual-light", fraction }), signal)
          : { frames: [], frameVectors: [], captions: [] },
      ),
    ]);
    if (activity.regions) {
      const speechSeconds = activity.regions.reduce((sum, [start, end]) => sum + end - start, 0);
      result.notes.push(`speech activity: ${speechSeconds.toFixed(1)} s of speech in ${activity.regions.length} regions by ${activity.detector}`);
    }

    const segments: Segment[] = [
      ...cues.map((cue) => ({ ...cue, source: "subtitle" as const })),
      ...clips.flatMap((clip) => {
        const frames = framesInClip(light.frames, clip);
        const clipEnd = Math.min(clip.endSecond, media.durationSeconds);
        const caption = templateCaption(frames, "");
        return [
          ...visualSegments(frames, lightModels?.everySeconds ?? 10, clipEnd).map((segment) => ({ ...segment, clipIndex: clip.index })),
          ...(caption ? [{ startSecond: clip.startSecond, endSecond: clipEnd, text: caption, source: "caption" as const, clipIndex: clip.index }] : []),
        ];
      }),
    ].sort((a, b) => a.startSecond - b.startSecond);
    const documents = buildClipDocuments(id, clips, segments);

    const encoder = lightModels?.imageText;
    const vectors = encoder ? imageVectorRecords(encoder, id, clips, light) : [];

    // The language: the user's word, else the subtitles' tag or file name, else what the subtitle text reads as (the
    // transcriber's ear comes later, with speech: see extract-clips.ts).
    const language = options.language ?? subtitles.language ?? identified;
    if (language) result.notes.push(`language: ${language} (${options.language ? "given" : subtitles.language ? `the subtitles' ${subtitles.source === "sidecar" ? "file name" : "stream tag"}` : "identified from the subtitles"})`);

    // The lite graph is cheap enough for the light index; a language model's waits for clips to be extracted.
    const lightGraph = options.incremental && !context.graph.model;
    const graph = lightGraph
      ? await runGraphStage(context.graph, ownLanguageDocuments(documents, clips, segments, language), runStage, {
          signal,
          language,
          onProgress: (fraction) => emit({ type: "stage-progress", path, stage: "graph", fraction }),
        })
      : undefined;

    const video = {
      id,
      path,
      title: basename(path),
      ...(language ? { language } : {}),
      durationSeconds: media.durationSeconds,
      kind: "media" as const,
      sizeBytes: media.sizeBytes,
      width: media.width,
      height: media.height,
      hasAudio: media.hasAudio,
      hasVideo: media.hasVideo,
      timesEstimated: false,
    };
    const derivedKeys = derivedStageKeys(context);
    const stages = clipStages(context);
    const signals = clipSignals(clips, activity.regions, screen.frames);
    // Nothing to do is done: a stage without its model, and speech recognition where the detector heard no speech.
    const silent = new Set(signals.filter((signal) => signal.speechRegions?.length === 0).map((signal) => signal.clipIndex));
    const speechStage = stages.find((stage) => stage.name === "speech");
    const speechPending =
      speechStage !== undefined && speechStage.enabled && speechStage.appliesTo({ ...video, ingestedAt: "", clipCount: clips.length }, hasSubtitles);
    const records: ClipStageRecord[] = clips.flatMap((clip) => [
      ...stages
        .filter((stage) => stage.appliesTo({ ...video, ingestedAt: "", clipCount: clips.length }, hasSubtitles))
        .map((stage) => {
          const idle = !stage.enabled || (stage.name === "speech" && silent.has(clip.index));
          return { clipIndex: clip.index, stage: stage.name, key: stage.settingsKey, status: idle ? ("done" as const) : ("pending" as const) };
        }),
      { clipIndex: clip.index, stage: "embeddings", key: derivedKeys.embeddings, status: context.textEmbedder ? "pending" : "done" },
      { clipIndex: clip.index, stage: "graph", key: derivedKeys.graph, status: lightGraph ? "done" : "pending" },
      // Lite chapters are made now from the light text, and again as deferred text is written back; a language model
      // titles them once the whole video's text is in.
      { clipIndex: clip.index, stage: "chapters", key: derivedKeys.chapters, status: context.chapterModel ? "pending" : "done" },
      // Speakers of recognised speech, once all of it is in; nothing to do where there is no speech to recognise.
      { clipIndex: clip.index, stage: "speakers", key: derivedKeys.speakers, status: speechPending ? "pending" : "done" },
    ]);
    emit({ type: "stage-start", path, stage: "chapters" });
    const chaptersStarted = performance.now();
    const chapters = buildChapters({ segments, durationSeconds: media.durationSeconds, frames: screen.frames, language });
    if (context.textEmbedder) vectors.push(...(await chapterVectors(id, chapters, context.textEmbedder, { signal })));
    result.stageSeconds.chapters = (performance.now() - chaptersStarted) / 1000;
    emit({ type: "stage-done", path, stage: "chapters", seconds: result.stageSeconds.chapters, resumed: false });

    signal?.throwIfAborted();
    emit({ type: "stage-start", path, stage: "commit" });
    const started = performance.now();
    await context.store.commitVideo({
      video,
      clips: documents,
      segments,
      frames: screen.frames,
      vectors,
      graph,
      fingerprint,
      signals,
      clipStages: records,
      chapters,
    });
    if (voiced?.voices) {
      const voices = voiced.voices.voices.map(({ vector, ...voice }) => ({ ...voice, ...(vector ? { vector: Float32Array.from(vector) } : {}) }));
      // A removal between the commit and here leaves nothing to keep them for.
      await context.store.setSpeakerVoices(id, { key: voiced.voices.key, voices }).catch((error: unknown) => {
        if (!(VideoRagError.isInstance(error) && error.code === "VIDEO_NOT_FOUND")) throw error;
      });
      result.notes.push(`speakers: ${voices.length} in the subtitles, found by ${diarizer?.id}`);
    }
    result.stageSeconds.commit = (performance.now() - started) / 1000;
    emit({ type: "stage-done", path, stage: "commit", seconds: result.stageSeconds.commit, resumed: false });
    if (graph) result.notes.push(graphNote(graph));
    if (light.frames.length > 0) result.notes.push(`visual (light): ${light.frames.length} frames (one every ${lightModels?.everySeconds} s)`);

    const pending = records.filter((record) => record.status === "pending");
    if (options.incremental) {
      const pendingClips = new Set(pending.map((record) => record.clipIndex)).size;
      const pendingStages = [...new Set(pending.map((record) => record.stage))];
      if (pendingClips > 0) result.notes.push(`deferred: ${pendingStages.join(", ")} on ${pendingClips} clips`);
    } else if (pending.length > 0) {
      const report = await extractEverything(context, id, clips.length, signal, stageEvents(path, emit, result));
      result.warnings.push(...report.warnings);
      result.notes.push(...extractionNotes(context, report));
      for (const failure of report.failed.slice(0, 3)) {
        result.warnings.push({ type: "degraded", feature: failure.stage, detail: `${basename(path)} clip ${failure.clipIndex}: ${failure.error}` });
      }
    }
    if ((await context.store.getSegments(id, 0, Number.POSITIVE_INFINITY)).length === 0) {
      result.warnings.push({
        type: "degraded",
        feature: "text",
        detail: `${basename(path)}: no subtitles, speech, screen text or visual words found${options.incremental && pending.length > 0 ? " yet (deferred work is pending)" : "; nothing to search in it yet"}`,
      });
    }
    return { ...result, status: "ingested", clipCount: clips.length };
  } catch (error) {
    if (signal?.aborted) throw error;
    const failure = toVideoRagError(error);
    // Bad input leaves nothing behind; a missing tool or a crash keeps finished stages for the next run.
    if (videoId && failure.code.startsWith("INPUT_")) await context.store.discardStages(videoId);
    return { ...result, status: "failed", error: { code: failure.code, message: failure.message } };
  }
}

/**
 * Every deferred stage on every clip of a video, as a full ingest runs them: eight clips a transaction, then the graph
 * once over the whole video, so it is not rebuilt after every batch.
 */
async function extractEverything(
  context: MediaIngestContext,
  videoId: string,
  clipCount: number,
  signal: AbortSignal | undefined,
  onProgress: (event: ExtractionEvent) => void,
): Promise<ExtractionReport> {
  const clips = Array.from({ length: clipCount }, (_, clipIndex) => ({ videoId, clipIndex }));
  const report = await extractClips(context.store, context, clips, {
    signal,
    batchClips: 8,
    stages: ["speech", "screen-text", "visual", "embeddings"],
    onProgress,
  });
  const graph = await extractClips(context.store, context, clips, { signal, batchClips: clipCount, stages: ["graph", "chapters", "speakers"], onProgress });
  const byClip = new Map(report.clips.map((clip) => [`${clip.videoId}#${clip.clipIndex}`, clip]));
  for (const clip of graph.clips) {
    const known = byClip.get(`${clip.videoId}#${clip.clipIndex}`);
    if (known) known.stages.push(...clip.stages);
    else report.clips.push(clip);
  }
  return { ...report, graphNotes: graph.graphNotes, seconds: report.seconds + graph.seconds };
}

/** Extraction progress as the ingest stage events a progress bar already draws. */
function stageEvents(path: string, emit: (event: IngestEvent) => void, result: IngestResult): (event: ExtractionEvent) => void {
  let current: { stage: MediaStage; started: number } | undefined;
  const finish = (): void => {
    if (!current) return;
    const seconds = (performance.now() - current.started) / 1000;
    result.stageSeconds[current.stage] = (result.stageSeconds[current.stage] ?? 0) + seconds;
    emit({ type: "stage-done", path, stage: current.stage, seconds, resumed: false });
    current = undefined;
  };
  return (event) => {
    if (event.type === "extract-stage") {
      finish();
      current = { stage: event.stage, started: performance.now() };
      emit({ type: "stage-start", path, stage: event.stage });
    } else if (event.type === "extract-clip" && current) {
      emit({ type: "stage-progress", path, stage: current.stage, fraction: event.done / event.total });
    } else if (event.type === "extract-batch" || event.type === "extract-done") {
      finish();
    }
  };
}

/** Summary lines of what the deferred stages did, as full ingest has always reported them. */
function extractionNotes(context: MediaIngestContext, report: ExtractionReport): string[] {
  const notes: string[] = [];
  const clipsWith = (stage: string): number => report.clips.filter((clip) => clip.stages.some((name) => name === stage)).length;
  if (context.transcriber && clipsWith("speech") > 0) notes.push(`speech: ${context.transcriber.id} (${(report.work.speech ?? 0).toFixed(1)} s of audio in ${clipsWith("speech")} clips)`);
  if (context.ocr && clipsWith("screen-text") > 0) notes.push(`screen text: ${report.work["screen-text"] ?? 0} frames read by ${context.ocr.id}`);
  const visual = context.visual;
  if (clipsWith("visual") > 0) {
    const models = [visual?.detector?.id, visual?.tagger?.id, visual?.imageText?.id].filter(Boolean).join(", ");
    if (models) notes.push(`visual: ${report.work.visual ?? 0} frames (one every ${visual?.everySeconds} s) by ${models}`);
    notes.push(visual?.vision ? `captions: ${clipsWith("visual")} clips by ${visual.vision.id}` : `captions: ${clipsWith("visual")} clips from templates (no vision-language model)`);
  }
  if (context.textEmbedder && clipsWith("embeddings") > 0) notes.push(`text vectors: ${clipsWith("embeddings")} clips by ${context.textEmbedder.id}`);
  for (const note of Object.values(report.graphNotes)) notes.push(note);
  for (const found of Object.values(report.languages)) {
    notes.push(`language: ${found.language} (${found.by === "transcriber" ? `heard by ${context.transcriber?.id ?? "the transcriber"}` : "identified from the speech"})`);
  }
  return notes;
}
