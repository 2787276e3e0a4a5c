// Frames of a moment for a vision-language model, chosen rather than spaced: the span is sampled densely, the frames
// clustered with k-means++ over image-text vectors (or colour and edge histograms with no encoder), and of the key
// frames those that best match the question are kept. A long static stretch then costs one frame, not most of them.

import { encodeJpeg, frameFeatures, sampleRgbFrames } from "../media/index.js";
import { selectFramesForQuery } from "../retrieval/index.js";
import type { ImageInput, ImageTextEncoder, RgbImage } from "../spec/index.js";

export interface ClipFramesOptions {
  /** Frames wanted. */
  count: number;
  /** What the frames should show; matched in image-text space when an encoder is given. */
  question: string;
  imageText?: ImageTextEncoder;
  /** Longest side of the frames handed over; default 512. */
  maxSide?: number;
  signal?: AbortSignal;
}

/** Frames sampled per frame wanted, so the clustering has a choice; capped for long spans. */
const candidatesPerFrame = 4;
const maxCandidates = 120;

/** JPEG frames of [startSecond, endSecond) in time order; empty when the source has no pictures (or is gone). */
export async function selectClipFrames(path: string, startSecond: number, endSecond: number, options: ClipFramesOptions): Promise<ImageInput[]> {
  const maxSide = options.maxSide ?? 512;
  const span = Math.max(1, endSecond - startSecond);
  const wanted = Math.min(maxCandidates, options.count * candidatesPerFrame);
  const frames: RgbImage[] = [];
  for await (const frame of sampleRgbFrames(path, { everySeconds: Math.max(0.25, span / wanted), startSecond, endSecond, maxSide, signal: options.signal })) {
    frames.push(frame);
    if (frames.length >= wanted) break;
  }
  if (frames.length === 0) return [];
  const { imageText, signal } = options;
  const vectors = imageText ? await imageText.embedImages(frames, { signal }) : frames.map(frameFeatures);
  const [queryVector] = imageText ? await imageText.embedTexts([options.question], { signal }) : [undefined];
  const chosen = selectFramesForQuery(
    frames.map((frame, index) => ({ frame, timeSecond: frame.timeSecond ?? startSecond, vector: vectors[index] ?? new Float32Array() })),
    options.count,
    queryVector,
  );
  const images: ImageInput[] = [];
  for (const { frame, timeSecond } of chosen) images.push({ data: await encodeJpeg(frame, { maxSide }), mimeType: "image/jpeg", timeSecond });
  return images;
}
