// The deferred stages as data: each is a named, versioned unit with a settings key that runs on a set of clips and
// returns what it found per clip. Full ingest runs every stage on every clip; incremental ingest records them pending
// and question-time extraction runs some of them on a few clips. Either way the same code runs (extract-clips.ts).

import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { extractAudio, frameHash, grayFrameAt, hashDistance, sameScreen, sampleGapFrames } from "../media/index.js";
import { liteExtractorId } from "../graph/index.js";
import { chapterSegmentationId } from "../summary/index.js";
import { mapConcurrent } from "../providers/runtime/index.js";
import { VideoRagError } from "../spec/index.js";
import { identifyLanguage, tesseractLanguage } from "../text/index.js";
import type {
  ClipSignals,
  Diarizer,
  Frame,
  LanguageModel,
  OcrEngine,
  Segment,
  SegmentSource,
  TextEmbedder,
  Transcriber,
  VectorRecord,
  Video,
  Warning,
} from "../spec/index.js";
import type { ClipSpan } from "./clip-documents.js";
import type { GraphSettings } from "./graph-stage.js";
import { mergeScreenText, type FrameText } from "./screen-text.js";
import { extractVisual, hasVisualModels, imageVectorRecords, type VisualModels } from "./visual-stage.js";
import { framesInClip, templateCaption, visualSegments } from "./visual-words.js";

/** The deferred stages in the order they run on a clip: later ones read what earlier ones wrote. */
export const deferredStages = ["speech", "screen-text", "visual", "embeddings", "graph", "chapters", "speakers"] as const;
export type DeferredStage = (typeof deferredStages)[number];

/** Stages that read a clip's text: when an earlier stage rewrites it, these run again on that clip. */
export const derivedStages: readonly DeferredStage[] = ["embeddings", "graph", "chapters", "speakers"];

/** Same frame, give or take compression noise, when the 64-bit hashes differ in at most this many bits. */
export const sameFrameBits = 6;

/** The providers and settings deferred stages run with. */
export interface ExtractionSettings {
  /** Speech recognition for videos without subtitles; undefined turns it off. */
  transcriber?: Transcriber;
  /** Reads screen text; undefined turns it off. */
  ocr?: OcrEngine;
  /** The dense visual pass (a frame every `everySeconds`) and clip captions; undefined turns it off. */
  visual?: VisualModels;
  /** Dense text vectors per clip. */
  textEmbedder?: TextEmbedder;
  graph: GraphSettings;
  /** Writes chapter titles and one-line summaries; the lite titles when absent. */
  chapterModel?: LanguageModel;
  /** Splits recognised speech into speakers; speech keeps no speaker when absent (unless the transcriber gives them). */
  diarizer?: Diarizer;
  /** The number of speakers, when the user gives it (`--speakers N`); estimated otherwise. */
  speakers?: number;
  frameGapSeconds: number;
  /** Where temporary audio goes. */
  tempDir: string;
}

/** What a stage sees of one clip. */
export interface ClipInput {
  video: Video;
  clip: ClipSpan;
  signals: ClipSignals;
  /** The clip's segments as the earlier stages of this run left them. */
  segments: Segment[];
  /** Frames the light index sampled in the clip, with their hashes. */
  frames: Frame[];
}

/** What a stage found on one clip: segments it owns (replacing its earlier ones) and vectors. */
export interface ClipOutput {
  segments: Segment[];
  vectors: VectorRecord[];
  warnings: Warning[];
  /** Frames or audio read, for the summary. */
  work: number;
}

/** A deferred stage: which sources it owns, whether a video has work for it, and how to run it on clips. */
export interface ClipStage {
  name: Exclude<DeferredStage, "embeddings" | "graph" | "chapters" | "speakers">;
  version: number;
  /** The sources of the segments it writes; re-running it on a clip replaces exactly these. */
  sources: SegmentSource[];
  /** Hash of the models and settings behind its output. */
  settingsKey: string;
  /** Whether a model runs it at all; without one the stage is recorded done with nothing to do. */
  enabled: boolean;
  /** Whether a video has this kind of work (speech needs audio without subtitles, pictures need video). */
  appliesTo(video: Video, hasSubtitles: boolean): boolean;
  /** How many clips to run side by side. */
  concurrency: number;
  run(input: ClipInput, signal?: AbortSignal): Promise<ClipOutput>;
}

