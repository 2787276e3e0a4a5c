import assert from "node:assert/strict";
import { test } from "node:test";
import { labelWords, readableLabel, spreadEvenly, templateCaption, visualSegments, type FrameLabels } from "./visual-words.js";

const frame = (timeSecond: number, objects: [string, number][], tags: [string, number][] = []): FrameLabels => ({
  timeSecond,
  objects: objects.map(([label, count]) => ({ label, count, score: 0.8 })),
  tags: tags.map(([label, score]) => ({ label, score })),
});

test("each label becomes a segment over the run of frames it is seen in", () => {
  const frames = [frame(0, [["person", 1]]), frame(2, [["person", 2], ["bicycle", 1]]), frame(4, [["bicycle", 1]]), frame(6, []), frame(8, [["person", 1]])];
  const segments = visualSegments(frames, 2, 9);
  assert.deepEqual(
    segments.map((segment) => `${segment.startSecond}-${segment.endSecond} ${segment.text}`),
    ["0-4 person (people)", "2-6 bicycle (bike)", "8-9 person (people)"],
  );
  assert.ok(segments.every((segment) => segment.source === "visual"));
});

test("weak tags are not indexed, strong ones are", () => {
  const segments = visualSegments([frame(0, [], [["streetcar", 0.6], ["kimono", 0.05]])], 2, 2);
  assert.deepEqual(segments.map((segment) => segment.text), ["streetcar"]);
});

test("the template caption counts objects, names strong tags and quotes screen text", () => {
  const caption = templateCaption([frame(0, [["person", 3], ["car", 1]], [["streetcar", 0.5]]), frame(2, [["person", 1]])], "OPEN DAILY\nsecond line");
  assert.equal(caption, 'Seen: 3 people, a car. Looks like: streetcar. On screen: "OPEN DAILY".');
  assert.equal(templateCaption([], ""), "");
  assert.match(templateCaption([frame(0, [["umbrella", 1]])], ""), /an umbrella/);
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
