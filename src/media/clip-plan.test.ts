import assert from "node:assert/strict";
import { test } from "node:test";
import { VideoRagError } from "../spec/index.js";
import { planClips } from "./clip-plan.js";

const spans = (duration: number, clip?: number): [number, number][] =>
  planClips(duration, clip).map((planned) => [planned.startSecond, planned.endSecond]);

test("clips of 30 s cover the whole video, the last one ending at its end", () => {
  assert.deepEqual(spans(52.209), [
    [0, 30],
    [30, 52.209],
  ]);
  assert.deepEqual(spans(90), [
    [0, 30],
    [30, 60],
    [60, 90],
  ]);
  assert.deepEqual(
    planClips(61, 30).map((clip) => clip.index),
    [0, 1],
  );
});

test("a tail shorter than a third of a clip joins the clip before it", () => {
  assert.deepEqual(spans(65), [
    [0, 30],
    [30, 65],
  ]);
  assert.deepEqual(spans(70), [
    [0, 30],
    [30, 60],
    [60, 70],
  ]);
  assert.deepEqual(spans(12, 10), [[0, 12]]);
});

test("a video shorter than one clip is one clip, and one of zero length is one empty clip", () => {
  assert.deepEqual(spans(6.166), [[0, 6.166]]);
  assert.deepEqual(spans(0), [[0, 0]]);
});

test("a negative or missing duration and a zero clip length are ARGUMENT_INVALID", () => {
  for (const [duration, clip] of [
    [-1, 30],
    [Number.NaN, 30],
    [Number.POSITIVE_INFINITY, 30],
    [10, 0],
  ] as const) {
    assert.throws(
      () => planClips(duration, clip),
      (error: unknown) => VideoRagError.isInstance(error) && error.code === "ARGUMENT_INVALID",
    );
  }
});
