import assert from "node:assert/strict";
import { test } from "node:test";
import { needsShared, sharedPath } from "../test-support/shared.js";
import { frameFeatures } from "./frame-features.js";
import { sampleRgbFrames } from "./rgb-frames.js";

const distance = (a: Float32Array, b: Float32Array): number => Math.sqrt(a.reduce((sum, value, index) => sum + (value - (b[index] ?? 0)) ** 2, 0));

test("features are unit vectors that stay close within a static shot and move across scenes", { skip: needsShared }, async () => {
  // The street camera never moves; the Sintel trailer cuts between very different shots every second or two.
  const still: Float32Array[] = [];
  for await (const frame of sampleRgbFrames(sharedPath("media/surveillance/vtest.avi"), { everySeconds: 10, maxSide: 256 })) still.push(frameFeatures(frame));
  const cuts: Float32Array[] = [];
  for await (const frame of sampleRgbFrames(sharedPath("media/speech/sintel_trailer-720p.mp4"), { everySeconds: 5, maxSide: 256 })) cuts.push(frameFeatures(frame));
  for (const vector of [...still, ...cuts]) assert.ok(Math.abs(Math.hypot(...vector) - 1) < 1e-4);
  const steps = (vectors: Float32Array[]): number[] => vectors.slice(1).map((vector, index) => distance(vector, vectors[index] ?? vector));
  const stillSteps = steps(still);
  const cutSteps = steps(cuts).sort((a, b) => a - b);
  assert.ok(Math.max(...stillSteps) < 0.2, `static camera moved ${Math.max(...stillSteps)}`);
  assert.ok((cutSteps[Math.floor(cutSteps.length / 2)] ?? 0) > 2 * Math.max(...stillSteps), `trailer steps ${cutSteps.join(", ")}`);
});