export function settingsKey(settings: unknown): string {
  return createHash("sha256").update(JSON.stringify(settings)).digest("hex").slice(0, 16);
}

const empty = (): ClipOutput => ({ segments: [], vectors: [], warnings: [], work: 0 });

/** Speech recognition on the speech the light index found in a clip, or on the whole clip where it found none. */
function speechStage(settings: ExtractionSettings): ClipStage {
  const transcriber = settings.transcriber;
  return {
    name: "speech",
    version: 1,
    sources: ["speech"],
    settingsKey: settingsKey({ version: 1, transcriber: transcriber?.id ?? null }),
    enabled: transcriber !== undefined,
    appliesTo: (video, hasSubtitles) => video.hasAudio && !hasSubtitles,
    concurrency: transcriber?.capabilities.maxConcurrency ?? 1,
    async run({ clip, signals, video }, signal) {
      if (!transcriber) return empty();
      // The clip owns the speech regions that start in it, however far they run on, so no word is cut at a boundary.
      const regions = signals.speechRegions;
      if (regions && regions.length === 0) return empty();
      const startSecond = regions ? Math.min(...regions.map(([start]) => start)) : clip.startSecond;
      const endSecond = Math.min(video.durationSeconds, regions ? Math.max(...regions.map(([, end]) => end)) : clip.endSecond);
      if (endSecond - startSecond < 0.1) return empty();
      // Speech in a language the transcriber does not hear would be indexed as gibberish in one it does: the clip's
      // speech stays unrecognised, with the reason, until a transcriber that hears it is configured (its key differs).
      const heard = transcriber.capabilities.languages;
      if (video.language && !heard.includes(video.language)) {
        throw new VideoRagError(
          "MODEL_NOT_FOUND",
          `${transcriber.id} hears ${heard.join(", ")} only and ${video.title} speaks ${video.language}: configure a transcriber that hears it (a multilingual Whisper model, models.transcriber)`,
          { subject: video.id },
        );
      }
      const scratch = await mkdtemp(join(settings.tempDir, "speech-"));
      try {
        const wavPath = join(scratch, "audio.wav");
        await extractAudio(video.path, wavPath, { startSecond, durationSeconds: endSecond - startSecond, signal });
        const transcript = await transcriber.transcribe(wavPath, { signal, scratchDir: scratch, ...(video.language ? { language: video.language } : {}) });
        return {
          segments: transcript.segments.map((segment) => ({
            startSecond: round(segment.startSecond + startSecond),
            endSecond: round(Math.min(endSecond, segment.endSecond + startSecond)),
            text: segment.text,
            source: "speech" as const,
            clipIndex: clip.index,
            // The transcriber's raw label ("A", "SPEAKER_00") is its call's, this clip's: kept as "<clip>:<label>" so
            // voices of different clips are not taken for one; the speakers stage names them per video.
            ...(segment.speaker === undefined ? {} : { speaker: `${clip.index}:${segment.speaker}` }),
          })),
          vectors: [],
          warnings: transcript.warnings,
          work: endSecond - startSecond,
        };
      } finally {
        await rm(scratch, { recursive: true, force: true });
      }
    },
  };
}

