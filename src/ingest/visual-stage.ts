// The visual pass over a video: one frame every few seconds goes to the detector, the tagger and the image-text encoder,
// and each clip's frames (up to ten) with its transcript go to the vision-language model for a caption. One decode,
// frames streamed, so memory stays at one clip's frames.

import { encodeJpeg, sampleRgbFrames } from "../media/index.js";
import type { Detector, ImageTextEncoder, LanguageModel, RgbImage, Tagger, VectorRecord } from "../spec/index.js";
import { clipIndexAt, type ClipSpan } from "./clip-documents.js";
import { imageSpace } from "../spec/index.js";
import { frameLabels, objectEvidence, spreadEvenly, type FrameLabels } from "./visual-words.js";

export interface VisualModels {
  detector?: Detector;
  tagger?: Tagger;
  imageText?: ImageTextEncoder;
  /** A vision-language model that captions clips. */
  vision?: LanguageModel;
  everySeconds: number;
  /** Decode keyframes only (the light index's pass): each sampled time shows the keyframe before it. */
  keyframesOnly?: boolean;
}

export interface VisualStage {
  frames: FrameLabels[];
  /** Image-text vectors aligned with `frames`, float32 bytes in base64; empty without an encoder. */
  frameVectors: string[];
  /** Captions written by the vision-language model; empty without one. */
  captions: { clipIndex: number; text: string }[];
}

/** Frames per caption request, as the long-video design uses. */
export const captionFrames = 10;
/** Frames are decoded no larger than this: the detector works at 416, the encoders at 224. */
const frameMaxSide = 640;
/** Frames sent to the models per call. */
const frameBatch = 8;

export function encodeVector(vector: Float32Array): string {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString("base64");
}

