// Ingest of one media file as resumable stages: probe → subtitles → speech → screen text → visual → embeddings → commit.
// Each stage's output is saved in the store keyed by its settings, so a killed ingest resumes where it stopped,
// and the video becomes visible only at commit, in one transaction.

import { stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { mkdtemp, rm } from "node:fs/promises";
import { createHash } from "node:crypto";
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
import type {
  OcrEngine,
  Segment,
  StageRecord,
  Store,
  TextEmbedder,
  Transcriber,
  TranscriptSegment,
  VectorRecord,
  Warning,
} from "../spec/index.js";
import { buildClipDocuments, type ClipSpan } from "./clip-documents.js";
import { hashFile, videoIdFromHash } from "./content-id.js";
import { mapConcurrent } from "../providers/runtime/index.js";
import { mergeScreenText, type FrameText } from "./screen-text.js";
import type { IngestEvent, IngestResult, MediaStage } from "./types.js";
import { decodeVector, encodeVector, extractVisual, hasVisualModels, type VisualModels, type VisualStage } from "./visual-stage.js";
import { graphNote, runGraphStage, type GraphSettings } from "./graph-stage.js";
import { imageSpace, textSpace } from "./vector-spaces.js";
import { framesInClip, templateCaption, visualSegments } from "./visual-words.js";

/** What media ingest needs, passed in so the pipeline can run with any providers. */
export interface MediaIngestContext {
  store: Store;
  /** Reads screen text and bitmap subtitles; undefined turns both off. */
  ocr?: OcrEngine;
  /** Speech recognition for videos without subtitles; undefined turns it off. */
  transcriber?: Transcriber;
  clipSeconds: number;
  /** Longest stretch without a sampled frame (keyframes are sampled too). */
  frameGapSeconds: number;
  /** Where temporary audio goes. */
  tempDir: string;
  /** Detector, tagger, image-text encoder and captioner over sampled frames; all optional. */
  visual?: VisualModels;
  /** Dense text vectors per clip; optional. */
  textEmbedder?: TextEmbedder;
  /** How the knowledge graph is read from the clips: a language model when given, the lite extractor otherwise. */
  graph: GraphSettings;
}

interface SubtitleStage {
  source: string;
  detail: string;
  cues: { startSecond: number; endSecond: number; text: string }[];
}
interface SpeechStage {
  segments: TranscriptSegment[];
  warnings: Warning[];
}
interface ScreenStage {
  segments: Segment[];
  frames: { timeSecond: number; hash: string }[];
  ocrCount: number;
}

/** Same frame, give or take compression noise, when the 64-bit hashes differ in at most this many bits. */
const sameFrameBits = 6;

function stageKey(settings: unknown): string {
  return createHash("sha256").update(JSON.stringify(settings)).digest("hex").slice(0, 16);
}

/** The normalised mean of a clip's frame vectors: the clip's place in image-text space. */
function meanVector(vectors: Float32Array[]): Float32Array | undefined {
  const first = vectors[0];
  if (!first) return undefined;
  const mean = new Float32Array(first.length);
  for (const vector of vectors) for (let index = 0; index < mean.length; index++) mean[index] = (mean[index] ?? 0) + (vector[index] ?? 0);
  const norm = Math.hypot(...mean) || 1;
  return mean.map((value) => value / norm);
}

/** The clip that holds a second, or the last one. */
function clipIndexAt(clips: ClipSpan[], second: number): number {
  return (clips.find((clip) => second >= clip.startSecond && second < clip.endSecond) ?? clips.at(-1))?.index ?? 0;
}

/** Ingests one media file; never throws for bad input (the result says why), only for cancellation. */
export async function ingestMediaFile(
  context: MediaIngestContext,
  path: string,
  emit: (event: IngestEvent) => void,
  signal?: AbortSignal,
): Promise<IngestResult> {
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
    const existing = context.store.getVideo(videoId);
    if (existing && context.store.getFingerprint(videoId) === fingerprint) {
      return { ...result, status: "unchanged", durationSeconds: existing.durationSeconds, clipCount: existing.clipCount };
    }

    const saved = new Map<string, StageRecord>(context.store.loadStages(videoId).map((record) => [record.stage, record]));
    const id = videoId;
    const runStage = async <T>(stage: MediaStage, settings: unknown, work: () => Promise<T>): Promise<T> => {
      signal?.throwIfAborted();
      const key = stageKey(settings);
      const previous = saved.get(stage);
      if (previous && previous.key === key) {
        emit({ type: "stage-done", path, stage, seconds: 0, resumed: true });
        result.stageSeconds[stage] = 0;
        return previous.output as T;
      }
      emit({ type: "stage-start", path, stage });
      const started = performance.now();
      const output = await work();
      context.store.saveStage(id, { stage, key, output });
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

    const ocr = context.ocr;
    const subtitles = await runStage<SubtitleStage>("subtitles", { version: 1, ocr: ocr?.id ?? null }, async () => {
      const found = await readSubtitles(path, media, {
        signal,
        recognize: ocr
          ? async (image: Buffer) =>
              (await ocr.recognize({ data: image, mimeType: "image/png" }, { mode: "subtitle", signal }))
                .map((line) => line.text)
                .join(" ")
          : undefined,
      });
      return { source: found.source, detail: found.detail, cues: found.cues };
    });
    if (subtitles.cues.length > 0) result.notes.push(`subtitles: ${subtitles.source} (${subtitles.detail})`);
    const bitmapOnly = media.subtitleStreams.some((stream) => stream.kind === "bitmap") && !ocr;
    if (bitmapOnly && subtitles.cues.length === 0) {
      result.warnings.push({ type: "skipped", feature: "bitmap-subtitles", detail: `${basename(path)}: OCR is off, bitmap subtitles not read` });
    }

    const transcriber = subtitles.cues.length === 0 && media.hasAudio ? context.transcriber : undefined;
    const speech = await runStage<SpeechStage>("speech", { version: 1, transcriber: transcriber?.id ?? null }, async () => {
      if (!transcriber) return { segments: [], warnings: [] };
      const scratch = await mkdtemp(join(context.tempDir, "audio-"));
      try {
        const wavPath = join(scratch, "audio.wav");
        await extractAudio(path, wavPath, { signal });
        const transcript = await transcriber.transcribe(wavPath, {
          signal,
          onProgress: (done, total) => emit({ type: "stage-progress", path, stage: "speech", fraction: total > 0 ? done / total : 0 }),
        });
        return { segments: transcript.segments, warnings: transcript.warnings };
      } finally {
        await rm(scratch, { recursive: true, force: true });
      }
    });
    result.warnings.push(...speech.warnings);
    if (transcriber) result.notes.push(`speech: ${transcriber.id} (${speech.segments.length} segments)`);
    if (!media.hasAudio && subtitles.cues.length === 0) {
      result.warnings.push({ type: "skipped", feature: "speech", detail: `${basename(path)}: no audio stream and no subtitles, only what is shown is indexed` });
    } else if (media.hasAudio && subtitles.cues.length === 0 && !context.transcriber) {
      result.warnings.push({ type: "skipped", feature: "speech", detail: `${basename(path)}: speech recognition is off and there are no subtitles` });
    }

    const screenSettings = { version: 1, ocr: ocr?.id ?? null, frameGapSeconds: context.frameGapSeconds };
    const screen = await runStage<ScreenStage>("screen-text", screenSettings, async () => {
      // Frames are sampled here to be read; with OCR off there is nothing to read them for.
      if (!media.hasVideo || !ocr) return { segments: [], frames: [], ocrCount: 0 };
      const frames = await sampleFrames(path, {
        maxGapSeconds: context.frameGapSeconds,
        durationSeconds: media.durationSeconds,
        signal,
      });
      const hashes = frames.map((frame) => frameHash(frame.thumbnail));
      // OCR only frames that differ from the last one read: a slide left up for a minute is read once.
      const representative: number[] = [];
      let last = -1;
      hashes.forEach((hash, index) => {
        if (last === -1 || hashDistance(hash, hashes[last] ?? "") > sameFrameBits) last = index;
        representative.push(last);
      });
      const distinct = [...new Set(representative)];
      let done = 0;
      const read = await mapConcurrent(
        distinct,
        ocr.capabilities.maxConcurrency,
        async (index) => {
          const frame = frames[index];
          const lines = frame ? await ocr.recognize({ data: frame.image, mimeType: "image/png", timeSecond: frame.timeSecond }, { mode: "screen", signal }) : [];
          done++;
          emit({ type: "stage-progress", path, stage: "screen-text", fraction: done / distinct.length });
          return lines.map((line) => line.text);
        },
        signal,
      );
      const linesByFrame = new Map(distinct.map((index, position) => [index, read[position] ?? []]));
      const frameTexts: FrameText[] = frames.map((frame, index) => ({
        timeSecond: frame.timeSecond,
        lines: linesByFrame.get(representative[index] ?? index) ?? [],
      }));
      return {
        segments: mergeScreenText(frameTexts, media.durationSeconds),
        frames: frames.map((frame, index) => ({ timeSecond: frame.timeSecond, hash: hashes[index] ?? "" })),
        ocrCount: distinct.length,
      };
    });
    if (ocr && media.hasVideo) result.notes.push(`screen text: ${screen.frames.length} frames sampled, ${screen.ocrCount} read by ${ocr.id}`);

    const clips = planClips(media.durationSeconds, context.clipSeconds);
    const textSegments: Segment[] = [
      ...subtitles.cues.map((cue) => ({ ...cue, source: "subtitle" as const })),
      ...speech.segments.map((segment) => ({ startSecond: segment.startSecond, endSecond: segment.endSecond, text: segment.text, source: "speech" as const })),
      ...screen.segments,
    ].sort((a, b) => a.startSecond - b.startSecond);
    const textDocuments = buildClipDocuments(id, clips, textSegments);

    const visualModels = context.visual;
    const visualSettings = {
      version: 1,
      detector: visualModels?.detector?.id ?? null,
      tagger: visualModels?.tagger?.id ?? null,
      imageText: visualModels?.imageText?.id ?? null,
      vision: visualModels?.vision?.id ?? null,
      everySeconds: visualModels?.everySeconds ?? null,
      clipSeconds: context.clipSeconds,
    };
    const visual = await runStage<VisualStage>("visual", visualSettings, async () =>
      visualModels && hasVisualModels(visualModels)
        ? extractVisual(
            path,
            media,
            clips,
            (clip) => textDocuments[clip.index]?.transcript ?? "",
            visualModels,
            (fraction) => emit({ type: "stage-progress", path, stage: "visual", fraction }),
            signal,
          )
        : { frames: [], frameVectors: [], captions: [] },
    );
    const everySeconds = visualModels?.everySeconds ?? 2;
    const vlmCaptions = new Map(visual.captions.map((caption) => [caption.clipIndex, caption.text]));
    const captionSegments: Segment[] = clips.flatMap((clip) => {
      const text = vlmCaptions.get(clip.index) ?? templateCaption(framesInClip(visual.frames, clip), textDocuments[clip.index]?.screen ?? "");
      return text ? [{ startSecond: clip.startSecond, endSecond: clip.endSecond, text, source: "caption" as const }] : [];
    });
    if (visual.frames.length > 0) {
      const models = [visualModels?.detector?.id, visualModels?.tagger?.id, visualModels?.imageText?.id].filter(Boolean).join(", ");
      result.notes.push(`visual: ${visual.frames.length} frames (one every ${everySeconds} s) by ${models}`);
    }
    if (visual.captions.length > 0) result.notes.push(`captions: ${visual.captions.length} clips by ${visualModels?.vision?.id}`);
    else if (captionSegments.length > 0) result.notes.push(`captions: ${captionSegments.length} clips from templates (no vision-language model)`);

    const segments: Segment[] = [...textSegments, ...visualSegments(visual.frames, everySeconds, media.durationSeconds), ...captionSegments].sort(
      (a, b) => a.startSecond - b.startSecond,
    );
    const documents = buildClipDocuments(id, clips, segments);

    const embedder = context.textEmbedder;
    const clipTexts = documents.map((document) => [document.visual, document.transcript, document.screen].filter(Boolean).join("\n"));
    const embeddingSettings = { version: 1, embedder: embedder?.id ?? null, texts: stageKey(clipTexts) };
    const embeddings = await runStage<{ clipIndex: number; vector: string }[]>("embeddings", embeddingSettings, async () => {
      if (!embedder) return [];
      const wanted = documents.filter((_, index) => clipTexts[index]?.trim());
      const vectors = await embedder.embed(wanted.map((document) => clipTexts[document.index] ?? ""), { signal });
      return wanted.map((document, index) => ({ clipIndex: document.index, vector: encodeVector(vectors[index] ?? new Float32Array()) }));
    });
    if (embedder && embeddings.length > 0) result.notes.push(`text vectors: ${embeddings.length} clips by ${embedder.id}`);

    const vectors: VectorRecord[] = embeddings.map((entry) => ({
      space: textSpace({ id: embedder?.id ?? "" }),
      owner: "clip" as const,
      videoId: id,
      clipIndex: entry.clipIndex,
      vector: decodeVector(entry.vector),
    }));
    const frameSpace = imageSpace({ id: visualModels?.imageText?.id ?? "" });
    if (visual.frameVectors.length > 0) {
      const frameVectors = visual.frameVectors.map(decodeVector);
      visual.frames.forEach((frame, index) => {
        const vector = frameVectors[index];
        if (vector) vectors.push({ space: frameSpace, owner: "frame", videoId: id, clipIndex: clipIndexAt(clips, frame.timeSecond), timeSecond: frame.timeSecond, vector });
      });
      for (const clip of clips) {
        const mean = meanVector(frameVectors.filter((_, index) => clipIndexAt(clips, visual.frames[index]?.timeSecond ?? -1) === clip.index));
        if (mean) vectors.push({ space: frameSpace, owner: "clip", videoId: id, clipIndex: clip.index, vector: mean });
      }
    }

    const graph = await runGraphStage(context.graph, documents, runStage, {
      signal,
      onProgress: (fraction) => emit({ type: "stage-progress", path, stage: "graph", fraction }),
    });
    result.notes.push(graphNote(graph));

    signal?.throwIfAborted();
    emit({ type: "stage-start", path, stage: "commit" });
    const started = performance.now();
    context.store.commitVideo({
      video: {
        id,
        path,
        title: basename(path),
        durationSeconds: media.durationSeconds,
        kind: "media",
        sizeBytes: media.sizeBytes,
        width: media.width,
        height: media.height,
        hasAudio: media.hasAudio,
        hasVideo: media.hasVideo,
        timesEstimated: false,
      },
      clips: documents,
      segments,
      frames: screen.frames,
      vectors,
      graph,
      fingerprint,
    });
    result.stageSeconds.commit = (performance.now() - started) / 1000;
    emit({ type: "stage-done", path, stage: "commit", seconds: result.stageSeconds.commit, resumed: false });
    if (segments.length === 0) {
      result.warnings.push({ type: "degraded", feature: "text", detail: `${basename(path)}: no subtitles, speech, screen text or visual words found; nothing to search in it yet` });
    }
    return { ...result, status: "ingested", clipCount: clips.length };
  } catch (error) {
    if (signal?.aborted) throw error;
    const failure = toVideoRagError(error);
    // Bad input leaves nothing behind; a missing tool or a crash keeps finished stages for the next run.
    if (videoId && failure.code.startsWith("INPUT_")) context.store.discardStages(videoId);
    return { ...result, status: "failed", error: { code: failure.code, message: failure.message } };
  }
}
