import assert from "node:assert/strict";
import { test } from "node:test";
import { frameFeatures } from "../media/index.js";
import { VideoRagError, type RgbImage } from "../spec/index.js";
import { kMeansPlusPlus, selectFramesForQuery, selectKeyFrames, uniformFrames } from "./frame-selection.js";

/** A 64×48 frame: a solid colour, a horizontal gradient or a checkerboard. */
function picture(kind: "red" | "gradient" | "checker", timeSecond: number): RgbImage {
  const width = 64;
  const height = 48;
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const offset = (y * width + x) * 3;
      if (kind === "red") data.set([200, 20, 20], offset);
      else if (kind === "gradient") data.set([0, 0, Math.round((x / width) * 255)], offset);
      else data.set(((x >> 3) + (y >> 3)) % 2 === 0 ? [255, 255, 255] : [0, 0, 0], offset);
    }
  }
  return { width, height, data, timeSecond };
}

/** 20 s of a red scene, 3 s of a blue gradient, 2 s of a checkerboard: the short scenes are what uniform sampling misses. */
function unevenVideo(): { timeSecond: number; vector: Float32Array; scene: string }[] {
  const scenes: ["red" | "gradient" | "checker", number][] = [["red", 20], ["gradient", 3], ["checker", 2]];
  const frames: { timeSecond: number; vector: Float32Array; scene: string }[] = [];
  for (const [scene, seconds] of scenes) {
    for (let second = 0; second < seconds; second++) frames.push({ timeSecond: frames.length, vector: frameFeatures(picture(scene, frames.length)), scene });
  }
  return frames;
}

test("k-means++ recovers well-separated clusters, the same way for the same seed", () => {
  const points = [0, 10, 20].flatMap((centre) => Array.from({ length: 6 }, (_, index) => Float32Array.from([centre + index * 0.1, centre - index * 0.1])));
  const first = kMeansPlusPlus(points, 3, { seed: 7 });
  const again = kMeansPlusPlus(points, 3, { seed: 7 });
  assert.deepEqual(first.assignments, again.assignments);
  for (let group = 0; group < 3; group++) {
    const members = first.assignments.slice(group * 6, group * 6 + 6);
    assert.equal(new Set(members).size, 1, `points around ${group * 10} share one cluster`);
  }
  assert.equal(new Set(first.assignments).size, 3);
  assert.equal(kMeansPlusPlus(points.slice(0, 1), 4).centroids.length, 1, "k is clamped to the distinct points");
});

test("key frames cover each scene once where uniform sampling spends its frames on the long one", () => {
  const frames = unevenVideo();
  const keys = selectKeyFrames(frames, 3);
  assert.deepEqual(keys.map((frame) => frame.scene), ["red", "gradient", "checker"]);
  const uniform = uniformFrames(frames, 3);
  assert.ok(new Set(uniform.map((frame) => frame.scene)).size < 3, `uniform: ${uniform.map((frame) => frame.scene).join(", ")}`);
});

test("for a question, the key frames closest to the query vector are chosen; without one, the largest scenes", () => {
  const frames = unevenVideo();
  const checkerQuery = frameFeatures(picture("checker", 0));
  const [best] = selectFramesForQuery(frames, 1, checkerQuery, { candidates: 3 });
  assert.equal(best?.scene, "checker");
  const [largest] = selectFramesForQuery(frames, 1, undefined, { candidates: 3 });
  assert.equal(largest?.scene, "red");
  assert.equal(selectFramesForQuery(frames, 40, checkerQuery).length, frames.length, "all frames when fewer than asked");
});

test("every assignment names the nearest returned centroid, also when the iterations run out", () => {
  // Overlapping clouds take more than one Lloyd step to settle, so one iteration stops early.
  let state = 12345;
  const noise = (): number => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648) * 4;
  const points = Array.from({ length: 200 }, (_, index) => Float32Array.from([noise() + (index % 3), noise() - (index % 5)]));
  for (const maxIterations of [1, 25]) {
    const { centroids, assignments } = kMeansPlusPlus(points, 6, { seed: 3, maxIterations });
    assert.equal(centroids.length, 6);
    points.forEach((point, index) => {
      const distances = centroids.map((centroid) => (centroid[0]! - point[0]!) ** 2 + (centroid[1]! - point[1]!) ** 2);
      assert.equal(distances[assignments[index] ?? -1], Math.min(...distances), `point ${index} after ${maxIterations} iterations`);
    });
  }
});

test("vectors of mixed dimensions and counts that are not whole numbers are refused", () => {
  const invalid = (error: unknown): boolean => error instanceof VideoRagError && error.code === "ARGUMENT_INVALID";
  assert.throws(() => kMeansPlusPlus([Float32Array.from([1, 2]), Float32Array.from([1, 2, 3])], 2), invalid);
  assert.throws(() => selectKeyFrames(unevenVideo(), -1), invalid);
  assert.throws(() => uniformFrames(unevenVideo(), 2.5), invalid);
  assert.deepEqual(uniformFrames(unevenVideo(), 0), []);
});
