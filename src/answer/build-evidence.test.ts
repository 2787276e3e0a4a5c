import assert from "node:assert/strict";
import { test } from "node:test";
import type { Hit, Segment } from "../spec/index.js";
import { buildEvidence } from "./index.js";

function moment(videoId: string, startSecond: number, endSecond: number, text = ""): Hit {
  return { videoId, path: `/library/${videoId}.mp4`, title: `${videoId}.mp4`, startSecond, endSecond, score: 1, text, source: ["transcript"], retriever: "bm25" };
}

const segments: Record<string, Segment[]> = {
  talk: [
    { startSecond: 31, endSecond: 33, text: "and then we ship it.", source: "speech" },
    { startSecond: 12, endSecond: 14, text: "Shipping is on Friday,", source: "subtitle" },
    { startSecond: 20, endSecond: 30, text: "A man points at a whiteboard.", source: "caption" },
    { startSecond: 15, endSecond: 18, text: "RELEASE  PLAN", source: "screen" },
    { startSecond: 16, endSecond: 19, text: "person whiteboard", source: "visual" },
  ],
};

test("each moment becomes evidence per channel, speech first, timed by its own text", () => {
  const evidence = buildEvidence([moment("talk", 10, 40)], {
    segmentsOf: (hit) => (segments[hit.videoId] ?? []).filter((segment) => segment.endSecond > hit.startSecond && segment.startSecond < hit.endSecond),
    timesEstimated: () => false,
  });
  assert.deepEqual(
    evidence.map((item) => [item.kind, item.startSecond, item.endSecond, item.text]),
    [
      ["transcript", 12, 33, "Shipping is on Friday, and then we ship it."],
      ["screen", 15, 18, "RELEASE PLAN"],
      ["caption", 20, 30, "A man points at a whiteboard."],
      ["visual", 16, 19, "person whiteboard"],
    ],
  );
  assert.equal(evidence[0]?.title, "talk.mp4");
});

test("overlapping moments do not repeat text; long speech is split; a moment without segments gives its own text", () => {
  const speech: Segment[] = Array.from({ length: 6 }, (_, index) => ({
    startSecond: index * 5,
    endSecond: index * 5 + 5,
    text: `Sentence number ${index + 1} is here.`,
    source: "speech",
  }));
  const evidence = buildEvidence([moment("long", 0, 30), moment("long", 10, 30), moment("notes", 60, 90, "The plan moved.")], {
    segmentsOf: (hit) => (hit.videoId === "long" ? speech.filter((segment) => segment.startSecond >= hit.startSecond) : []),
    timesEstimated: (videoId) => videoId === "notes",
    maxItemChars: 60,
  });
  assert.deepEqual(
    evidence.map((item) => [item.videoId, item.startSecond, item.endSecond, item.timesEstimated]),
    [
      ["long", 0, 10, false],
      ["long", 10, 20, false],
      ["long", 20, 30, false],
      ["notes", 60, 90, true],
    ],
  );
  assert.equal(evidence[3]?.text, "The plan moved.");
});
