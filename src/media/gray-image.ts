// 8-bit grayscale images as ffmpeg writes them raw: the few operations frame sampling and subtitle rendering need
// (shrink for hashing, crop and enlarge for OCR, PNG encoding), done here so ffmpeg spends its time decoding.

import { constants, deflate } from "node:zlib";
import { promisify } from "node:util";

/** Row-major 8-bit luminance, no padding between rows. */
export interface GrayImage {
  width: number;
  height: number;
  pixels: Uint8Array;
}

const deflateAsync = promisify(deflate);

/**
 * Averages the image down to `width` x `height` by boxes. Large images are read on a sparse grid (about 16 x 16 points
 * per box): plenty to tell frames apart, and it keeps hashing a 720p frame under a millisecond.
 */
export function shrinkGray(image: GrayImage, width: number, height: number): GrayImage {
  const sums = new Float64Array(width * height);
  const counts = new Uint32Array(width * height);
  const stepX = Math.max(1, Math.floor(image.width / (width * 16)));
  const stepY = Math.max(1, Math.floor(image.height / (height * 16)));
  for (let y = 0; y < image.height; y += stepY) {
    const rowBase = Math.min(height - 1, Math.floor((y * height) / image.height)) * width;
    const sourceBase = y * image.width;
    for (let x = 0; x < image.width; x += stepX) {
      const target = rowBase + Math.min(width - 1, Math.floor((x * width) / image.width));
      sums[target] = (sums[target] ?? 0) + (image.pixels[sourceBase + x] ?? 0);
      counts[target] = (counts[target] ?? 0) + 1;
    }
  }
  const pixels = new Uint8Array(width * height);
  for (let index = 0; index < pixels.length; index++) {
    pixels[index] = Math.round((sums[index] ?? 0) / Math.max(1, counts[index] ?? 0));
  }
  return { width, height, pixels };
}

/** The rectangle [left, left+width) x [top, top+height), clamped to the image. */
export function cropGray(image: GrayImage, left: number, top: number, width: number, height: number): GrayImage {
  const x0 = Math.max(0, Math.min(image.width, Math.floor(left)));
  const y0 = Math.max(0, Math.min(image.height, Math.floor(top)));
  const x1 = Math.max(x0, Math.min(image.width, Math.floor(left + width)));
  const y1 = Math.max(y0, Math.min(image.height, Math.floor(top + height)));
  const pixels = new Uint8Array((x1 - x0) * (y1 - y0));
  for (let y = y0; y < y1; y++) {
    pixels.set(image.pixels.subarray(y * image.width + x0, y * image.width + x1), (y - y0) * (x1 - x0));
  }
  return { width: x1 - x0, height: y1 - y0, pixels };
}

/** Enlarges by an integer factor with bilinear interpolation: smooth strokes read better than blocky ones. */
export function enlargeGray(image: GrayImage, factor: number): GrayImage {
  const width = image.width * factor;
  const height = image.height * factor;
  const pixels = new Uint8Array(width * height);
  const at = (x: number, y: number): number => image.pixels[y * image.width + x] ?? 0;
  for (let y = 0; y < height; y++) {
    const sourceY = Math.max(0, Math.min(image.height - 1, (y + 0.5) / factor - 0.5));
    const y0 = Math.floor(sourceY);
    const y1 = Math.min(image.height - 1, y0 + 1);
    const fy = sourceY - y0;
    for (let x = 0; x < width; x++) {
      const sourceX = Math.max(0, Math.min(image.width - 1, (x + 0.5) / factor - 0.5));
      const x0 = Math.floor(sourceX);
      const x1 = Math.min(image.width - 1, x0 + 1);
      const fx = sourceX - x0;
      const top = at(x0, y0) * (1 - fx) + at(x1, y0) * fx;
      const bottom = at(x0, y1) * (1 - fx) + at(x1, y1) * fx;
      pixels[y * width + x] = Math.round(top * (1 - fy) + bottom * fy);
    }
  }
  return { width, height, pixels };
}

/**
 * Encodes as an 8-bit grayscale PNG. Deflate runs on libuv's thread pool, so several frames encode at once, with
 * run-length matching only: on filtered rows it compresses nearly as well as a full search at a third of the time.
 */
export async function encodeGrayPng(image: GrayImage): Promise<Buffer> {
  const { width, height, pixels } = image;
  // Each row starts with its filter type; "Sub" (1) stores differences to the left neighbour, which flat
  // backgrounds and text edges compress well under.
  const filtered = Buffer.alloc((width + 1) * height);
  for (let y = 0; y < height; y++) {
    const rowStart = y * (width + 1);
    const source = y * width;
    filtered[rowStart] = 1;
    let left = 0;
    for (let x = 0; x < width; x++) {
      const value = pixels[source + x] ?? 0;
      filtered[rowStart + 1 + x] = (value - left) & 0xff;
      left = value;
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bits per sample
  header[9] = 0; // colour type: grayscale
  return Buffer.concat([
    pngSignature,
    pngChunk("IHDR", header),
    pngChunk("IDAT", await deflateAsync(filtered, { level: 1, strategy: constants.Z_RLE })),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
}

const pngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function pngChunk(type: string, data: Buffer): Buffer {
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  chunk.write(type, 4, "ascii");
  data.copy(chunk, 8);
  chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + data.length)), 8 + data.length);
  return chunk;
}

const crcTable = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = (crcTable[(crc ^ byte) & 0xff] ?? 0) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
