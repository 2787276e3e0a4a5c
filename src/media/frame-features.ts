// A model-free descriptor of a frame, for clustering frames when no image-text encoder is configured: a colour
// histogram (hue, saturation, value) and a histogram of edge orientations weighted by strength, each normalised, so two
// frames of one shot land close together and a cut lands far away.

import type { RgbImage } from "../spec/index.js";

const hueBins = 8;
const saturationBins = 4;
const valueBins = 4;
const orientationBins = 8;
/** Pixels read per axis at most; a descriptor this coarse needs no more, and it keeps a frame to a few milliseconds. */
const maxSamplesPerAxis = 160;

/** The descriptor: 128 colour bins then 16 edge bins (8 orientations × inner/outer half of the frame), L2-normalised. */
export function frameFeatures(image: RgbImage): Float32Array {
  const { width, height, data } = image;
  const colour = new Float32Array(hueBins * saturationBins * valueBins);
  const edges = new Float32Array(orientationBins * 2);
  const step = Math.max(1, Math.ceil(Math.max(width, height) / maxSamplesPerAxis));
  const columns = Math.floor((width - 1) / step);
  const rows = Math.floor((height - 1) / step);
  const grey = new Float32Array((columns + 1) * (rows + 1));
  for (let row = 0; row <= rows; row++) {
    for (let column = 0; column <= columns; column++) {
      const offset = (row * step * width + column * step) * 3;
      const red = (data[offset] ?? 0) / 255;
      const green = (data[offset + 1] ?? 0) / 255;
      const blue = (data[offset + 2] ?? 0) / 255;
      const max = Math.max(red, green, blue);
      const min = Math.min(red, green, blue);
      const chroma = max - min;
      let hue = 0;
      if (chroma > 0) {
        if (max === red) hue = ((green - blue) / chroma + 6) % 6;
        else if (max === green) hue = (blue - red) / chroma + 2;
        else hue = (red - green) / chroma + 4;
      }
      const saturation = max === 0 ? 0 : chroma / max;
      const h = Math.min(hueBins - 1, Math.floor((hue / 6) * hueBins));
      const s = Math.min(saturationBins - 1, Math.floor(saturation * saturationBins));
      const v = Math.min(valueBins - 1, Math.floor(max * valueBins));
      colour[(h * saturationBins + s) * valueBins + v] = (colour[(h * saturationBins + s) * valueBins + v] ?? 0) + 1;
      grey[row * (columns + 1) + column] = 0.299 * red + 0.587 * green + 0.114 * blue;
    }
  }
  // Sobel on the sampled grey image; the centre half of the frame and its border are kept apart, a coarse layout.
  for (let row = 1; row < rows; row++) {
    for (let column = 1; column < columns; column++) {
      const at = (r: number, c: number): number => grey[r * (columns + 1) + c] ?? 0;
      const gx = at(row - 1, column + 1) + 2 * at(row, column + 1) + at(row + 1, column + 1) - at(row - 1, column - 1) - 2 * at(row, column - 1) - at(row + 1, column - 1);
      const gy = at(row + 1, column - 1) + 2 * at(row + 1, column) + at(row + 1, column + 1) - at(row - 1, column - 1) - 2 * at(row - 1, column) - at(row - 1, column + 1);
      const magnitude = Math.hypot(gx, gy);
      if (magnitude < 0.1) continue;
      const angle = (Math.atan2(gy, gx) + Math.PI) % Math.PI;
      const bin = Math.min(orientationBins - 1, Math.floor((angle / Math.PI) * orientationBins));
      const inner = Math.abs(row / rows - 0.5) < 0.25 && Math.abs(column / columns - 0.5) < 0.25 ? 0 : 1;
      edges[inner * orientationBins + bin] = (edges[inner * orientationBins + bin] ?? 0) + magnitude;
    }
  }
  const normaliseL1 = (values: Float32Array): void => {
    const sum = values.reduce((total, value) => total + value, 0);
    if (sum > 0) for (let index = 0; index < values.length; index++) values[index] = (values[index] ?? 0) / sum;
  };
  normaliseL1(colour);
  normaliseL1(edges);
  const features = new Float32Array(colour.length + edges.length);
  features.set(colour, 0);
  features.set(edges, colour.length);
  const norm = Math.hypot(...features) || 1;
  for (let index = 0; index < features.length; index++) features[index] = (features[index] ?? 0) / norm;
  return features;
}