/** OCR of the clip's distinct pictures among the frames the light index sampled; text left up is kept once per clip. */
function screenTextStage(settings: ExtractionSettings): ClipStage {
  const ocr = settings.ocr;
  return {
    name: "screen-text",
    // 2: every keyframe decoded and screens told apart by their detail (`sameScreen`), not by the 64-bit hash, which
    // took slides of one layout for one picture and read one slide in seven.
    version: 2,
    sources: ["screen"],
    settingsKey: settingsKey({ version: 2, ocr: ocr?.id ?? null, frameGapSeconds: settings.frameGapSeconds }),
    enabled: ocr !== undefined,
    appliesTo: (video) => video.hasVideo,
    concurrency: 1,
    async run({ clip, frames: keyframes, video }, signal) {
      if (!ocr || !video.hasVideo) return empty();
      const clipEnd = Math.min(clip.endSecond, video.durationSeconds);
      // The light index kept the keyframes (times and hashes); they are decoded now with the stretches between them.
      const sampled = video.width && video.height
        ? await sampleGapFrames(video.path, {
            anchorSeconds: keyframes.map((frame) => frame.timeSecond),
            anchorsToo: true,
            startSecond: clip.startSecond,
            endSecond: clipEnd,
            maxGapSeconds: settings.frameGapSeconds,
            videoWidth: video.width,
            videoHeight: video.height,
            scratchDir: settings.tempDir,
            signal,
          })
        : [];
      // A keyframe that could not be decoded here keeps its hash and is read from the file if it is a new picture.
      const decodedNear = (second: number): boolean => sampled.some((frame) => Math.abs(frame.timeSecond - second) < 0.25);
      const frames: { timeSecond: number; hash?: string; image?: Buffer; detail?: Uint8Array }[] = [
        ...keyframes.filter((frame) => frame.timeSecond >= clip.startSecond && frame.timeSecond < clipEnd && !decodedNear(frame.timeSecond)),
        ...sampled.map((frame) => ({ timeSecond: frame.timeSecond, hash: frameHash(frame.thumbnail), image: frame.image, detail: frame.detail })),
      ].sort((a, b) => a.timeSecond - b.timeSecond);
      if (frames.length === 0) return empty();
      // Text in a known language is read with its pack first: read by every configured pack at once, Chinese and
      // Japanese come out in broken pieces. A video whose language nobody gave is read as configured, and if what
      // comes out is identified as another configured language, read again with that one first.
      let language = video.language;
      const linesByFrame = new Map<number, string[]>();
      const readFrame = async (index: number): Promise<string[]> => {
        const frame = frames[index] as (typeof frames)[number];
        const image = frame.image ?? (await grayFrameAt(video.path, frame.timeSecond, { signal }));
        const lines = await ocr.recognize(
          { data: image, mimeType: "image/png", timeSecond: frame.timeSecond },
          { mode: "screen", signal, ...(language ? { language } : {}) },
        );
        return lines.map((line) => line.text);
      };
      const read = async (indexes: number[]): Promise<void> => {
        const texts = await mapConcurrent(indexes, ocr.capabilities.maxConcurrency, readFrame, signal);
        indexes.forEach((index, position) => linesByFrame.set(index, texts[position] ?? []));
      };
      // First the pictures (by hash: a slide left up for a minute is read once, and so is a street scene where people
      // walk); then, where a picture showed text, each change of its words (by detail: slides of one layout hash alike).
      const pictures = firstOfRuns(frames.map((_, index) => index), (a, b) => differentHashes(frames[a], frames[b]));
      await read(pictures);
      if (!language) {
        const identified = await identifyLanguage([...linesByFrame.values()].flat());
        const code = identified ? tesseractLanguage(identified) : undefined;
        if (identified && code && ocr.capabilities.languages.includes(code) && code !== ocr.capabilities.languages[0]) {
          language = identified;
          await read(pictures.filter((index) => (linesByFrame.get(index) ?? []).length > 0));
        }
      }
      const withText = pictures.flatMap((start, position) => {
        if ((linesByFrame.get(start) ?? []).length === 0) return [];
        const run = frames.map((_, index) => index).slice(start, pictures[position + 1] ?? frames.length);
        return firstOfRuns(run, (a, b) => differentDetails(frames[a], frames[b])).slice(1);
      });
      await read(withText);
      // Every frame shows what the last frame read at or before it showed.
      let shown: string[] = [];
      const frameTexts: FrameText[] = frames.map((frame, index) => {
        shown = linesByFrame.get(index) ?? shown;
        return { timeSecond: frame.timeSecond, lines: shown };
      });
      return {
        segments: mergeScreenText(frameTexts, clipEnd).map((segment) => ({ ...segment, clipIndex: clip.index })),
        vectors: [],
        warnings: [],
        work: linesByFrame.size,
      };
    },
  };
}

interface ComparedFrame {
  hash?: string;
  detail?: Uint8Array;
}

/** The items that start a run: the first, then each that `differs` from the start of the run before it. */
function firstOfRuns(items: number[], differs: (item: number, start: number) => boolean): number[] {
  const starts: number[] = [];
  for (const item of items) {
    const start = starts.at(-1);
    if (start === undefined || differs(item, start)) starts.push(item);
  }
  return starts;
}

/** Another picture by the 64-bit hash; a frame without one counts as new. */
function differentHashes(a: ComparedFrame | undefined, b: ComparedFrame | undefined): boolean {
  return !a?.hash || !b?.hash || hashDistance(a.hash, b.hash) > sameFrameBits;
}

