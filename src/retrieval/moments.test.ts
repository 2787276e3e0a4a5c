// Merging clip matches into moments.

import assert from "node:assert/strict";
import { test } from "node:test";
import { mergeClipMatches, strongClips } from "./moments.js";

const clip = (videoId: string, clipIndex: number, score: number) => ({
  videoId,
  clipIndex,
  startSecond: clipIndex * 30,
  endSecond: clipIndex * 30 + 30,
  score,
});

test("touching clips of one video merge into one moment spanning them, scored by the best", () => {
  const moments = mergeClipMatches([clip("a", 3, 2), clip("a", 2, 5), clip("a", 7, 1), clip("b", 3, 4)]);
  assert.deepEqual(
    moments.map(({ videoId, startSecond, endSecond, score, clipIndexes }) => ({ videoId, startSecond, endSecond, score, clipIndexes })),
    [
      { videoId: "a", startSecond: 60, endSecond: 120, score: 5, clipIndexes: [2, 3] },
      { videoId: "b", startSecond: 90, endSecond: 120, score: 4, clipIndexes: [3] },
      { videoId: "a", startSecond: 210, endSecond: 240, score: 1, clipIndexes: [7] },
    ],
  );
});

test("overlapping spans merge; a gap keeps moments apart", () => {
  const moments = mergeClipMatches([
    { videoId: "a", clipIndex: 0, startSecond: 0, endSecond: 40, score: 1 },
    { videoId: "a", clipIndex: 1, startSecond: 30, endSecond: 60, score: 1 },
    { videoId: "a", clipIndex: 2, startSecond: 61, endSecond: 90, score: 1 },
  ]);
  assert.deepEqual(moments.map((moment) => [moment.startSecond, moment.endSecond]), [[0, 60], [61, 90]]);
});

test("clips under half their video's best score are not shown", () => {
  const kept = strongClips([clip("a", 0, 10), clip("a", 1, 4), clip("a", 2, 6), clip("b", 0, 3)]);
  assert.deepEqual(kept.map((match) => `${match.videoId}${match.clipIndex}`), ["a0", "a2", "b0"]);
});
