// Frame selection for long clips and whole videos (the corpus VideoRAG design): a vision-language model takes a dozen
// or so frames, and uniform sampling spends them on long static stretches while missing short scenes. Frame features
// (image-text vectors, or colour and edge histograms) are clustered with k-means++, the frame nearest each centroid is
// kept, and for a question the key frames that best match it are chosen.

import { VideoRagError } from "../spec/index.js";

/** A frame with its time and feature vector. */
export interface FeatureFrame {
  timeSecond: number;
  vector: Float32Array;
}

/** A small deterministic PRNG (mulberry32), so the same frames always give the same selection. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

function squaredDistance(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let index = 0; index < a.length; index++) {
    const difference = (a[index] ?? 0) - (b[index] ?? 0);
    sum += difference * difference;
  }
  return sum;
}

function nearest(vector: Float32Array, centroids: Float32Array[]): { index: number; distance: number } {
  let best = { index: 0, distance: Infinity };
  centroids.forEach((centroid, index) => {
    const distance = squaredDistance(vector, centroid);
    if (distance < best.distance) best = { index, distance };
  });
  return best;
}

/**
 * k-means with k-means++ seeding (each next seed drawn with probability proportional to its squared distance from the
 * seeds so far), then Lloyd iterations until no assignment changes or `maxIterations` (default 25) have run. k is
 * clamped to the number of distinct vectors; an emptied cluster is re-seeded with the point farthest from its centroid.
 * Each returned assignment is the nearest returned centroid. The same vectors and seed (default 1) give the same result.
 */
export function kMeansPlusPlus(
  vectors: Float32Array[],
  k: number,
  options: { seed?: number; maxIterations?: number } = {},
): { centroids: Float32Array[]; assignments: number[] } {
  checkCount("k", k);
  const dimensions = vectors[0]?.length ?? 0;
  const odd = vectors.findIndex((vector) => vector.length !== dimensions);
  if (odd !== -1) {
    throw new VideoRagError("ARGUMENT_INVALID", `k-means needs vectors of one dimension: vector ${odd} has ${vectors[odd]?.length}, not ${dimensions}`);
  }
  const next = random(options.seed ?? 1);
  const count = Math.min(k, countDistinct(vectors));
  if (count === 0) return { centroids: [], assignments: vectors.map(() => 0) };
  const centroids: Float32Array[] = [Float32Array.from(vectors[Math.floor(next() * vectors.length)] ?? [])];
  const distances = vectors.map((vector) => squaredDistance(vector, centroids[0] ?? vector));
  while (centroids.length < count) {
    const total = distances.reduce((sum, distance) => sum + distance, 0);
    let target = next() * total;
    let chosen = distances.findIndex((distance) => (target -= distance) <= 0 && distance > 0);
    if (chosen === -1) chosen = distances.indexOf(Math.max(...distances));
    const seed = Float32Array.from(vectors[chosen] ?? []);
    centroids.push(seed);
    vectors.forEach((vector, index) => (distances[index] = Math.min(distances[index] ?? Infinity, squaredDistance(vector, seed))));
  }
  let assignments = vectors.map((vector) => nearest(vector, centroids).index);
  for (let iteration = 0; iteration < (options.maxIterations ?? 25); iteration++) {
    const sums = centroids.map(() => new Float64Array(dimensions));
    const sizes = centroids.map(() => 0);
    vectors.forEach((vector, index) => {
      const cluster = assignments[index] ?? 0;
      sizes[cluster] = (sizes[cluster] ?? 0) + 1;
      const sum = sums[cluster];
      if (sum) for (let d = 0; d < dimensions; d++) sum[d] = (sum[d] ?? 0) + (vector[d] ?? 0);
    });
    const reseeded = new Set<number>();
    centroids.forEach((_, cluster) => {
      const size = sizes[cluster] ?? 0;
      if (size > 0) {
        centroids[cluster] = Float32Array.from(sums[cluster] ?? [], (value) => value / size);
        return;
      }
      // An empty cluster takes the point worst served by its own centroid; two emptied at once take different points.
      let farthest = -1;
      let worst = -1;
      vectors.forEach((vector, index) => {
        if (reseeded.has(index)) return;
        const distance = squaredDistance(vector, centroids[assignments[index] ?? 0] ?? vector);
        if (distance > worst) [worst, farthest] = [distance, index];
      });
      reseeded.add(farthest);
      centroids[cluster] = Float32Array.from(vectors[farthest] ?? []);
    });
    const moved = vectors.map((vector) => nearest(vector, centroids).index);
    const changed = moved.some((cluster, index) => cluster !== assignments[index]);
    assignments = moved;
    if (!changed) break;
  }
  return { centroids, assignments };
}

