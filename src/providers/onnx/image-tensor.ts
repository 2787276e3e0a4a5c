// Turns RGB frames into the float tensors image models take: bilinear resizing, YOLOX's letterbox, and planar (NCHW)
// layout with channel order and normalisation per model. Done in TypeScript so no image library is needed.

import type { Detection, RgbImage } from "../../spec/index.js";

/** A rectangle in pixels of an image. */
export interface PixelRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PlanarTensorOptions {
  /** Tensor size; the image is placed at its top-left corner and the rest is `padValue`. Default: the image size. */
  tensorWidth?: number;
  tensorHeight?: number;
  /** Order of the three planes. */
  channelOrder: "rgb" | "bgr";
  /** Value of the padding, in 0..255 pixel units (before normalisation). Default 0. */
  padValue?: number;
  /** Maps pixel p (0..255) to (p / 255 - mean) / std per channel, in RGB order; without it values stay 0..255. */
  normalize?: { mean: readonly [number, number, number]; std: readonly [number, number, number] };
}

/** A letterboxed model input and the scale that maps input pixels back to the image's. */
export interface Letterbox {
  /** 3 planes of size × size floats. */
  tensor: Float32Array;
  /** Input pixels per image pixel. */
  scale: number;
}

/**
 * Resamples the `source` rectangle of `image` (default all of it) to `width` x `height` with bilinear interpolation,
 * sampling at pixel centres as OpenCV's INTER_LINEAR does.
 */
export function resizeBilinear(image: RgbImage, width: number, height: number, source?: PixelRect): RgbImage {
  const rect = source ?? { x: 0, y: 0, width: image.width, height: image.height };
  const out = new Uint8Array(width * height * 3);
  const rowBytes = image.width * 3;
  // Horizontal taps are the same on every row: computed once.
  const left = new Int32Array(width);
  const right = new Int32Array(width);
  const weightRight = new Float32Array(width);
  for (let x = 0; x < width; x++) {
    const sourceX = clamp(rect.x + ((x + 0.5) * rect.width) / width - 0.5, 0, image.width - 1);
    const x0 = Math.floor(sourceX);
    left[x] = x0 * 3;
    right[x] = Math.min(x0 + 1, image.width - 1) * 3;
    weightRight[x] = sourceX - x0;
  }
  const data = image.data;
  let target = 0;
  for (let y = 0; y < height; y++) {
    const sourceY = clamp(rect.y + ((y + 0.5) * rect.height) / height - 0.5, 0, image.height - 1);
    const y0 = Math.floor(sourceY);
    const top = y0 * rowBytes;
    const bottom = Math.min(y0 + 1, image.height - 1) * rowBytes;
    const weightBottom = sourceY - y0;
    for (let x = 0; x < width; x++) {
      const a = left[x] as number;
      const b = right[x] as number;
      const wx = weightRight[x] as number;
      for (let channel = 0; channel < 3; channel++) {
        const upper = (data[top + a + channel] as number) * (1 - wx) + (data[top + b + channel] as number) * wx;
        const lower = (data[bottom + a + channel] as number) * (1 - wx) + (data[bottom + b + channel] as number) * wx;
        out[target++] = Math.round(upper + (lower - upper) * weightBottom);
      }
    }
  }
  return { width, height, data: out };
}

/** The image in planar float layout (3 × height × width), for an NCHW tensor of batch 1. */
export function toPlanarTensor(image: RgbImage, options: PlanarTensorOptions): Float32Array {
  const tensorWidth = options.tensorWidth ?? image.width;
  const tensorHeight = options.tensorHeight ?? image.height;
  const planeSize = tensorWidth * tensorHeight;
  const tensor = new Float32Array(3 * planeSize);
  const copyWidth = Math.min(image.width, tensorWidth);
  const copyHeight = Math.min(image.height, tensorHeight);
  for (let channel = 0; channel < 3; channel++) {
    const plane = options.channelOrder === "rgb" ? channel : 2 - channel;
    const mean = options.normalize?.mean[channel] ?? 0;
    const std = options.normalize?.std[channel] ?? 1;
    const scale = options.normalize ? 1 / (255 * std) : 1;
    const offset = -mean / std;
    const planeStart = plane * planeSize;
    tensor.fill((options.padValue ?? 0) * scale + offset, planeStart, planeStart + planeSize);
    for (let y = 0; y < copyHeight; y++) {
      let source = y * image.width * 3 + channel;
      let target = planeStart + y * tensorWidth;
      for (let x = 0; x < copyWidth; x++) {
        tensor[target++] = (image.data[source] as number) * scale + offset;
        source += 3;
      }
    }
  }
  return tensor;
}

/**
 * YOLOX's input: the image scaled by min(size / width, size / height), placed at the top-left of a size × size canvas
 * of `padValue`, as BGR planes of 0..255 floats.
 */
export function letterbox(image: RgbImage, size: number, padValue: number): Letterbox {
  const scale = Math.min(size / image.width, size / image.height);
  // YOLOX truncates the scaled size (int() in its preprocessing); the boxes it was trained on follow that.
  const width = Math.max(1, Math.min(size, Math.floor(image.width * scale)));
  const height = Math.max(1, Math.min(size, Math.floor(image.height * scale)));
  const resized = width === image.width && height === image.height ? image : resizeBilinear(image, width, height);
  return {
    tensor: toPlanarTensor(resized, { tensorWidth: size, tensorHeight: size, channelOrder: "bgr", padValue }),
    scale,
  };
}

/** A box given by its corners in letterboxed input pixels, as fractions of the original image, clamped to 0..1. */
export function boxFromLetterbox(
  corners: { x1: number; y1: number; x2: number; y2: number },
  scale: number,
  imageWidth: number,
  imageHeight: number,
): Detection["box"] {
  const x1 = clamp(corners.x1 / scale / imageWidth, 0, 1);
  const y1 = clamp(corners.y1 / scale / imageHeight, 0, 1);
  const x2 = clamp(corners.x2 / scale / imageWidth, 0, 1);
  const y2 = clamp(corners.y2 / scale / imageHeight, 0, 1);
  return { x: x1, y: y1, width: Math.max(0, x2 - x1), height: Math.max(0, y2 - y1) };
}

/** The centred rectangle that a resize of the shorter side to `resizeTo` followed by a `cropTo` square crop keeps. */
export function centreCropRect(image: { width: number; height: number }, resizeTo: number, cropTo: number): PixelRect {
  const side = (Math.min(image.width, image.height) * cropTo) / resizeTo;
  return { x: (image.width - side) / 2, y: (image.height - side) / 2, width: side, height: side };
}

/** What is wrong with `image` as an RgbImage, or undefined when its size and data agree. */
export function rgbImageProblem(image: RgbImage): string | undefined {
  if (!(Number.isInteger(image.width) && Number.isInteger(image.height) && image.width > 0 && image.height > 0)) {
    return `an image needs a positive whole width and height, not ${image.width}x${image.height}`;
  }
  if (image.data.length !== image.width * image.height * 3) {
    return `a ${image.width}x${image.height} RGB image has ${image.width * image.height * 3} bytes, not ${image.data.length}`;
  }
  return undefined;
}

function clamp(value: number, low: number, high: number): number {
  return value < low ? low : value > high ? high : value;
}
