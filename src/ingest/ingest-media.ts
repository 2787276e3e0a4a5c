// Ingest of one media file as resumable stages: probe → subtitles → speech → screen text → commit.
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
import type { OcrEngine, Segment, StageRecord, Store, Transcriber, TranscriptSegment, Warning } from "../spec/index.js";
import { buildClipDocuments } from "./clip-documents.js";
import { hashFile, videoIdFromHash } from "./content-id.js";
import { mapConcurrent } from "./map-concurrent.js";
import { mergeScreenText, type FrameText } from "./screen-text.js";
import type { IngestEvent, IngestResult, MediaStage } from "./types.js";

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
      result.warnings.push({ type: "skipped", feature: "speech", detail: `${basename(path)}: no audio stream and no subtitles, only screen text is indexed` });
    } else if (media.hasAudio && subtitles.cues.length === 0 && !context.transcriber) {
      result.warnings.push({ type: "skipped", feature: "speech", detail: `${basename(path)}: speech recognition is off and there are no subtitles` });
    }

    const screenSettings = { version: 1, ocr: ocr?.id ?? null, frameGapSeconds: context.frameGapSeconds };
    const screen = await runStage<ScreenStage>("screen-text", screenSettings, async () => {
      if (!media.hasVideo) return { segments: [], frames: [], ocrCount: 0 };
      const frames = await sampleFrames(path, {
        maxGapSeconds: context.frameGapSeconds,
        durationSeconds: media.durationSeconds,
        signal,
      });
      const hashes = frames.map((frame) => frameHash(frame.thumbnail));
      if (!ocr) return { segments: [], frames: frames.map((frame, index) => ({ timeSecond: frame.timeSecond, hash: hashes[index] ?? "" })), ocrCount: 0 };
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

    signal?.throwIfAborted();
    emit({ type: "stage-start", path, stage: "commit" });
    const started = performance.now();
    const segments: Segment[] = [
      ...subtitles.cues.map((cue) => ({ ...cue, source: "subtitle" as const })),
      ...speech.segments.map((segment) => ({ startSecond: segment.startSecond, endSecond: segment.endSecond, text: segment.text, source: "speech" as const })),
      ...screen.segments,
    ].sort((a, b) => a.startSecond - b.startSecond);
    const clips = planClips(media.durationSeconds, context.clipSeconds);
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
      clips: buildClipDocuments(id, clips, segments),
      segments,
      frames: screen.frames,
      fingerprint,
    });
    result.stageSeconds.commit = (performance.now() - started) / 1000;
    emit({ type: "stage-done", path, stage: "commit", seconds: result.stageSeconds.commit, resumed: false });
    if (segments.length === 0) {
      result.warnings.push({ type: "degraded", feature: "text", detail: `${basename(path)}: no subtitles, speech or screen text found; nothing to search in it yet` });
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
