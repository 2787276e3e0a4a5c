// The codecs behind schema version 7, where the store's own tests cannot reach: the block format it does not write
// today, and the fallbacks that keep a text as it is.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { Segment } from "../spec/index.js";
import {
  decodeFrames,
  encodeFrames,
  chunkTextBlocks,
  decodeExcerpt,
  encodeExcerpt,
  encodeSegmentBlocks,
  excerptSource,
  packChunkText,
  SegmentBlockView,
  SegmentText,
  transcriptRuns,
  unpackChunkText,
} from "./packed-text.js";

const segments: Segment[] = [
  { startSecond: 0, endSecond: 1.2, text: "Cut the rope.", source: "transcript" },
  { startSecond: 1.2, endSecond: 2.5, text: "Tie a knot.", source: "transcript" },
  { startSecond: 0, endSecond: 30, text: "KNOTS 101", source: "screen", clipIndex: 0 },
  { startSecond: 31, endSecond: 33, text: "Pull it tight.", source: "speech", clipIndex: 1 },
];

test("plain and deflated segment blocks decode to the same segments", () => {
  const [plain] = encodeSegmentBlocks(segments, false);
  const [deflated] = encodeSegmentBlocks(segments, true);
  for (const block of [plain, deflated]) {
    assert.ok(block);
    const view = new SegmentBlockView(block.data);
    assert.deepEqual(view.segments(), segments);
    assert.equal(view.region, "Cut the rope. Tie a knot. KNOTS 101 Pull it tight.");
  }
  assert.throws(() => new SegmentBlockView(Buffer.of(7, 0)), /unknown format/);
});

test("a transcript is a run of speech segments only where joining the run gives it back exactly", () => {
  assert.deepEqual(transcriptRuns(["Cut the rope.\nTie a knot.", "Pull it tight.", "Pull it tight!", ""], segments), [
    { first: 0, last: 1 },
    { first: 3, last: 3 },
    undefined,
    undefined,
  ]);
});

test("a chunk's text and a source's description come back from their pieces, or are kept when pieces do not pay", () => {
  const chunk = "[0:00–0:30]\nSaid: Cut the rope. Tie a knot.\nOn screen: KNOTS 101\n\n[0:30–1:00]\nSaid: Pull it tight.";
  const text = new SegmentText(segments);
  const packed = packChunkText(chunk, text, 0, 60);
  assert.ok(packed && packed.length < Buffer.byteLength(chunk) - 30, "references instead of the clips' words");
  assert.deepEqual(chunkTextBlocks(packed), [0, 0]);
  assert.equal(unpackChunkText(packed, text.regions), chunk);
  assert.equal(packChunkText(chunk, text, 100, 200), undefined, "no segment in its time span");

  const source = excerptSource(chunk);
  for (const description of ["mentioned together: Cut the rope. Tie a knot.", "…Tie a knot.…"]) {
    const excerpt = encodeExcerpt(description, source);
    assert.ok(excerpt);
    assert.equal(decodeExcerpt(excerpt, chunk), description);
  }
  assert.equal(encodeExcerpt("a knot", source), undefined, "too short to be worth a reference");
  assert.equal(encodeExcerpt("words found nowhere in the chunk", source), undefined);
});

test("a video's frames come back from one value in time order, every time and hash exactly, at ~11 bytes a frame", () => {
  const frames = [
    { timeSecond: 10, hash: "0123456789abcdef" },
    { timeSecond: 0.1 + 0.2, hash: "FEDCBA9876543210" },
    { timeSecond: 5 },
    { timeSecond: 7.25, hash: "not a hash" },
    { timeSecond: 86_400.001, hash: "ffffffffffffffff" },
  ];
  const packed = encodeFrames(frames);
  assert.deepEqual(decodeFrames(packed), [frames[1], frames[2], frames[3], frames[0], frames[4]]);
  assert.equal(decodeFrames(encodeFrames([{ timeSecond: -0 }]))[0]?.timeSecond, 0);
  assert.ok(Object.is(decodeFrames(encodeFrames([{ timeSecond: -0 }]))[0]?.timeSecond, 0), "-0 comes back as 0, as a REAL column gives it");
  const hour = Array.from({ length: 720 }, (_, index) => ({ timeSecond: index * 5, hash: (index * 7919).toString(16).padStart(16, "0") }));
  assert.ok(encodeFrames(hour).length <= 720 * 12, `${encodeFrames(hour).length} bytes for 720 frames`);
  assert.deepEqual(decodeFrames(encodeFrames(hour)), hour);
});