/** How many different vectors there are, comparing their bytes. */
function countDistinct(vectors: Float32Array[]): number {
  return new Set(vectors.map((vector) => Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString("base64"))).size;
}

function checkCount(name: string, count: number): void {
  if (!(Number.isInteger(count) && count >= 0)) throw new VideoRagError("ARGUMENT_INVALID", `${name} must be a whole number >= 0, not ${count}`);
}

/** One frame per cluster (the nearest its centroid), with the cluster's size; by time. */
function keyFrames<T extends FeatureFrame>(frames: T[], count: number, seed?: number): { frame: T; size: number }[] {
  const { centroids, assignments } = kMeansPlusPlus(frames.map((frame) => frame.vector), count, { seed });
  return centroids
    .flatMap((centroid, cluster) => {
      const members = frames.filter((_, index) => assignments[index] === cluster);
      if (members.length === 0) return [];
      const best = members.reduce((a, b) => (squaredDistance(a.vector, centroid) <= squaredDistance(b.vector, centroid) ? a : b));
      return [{ frame: best, size: members.length }];
    })
    .sort((a, b) => a.frame.timeSecond - b.frame.timeSecond);
}

/** The frame nearest each of `count` k-means++ centroids, in time order; all frames when there are no more than `count`. */
export function selectKeyFrames<T extends FeatureFrame>(frames: T[], count: number, options: { seed?: number } = {}): T[] {
  checkCount("count", count);
  if (frames.length <= count) return [...frames].sort((a, b) => a.timeSecond - b.timeSecond);
  return keyFrames(frames, count, options.seed).map((entry) => entry.frame);
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let index = 0; index < a.length; index++) {
    dot += (a[index] ?? 0) * (b[index] ?? 0);
    normA += (a[index] ?? 0) ** 2;
    normB += (b[index] ?? 0) ** 2;
  }
  return normA > 0 && normB > 0 ? dot / Math.sqrt(normA * normB) : 0;
}

/**
 * `count` frames for a question: the key frames of `candidates` clusters (default twice `count`), then those most
 * similar to the query vector when it is in the frames' space, else those of the largest clusters; in time order.
 */
export function selectFramesForQuery<T extends FeatureFrame>(
  frames: T[],
  count: number,
  queryVector: Float32Array | undefined,
  options: { candidates?: number; seed?: number } = {},
): T[] {
  checkCount("count", count);
  if (frames.length <= count) return [...frames].sort((a, b) => a.timeSecond - b.timeSecond);
  const keys = keyFrames(frames, Math.max(count, options.candidates ?? count * 2), options.seed);
  const comparable = queryVector !== undefined && queryVector.length === frames[0]?.vector.length;
  const ranked = comparable
    ? keys.map((entry) => ({ ...entry, score: cosine(entry.frame.vector, queryVector) }))
    : keys.map((entry) => ({ ...entry, score: entry.size }));
  return ranked
    .sort((a, b) => b.score - a.score || a.frame.timeSecond - b.frame.timeSecond)
    .slice(0, count)
    .map((entry) => entry.frame)
    .sort((a, b) => a.timeSecond - b.timeSecond);
}

/** `count` frames evenly spaced through the list, for comparison. */
export function uniformFrames<T>(frames: T[], count: number): T[] {
  checkCount("count", count);
  if (frames.length <= count) return [...frames];
  return Array.from({ length: count }, (_, index) => frames[Math.floor(((index + 0.5) * frames.length) / count)] as T);
}
