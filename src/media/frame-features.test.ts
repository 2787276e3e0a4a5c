import assert from "node:assert/strict";
import { test } from "node:test";
import { VideoRagError, type RgbImage } from "../spec/index.js";
import { needsShared, sharedPath } from "../test-support/shared.js";
import { frameFeatures } from "./frame-features.js";
import { sampleRgbFrames } from "./rgb-frames.js";

const distance = (a: Float32Array, b: Float32Array): number => Math.sqrt(a.reduce((sum, value, index) => sum + (value - (b[index] ?? 0)) ** 2, 0));

/** A `width`×`height` picture: left half one colour, right half vertical stripes of another, so it has colour and edges. */
function picture(width: number, height: number, left: [number, number, number], stripes: [number, number, number]): RgbImage {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const stripe = Math.floor((x * 32) / width) % 2 === 0;
      data.set(x < width / 2 ? left : stripe ? stripes : [0, 0, 0], (y * width + x) * 3);
    }
  }
  return { width, height, data };
}

test("features are unit vectors that tell colours and textures apart, and barely depend on the frame's size", () => {
  const orange = picture(640, 360, [230, 120, 20], [240, 240, 240]);
  const vector = frameFeatures(orange);
  assert.ok(Math.abs(Math.hypot(...vector) - 1) < 1e-5);
  assert.deepEqual(frameFeatures(orange), vector, "the same picture gives the same vector");
  const smaller = frameFeatures(picture(320, 180, [230, 120, 20], [240, 240, 240]));
  const blue = frameFeatures(picture(640, 360, [20, 60, 220], [240, 240, 240]));
  const plain = frameFeatures(picture(640, 360, [230, 120, 20], [230, 120, 20]));
  assert.ok(distance(vector, smaller) < 0.1, `half size moved ${distance(vector, smaller)}`);
  assert.ok(distance(vector, blue) > 0.5, `another colour moved only ${distance(vector, blue)}`);
  assert.ok(distance(vector, plain) > 0.2, `losing the stripes moved only ${distance(vector, plain)}`);
});

test("a 720p frame takes a few milliseconds, not tens", () => {
  const frame = picture(1280, 720, [230, 120, 20], [30, 200, 90]);
  frameFeatures(frame); // compiles the hot loops, as a long video would have long before its 9th frame
  const times: number[] = [];
  for (let run = 0; run < 9; run++) {
    const started = performance.now();
    frameFeatures(frame);
    times.push(performance.now() - started);
  }
  const median = times.sort((a, b) => a - b)[4] ?? Infinity;
  assert.ok(median < 15, `median ${median.toFixed(1)} ms`);
});

test("an image whose bytes do not match its size is refused", () => {
  assert.throws(
    () => frameFeatures({ width: 4, height: 4, data: new Uint8Array(10) }),
    (error: unknown) => error instanceof VideoRagError && error.code === "ARGUMENT_INVALID",
  );
});

test("on the Sintel trailer, a held title stays put and cuts move far", { skip: needsShared }, async () => {
  const trailer = sharedPath("media/speech/sintel_trailer-720p.mp4");
  const at = async (startSecond: number, endSecond: number): Promise<Float32Array[]> => {
    const vectors: Float32Array[] = [];
    for await (const frame of sampleRgbFrames(trailer, { everySeconds: 1, startSecond, endSecond, maxSide: 256 })) vectors.push(frameFeatures(frame));
    return vectors;
  };
  // Checked by eye: 42–45 s hold the SINTEL logo on black; 13 → 14 s cuts from the old man to the girl, both dark and
  // warm close-ups (the hardest cut nearby); 35 → 36 s cuts from the sky to the desert.
  const title = await at(42, 46);
  const [oldMan, girl] = await at(13, 15);
  const [sky, desert] = await at(35, 37);
  assert.equal(title.length, 4);
  assert.ok(oldMan && girl && sky && desert);
  const held = Math.max(...title.slice(1).map((vector, index) => distance(vector, title[index] ?? vector)));
  assert.ok(held < 0.1, `the held title moved ${held}`);
  for (const [name, step] of [["old man → girl", distance(oldMan, girl)], ["sky → desert", distance(sky, desert)]] as const) {
    assert.ok(step > 0.3 && step > 4 * held, `${name}: ${step} against ${held} within the title`);
  }
});

test("features stay close on a fixed street camera and move across the trailer's shots", { skip: needsShared }, async () => {
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