export function decodeVector(text: string): Float32Array {
  const bytes = Buffer.from(text, "base64");
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

export function hasVisualModels(models: VisualModels): boolean {
  return Boolean(models.detector || models.tagger || models.imageText || models.vision);
}

function captionPrompt(clip: ClipSpan, transcript: string): string {
  const said = transcript.trim() ? `What is said during the clip:\n${transcript.trim().slice(0, 2000)}` : "Nothing is said during the clip.";
  return [
    `These are frames, in order, from a ${Math.round(clip.endSecond - clip.startSecond)}-second video clip.`,
    "Describe what is seen in 2 to 4 plain sentences: the people, objects, actions, place and any readable text.",
    "Say only what the frames or the speech show.",
    said,
  ].join("\n");
}

async function captionClip(model: LanguageModel, clip: ClipSpan, frames: RgbImage[], transcript: string, signal?: AbortSignal): Promise<string> {
  const chosen = spreadEvenly(frames, Math.min(captionFrames, model.capabilities.maxImages || captionFrames));
  const images = await Promise.all(chosen.map((frame) => encodeJpeg(frame, { maxSide: 512 })));
  const result = await model.chat(
    [
      {
        role: "user",
        content: [
          { type: "text", text: captionPrompt(clip, transcript) },
          ...images.map((data, index) => ({ type: "image" as const, image: { data, mimeType: "image/jpeg" as const, timeSecond: chosen[index]?.timeSecond } })),
        ],
      },
    ],
    { temperature: 0, maxTokens: 300, signal },
  );
  return result.text.trim();
}

/** The normalised mean of a clip's frame vectors: the clip's place in image-text space. */
export function meanVector(vectors: Float32Array[]): Float32Array | undefined {
  const first = vectors[0];
  if (!first) return undefined;
  const mean = new Float32Array(first.length);
  for (const vector of vectors) for (let index = 0; index < mean.length; index++) mean[index] = (mean[index] ?? 0) + (vector[index] ?? 0);
  const norm = Math.hypot(...mean) || 1;
  return mean.map((value) => value / norm);
}

/** A visual pass's image-text vectors as records: one per frame, in the clip that holds it, and each clip's mean. */
export function imageVectorRecords(encoder: Pick<ImageTextEncoder, "id">, videoId: string, clips: ClipSpan[], stage: VisualStage): VectorRecord[] {
  const space = imageSpace(encoder);
  const vectors = stage.frameVectors.map(decodeVector);
  const owners = stage.frames.map((frame) => clipIndexAt(clips, frame.timeSecond));
  const records: VectorRecord[] = [];
  stage.frames.forEach((frame, index) => {
    const vector = vectors[index];
    if (vector) records.push({ space, owner: "frame", videoId, clipIndex: owners[index] ?? 0, timeSecond: frame.timeSecond, vector });
  });
  for (const clip of clips) {
    const mean = meanVector(vectors.filter((_, index) => owners[index] === clip.index));
    if (mean) records.push({ space, owner: "clip", videoId, clipIndex: clip.index, vector: mean });
  }
  return records;
}

/** Runs the configured visual models over the frames of the given clips (from the first one's start to the last one's end). */
export async function extractVisual(
  path: string,
  media: { hasVideo: boolean; durationSeconds: number },
  clips: ClipSpan[],
  transcriptOf: (clip: ClipSpan) => string,
  models: VisualModels,
  onProgress: (fraction: number) => void,
  signal?: AbortSignal,
): Promise<VisualStage> {
  const stage: VisualStage = { frames: [], frameVectors: [], captions: [] };
  if (!media.hasVideo || !hasVisualModels(models)) return stage;
  let pending: RgbImage[] = [];
  let clipFrames: RgbImage[] = [];
  let clipPosition = 0;

  const analyse = async (batch: RgbImage[]): Promise<void> => {
    if (batch.length === 0) return;
    const detector = models.detector;
    const [detections, tags, vectors] = await Promise.all([
      // Weak boxes too: they confirm, in a neighbouring frame, an object that passed (see objectEvidence).
      detector ? detector.detect(batch, { minScore: objectEvidence.supportScore, signal }) : undefined,
      models.tagger ? models.tagger.tag(batch, { signal }) : undefined,
      models.imageText ? models.imageText.embedImages(batch, { signal }) : undefined,
    ]);
    batch.forEach((frame, index) => {
      const inputSize = detector?.capabilities.inputSize ?? Math.max(frame.width, frame.height);
      stage.frames.push(frameLabels(frame.timeSecond ?? 0, detections?.[index] ?? [], tags?.[index] ?? [], frame, inputSize));
      const vector = vectors?.[index];
      if (vector) stage.frameVectors.push(encodeVector(vector));
    });
    onProgress(Math.min(1, (batch.at(-1)?.timeSecond ?? 0) / Math.max(1, media.durationSeconds)));
  };

  const finishClip = async (): Promise<void> => {
    const clip = clips[clipPosition];
    if (models.vision && clip && clipFrames.length > 0) {
      const text = await captionClip(models.vision, clip, clipFrames, transcriptOf(clip), signal);
      if (text) stage.captions.push({ clipIndex: clip.index, text });
    }
    clipFrames = [];
    clipPosition++;
  };

  const startSecond = clips[0]?.startSecond ?? 0;
  const endSecond = Math.min(clips.at(-1)?.endSecond ?? media.durationSeconds, media.durationSeconds);
  if (!(endSecond > startSecond)) return stage;
  for await (const frame of sampleRgbFrames(path, { everySeconds: models.everySeconds, maxSide: frameMaxSide, startSecond, endSecond, keyframesOnly: models.keyframesOnly, signal })) {
    const time = frame.timeSecond ?? 0;
    while (clipPosition < clips.length - 1 && time >= (clips[clipPosition]?.endSecond ?? Infinity)) await finishClip();
    if (models.vision) clipFrames.push(frame);
    pending.push(frame);
    if (pending.length >= frameBatch) {
      await analyse(pending);
      pending = [];
    }
  }
  await analyse(pending);
  while (clipPosition < clips.length) await finishClip();
  return stage;
}
