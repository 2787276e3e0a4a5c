import assert from "node:assert/strict";
import { test } from "node:test";
import type { Detection } from "../spec/index.js";
import {
  frameLabels,
  labelWords,
  objectMinScore,
  persistentFrames,
  readableLabel,
  spreadEvenly,
  templateCaption,
  visualSegments,
  type FrameLabels,
} from "./visual-words.js";

const frame = (timeSecond: number, objects: [string, number][], tags: [string, number][] = [], weakObjects: string[] = []): FrameLabels => ({
  timeSecond,
  objects: objects.map(([label, count]) => ({ label, count, score: 0.8 })),
  weakObjects,
  tags: tags.map(([label, score]) => ({ label, score })),
});

const box = (label: string, score: number, side = 0.2): Detection => ({ label, score, box: { x: 0.1, y: 0.1, width: side, height: side } });

test("each label becomes a segment over the run of frames it is seen in", () => {
  const frames = [frame(0, [["person", 1]]), frame(2, [["person", 2], ["bicycle", 1]]), frame(4, [["bicycle", 1], ["person", 1]]), frame(6, [["person", 1]]), frame(8, []), frame(10, [["person", 1]]), frame(12, [["person", 1]])];
  const segments = visualSegments(frames, 2, 13);
  assert.deepEqual(
    segments.map((segment) => `${segment.startSecond}-${segment.endSecond} ${segment.text}`),
    ["0-8 person (people)", "2-6 bicycle (bike)", "10-13 person (people)"],
  );
  assert.ok(segments.every((segment) => segment.source === "visual"));
});

test("an object seen in one sampled frame alone is dropped; a weak box in a neighbouring frame confirms it", () => {
  const lone = [frame(0, []), frame(2, [["airplane", 1]]), frame(4, [])];
  assert.deepEqual(visualSegments(lone, 2, 6), []);
  assert.equal(templateCaption(lone, ""), "");
  const confirmed = [frame(0, [], [], ["car"]), frame(2, [["car", 1]]), frame(4, [])];
  assert.deepEqual(visualSegments(confirmed, 2, 6).map((segment) => `${segment.startSecond}-${segment.endSecond} ${segment.text}`), ["2-4 car (vehicle)"]);
  // Weak boxes confirm, they are never indexed themselves.
  assert.deepEqual(persistentFrames([frame(0, [], [], ["car"]), frame(2, [], [], ["car"])]).map((kept) => kept.objects), [[], []]);
  assert.deepEqual(visualSegments([frame(0, [["person", 1]])], 2, 2), [], "a lone frame says nothing");
});

test("tags are indexed only when near certain in neighbouring frames", () => {
  const segments = visualSegments([frame(0, [], [["streetcar", 0.95], ["kimono", 0.6]]), frame(2, [], [["streetcar", 0.92], ["kimono", 0.7]]), frame(4, [], [["geyser", 0.97]])], 2, 6);
  assert.deepEqual(segments.map((segment) => segment.text), ["streetcar"]);
});

test("the template caption counts what persisted, names strong tags and quotes screen text", () => {
  const frames = [
    frame(0, [["person", 3], ["kite", 1]], [["streetcar", 0.95]]),
    frame(2, [["person", 1], ["car", 1]], [["streetcar", 0.91]]),
    frame(4, [["person", 1], ["car", 1]]),
  ];
  assert.equal(templateCaption(frames, "OPEN DAILY\nsecond line"), 'Seen: 3 people, a car. Looks like: streetcar. On screen: "OPEN DAILY".');
  assert.equal(templateCaption([], ""), "");
  assert.match(templateCaption([frame(0, [["umbrella", 1]]), frame(2, [["umbrella", 1]])], ""), /an umbrella/);
  assert.equal(templateCaption([frame(0, [["kite", 1]]), frame(2, [])], "SALE"), 'On screen: "SALE".');
});

test("a frame's boxes count at their class's threshold and size; weaker ones are kept as weak objects", () => {
  const labels = frameLabels(
    4,
    [box("person", 0.9), box("person", 0.6), box("person", 0.3), box("airplane", 0.6), box("bicycle", 0.4), box("cellphone", 0.2), box("kite", 0.9, 0.02), box("bus", 0.05)],
    [{ label: "streetcar", score: 0.91234 }],
    { width: 640, height: 360 },
    416,
  );
  assert.deepEqual(labels.objects, [
    { label: "person", count: 2, score: 0.9 },
    { label: "bicycle", count: 1, score: 0.4 },
  ]);
  assert.deepEqual(labels.weakObjects, ["airplane", "cell phone"], "airplane needs more than the default; a 0.05 bus is nothing; a kite a few pixels across is too small to tell");
  assert.deepEqual(labels.tags, [{ label: "streetcar", score: 0.912 }]);
  assert.equal(objectMinScore("person"), 0.5);
  assert.ok(objectMinScore("airplane") > 0.5 && objectMinScore("bicycle") < 0.5);
  // Size is judged at the detector's input: the same box share is 16 × 16 pixels there or not, depending on the frame.
  const square = (side: number): Detection[] => [box("person", 0.9, side)];
  assert.equal(frameLabels(0, square(16 / 416), [], { width: 1000, height: 1000 }, 416).objects.length, 1);
  assert.equal(frameLabels(0, square(15 / 416), [], { width: 1000, height: 1000 }, 416).objects.length, 0);
});

test("joined COCO names read as words, with the synonyms people search for", () => {
  assert.equal(readableLabel("cellphone"), "cell phone");
  assert.equal(labelWords("cell phone"), "cell phone (phone mobile)");
  assert.equal(readableLabel("person"), "person");
});

test("frames are spread evenly, first and last kept", () => {
  assert.deepEqual(spreadEvenly([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15], 5), [1, 5, 8, 12, 15]);
  assert.deepEqual(spreadEvenly([1, 2], 10), [1, 2]);
});
