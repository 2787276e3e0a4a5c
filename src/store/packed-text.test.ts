// The codecs behind schema version 7, where the store's own tests cannot reach: the block format it does not write
// today, blocks as written before they carried speakers (schema 11) or languages (schema 15), and the fallbacks that
// keep a text as it is.

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
  assert.throws(() => new SegmentBlockView(Buffer.of(8, 0)), /unknown format/);
});

/** Segments written before blocks carried speakers, and the blocks the encoder of then made of them (plain, deflated). */
const withoutSpeakers: Segment[] = [
  { startSecond: 0, endSecond: 1.5, text: "Cut the rope.", source: "transcript" },
  { startSecond: 1.5, endSecond: 3, text: "Tie a knot.", source: "transcript" },
  { startSecond: 0, endSecond: 30, text: "KNOTS 101", source: "screen", clipIndex: 0 },
  { startSecond: 31, endSecond: 33, text: "Pull it tight.", source: "speech", clipIndex: 1 },
];
const blocksOfBefore = [
  "00324375742074686520726f70652e205469652061206b6e6f742e204b4e4f5453203130312050756c6c2069742074696768742e04030a7472616e7363726970740673637265656e0673706565636800000102000102020000000000000000000000000000f83f000000000000084000000000000000000000000000003e400000000000003f4000000000008040400000000000000000000000000000f03f0d0b090e",
  "0133722e2d5128c9485528ca2f48d55308c94c554854c8cecb2fd153f0f6f30f0956303430540828cdc951c82c5128c94ccf28d16361e62a294acc2b4e2eca2c28612b4e2e4a4dcd632b2e484d4dce60606064626064626240013fec21348703aab81d946f0fa11b1cd0e43fd8f37273f20100",
];

test("blocks written before speakers read as they did, and segments without a speaker are still written byte for byte so", () => {
  for (const [at, hex] of blocksOfBefore.entries()) {
    const view = new SegmentBlockView(Buffer.from(hex, "hex"));
    assert.deepEqual(view.segments(), withoutSpeakers);
    assert.ok(view.segments().every((segment) => !("speaker" in segment)), "no speaker key where none was written");
    assert.equal(view.region, "Cut the rope. Tie a knot. KNOTS 101 Pull it tight.");
    assert.equal(encodeSegmentBlocks(withoutSpeakers, at === 1)[0]?.data.toString("hex"), hex, "no byte more for a block without speakers");
  }
});

test("speakers come back with their segments, in blocks of both kinds, and a block without any stays as before", () => {
  const spoken: Segment[] = Array.from({ length: 300 }, (_, index) => ({
    startSecond: index,
    endSecond: index + 1,
    text: `line ${index}`,
    source: index % 50 === 7 ? ("screen" as const) : ("speech" as const),
    // In the second block labels take turns, with lines of no one between; in the first only line 3 has one (below).
    ...(index >= 256 && index % 50 !== 7 && index % 5 !== 0 ? { speaker: index % 2 === 0 ? "Speaker 1" : "Dana \ud83d" } : {}),
  }));
  spoken[3] = { ...(spoken[3] as Segment), speaker: "" };
  for (const deflate of [false, true]) {
    const blocks = encodeSegmentBlocks(spoken, deflate);
    const decoded = blocks.flatMap((block) => new SegmentBlockView(block.data).segments());
    // The label is text as the store gives text back: a lone surrogate as U+FFFD.
    const expected = spoken.map((segment) => (segment.speaker?.startsWith("Dana") ? { ...segment, speaker: "Dana \ufffd" } : segment));
    assert.deepEqual(decoded, expected);
    assert.equal(decoded[3]?.speaker, "", "an empty label is a label");
    assert.equal(blocks.length, 2);
    const [withoutAny] = encodeSegmentBlocks(spoken.slice(0, 256).map(({ speaker: _speaker, ...segment }) => segment), deflate);
    assert.deepEqual(withoutAny?.data.subarray(0, 1), Buffer.of(deflate ? 1 : 0), "a block without speakers is in the format of before");
    assert.notDeepEqual(blocks[0]?.data, withoutAny?.data, "an empty label is written");
    assert.deepEqual(blocks[1]?.data.subarray(0, 1), Buffer.of(deflate ? 3 : 2), "the format byte says the speakers follow");
    assert.equal(new SegmentBlockView(blocks[1]?.data as Buffer).region, spoken.slice(256).map((segment) => segment.text).join(" "), "the region is the texts alone");
  }
  const [few] = encodeSegmentBlocks(spoken.slice(256), false);
  const [none] = encodeSegmentBlocks(spoken.slice(256).map(({ speaker: _speaker, ...segment }) => segment), false);
  assert.ok((few?.data.length ?? 0) - (none?.data.length ?? 0) <= 44 + 20, "two labels and a byte a segment");
  assert.deepEqual(
    transcriptRuns(["line 258\nline 259"], spoken),
    [{ first: 258, last: 259 }],
    "a clip's transcript is still a run of the speech segments, speakers or not",
  );
});

test("languages come back with their segments, beside speakers or alone, and a block without any stays as before", () => {
  const lines: Segment[] = Array.from({ length: 300 }, (_, index) => ({
    startSecond: index,
    endSecond: index + 1,
    text: `Zeile ${index}`,
    source: index % 3 === 0 ? ("subtitle" as const) : ("speech" as const),
    // Two streams' lines in turn in the second block, a line of no known language now and then; one speaker in the first.
    ...(index >= 256 && index % 7 !== 0 ? { language: index % 2 === 0 ? "de" : "en" } : {}),
    ...(index === 5 || index === 260 ? { speaker: "Speaker 1" } : {}),
  }));
  for (const deflate of [false, true]) {
    const blocks = encodeSegmentBlocks(lines, deflate);
    assert.deepEqual(blocks.flatMap((block) => new SegmentBlockView(block.data).segments()), lines);
    assert.deepEqual(blocks.map((block) => block.data[0]), deflate ? [3, 7] : [2, 6], "the format byte says which columns follow");
    const [alone] = encodeSegmentBlocks(lines.slice(256).map(({ speaker: _speaker, ...segment }) => segment), deflate);
    assert.equal(alone?.data[0], deflate ? 5 : 4, "languages without speakers");
    assert.deepEqual(new SegmentBlockView(alone?.data as Buffer).segments(), lines.slice(256).map(({ speaker: _speaker, ...segment }) => segment));
  }
  const [first] = encodeSegmentBlocks(lines.slice(0, 256), false);
  assert.ok(new SegmentBlockView(first?.data as Buffer).segments().every((segment) => !("language" in segment)), "no language key where none was written");
  const [some] = encodeSegmentBlocks(lines.slice(256), false);
  const [none] = encodeSegmentBlocks(lines.slice(256).map(({ language: _language, ...segment }) => segment), false);
  assert.ok((some?.data.length ?? 0) - (none?.data.length ?? 0) <= 7 + 44, "two codes and a byte a segment");
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