/** Other words on screen, by the frames' details; frames without details are taken as the same (their hash said so). */
function differentDetails(a: ComparedFrame | undefined, b: ComparedFrame | undefined): boolean {
  return a?.detail !== undefined && b?.detail !== undefined && !sameScreen(a.detail, b.detail);
}

/**
 * The dense visual pass on a clip: detector, tagger and image-text encoder on a frame every few seconds, and its caption
 * (the vision-language model's, from its frames and what was said, else a template from what passed and the screen text).
 */
function visualStage(settings: ExtractionSettings): ClipStage {
  const models = settings.visual;
  const withModels = models !== undefined && hasVisualModels(models);
  return {
    name: "visual",
    version: 2,
    sources: ["visual", "caption"],
    settingsKey: settingsKey({
      // 2: only objects and tags that hold up are indexed and captioned (visual-words.ts).
      version: 2,
      ocr: settings.ocr?.id ?? null,
      detector: models?.detector?.id ?? null,
      tagger: models?.tagger?.id ?? null,
      imageText: models?.imageText?.id ?? null,
      vision: models?.vision?.id ?? null,
      everySeconds: models?.everySeconds ?? null,
    }),
    // Without picture models a clip still gets a template caption from its screen text.
    enabled: withModels || settings.ocr !== undefined,
    appliesTo: (video) => video.hasVideo,
    concurrency: 1,
    async run({ clip, segments, video }, signal) {
      const transcript = segments.filter((segment) => segment.source === "subtitle" || segment.source === "speech" || segment.source === "transcript");
      const screen = segments.filter((segment) => segment.source === "screen").map((segment) => segment.text).join("\n");
      const visual =
        models && withModels
          ? await extractVisual(video.path, video, [clip], () => transcript.map((segment) => segment.text).join(" "), models, () => undefined, signal)
          : { frames: [], frameVectors: [], captions: [] };
      const everySeconds = models?.everySeconds ?? 2;
      const clipEnd = Math.min(clip.endSecond, video.durationSeconds);
      const caption = visual.captions[0]?.text ?? templateCaption(framesInClip(visual.frames, clip), screen);
      const output: ClipOutput = {
        segments: [
          ...visualSegments(visual.frames, everySeconds, clipEnd).map((segment) => ({ ...segment, clipIndex: clip.index })),
          ...(caption ? [{ startSecond: clip.startSecond, endSecond: clipEnd, text: caption, source: "caption" as const, clipIndex: clip.index }] : []),
        ],
        vectors: [],
        warnings: [],
        work: visual.frames.length,
      };
      const encoder = models?.imageText;
      if (encoder) output.vectors.push(...imageVectorRecords(encoder, video.id, [clip], visual));
      return output;
    },
  };
}

/** The stages that write segments, in the order they run; embeddings and the graph follow in extract-clips.ts. */
export function clipStages(settings: ExtractionSettings): ClipStage[] {
  return [speechStage(settings), screenTextStage(settings), visualStage(settings)];
}

/** The keys of the derived stages: a changed embedder or graph extractor re-runs only them. */
export function derivedStageKeys(settings: ExtractionSettings): Record<"embeddings" | "graph" | "chapters" | "speakers", string> {
  const { graph, textEmbedder } = settings;
  return {
    embeddings: settingsKey({ version: 1, embedder: textEmbedder?.id ?? null }),
    graph: settingsKey({
      version: 1,
      // The lite extractor has a version too: a library built by an older one re-extracts its graph.
      extractor: graph.model?.id ?? liteExtractorId,
      glean: graph.model ? graph.glean : null,
      embedder: graph.embedder?.id ?? null,
      chunkTokens: graph.chunkTokens,
    }),
    chapters: chapterStageKey(settings.chapterModel),
    // A speaker count given for one ingest is not part of the key: a later opening without it must not redo the work.
    speakers: settingsKey({ version: 1, diarizer: settings.diarizer?.id ?? null }),
  };
}

function round(second: number): number {
  return Math.round(second * 1000) / 1000;
}

/** The chapter stage's key: the segmentation's version and who titles the chapters. */
export function chapterStageKey(model: LanguageModel | undefined): string {
  return settingsKey({ version: 1, segmentation: chapterSegmentationId, titles: model?.id ?? "lite" });
}
