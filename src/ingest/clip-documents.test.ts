import assert from "node:assert/strict";
import { test } from "node:test";
import { buildClipDocuments } from "./clip-documents.js";

const clips = [
  { index: 0, startSecond: 0, endSecond: 30 },
  { index: 1, startSecond: 30, endSecond: 60 },
];

test("a spoken line goes to the clip holding its midpoint, screen text to every clip it covers", () => {
  const documents = buildClipDocuments("v1", clips, [
    { startSecond: 28, endSecond: 40, text: "said across the boundary", source: "subtitle" },
    { startSecond: 5, endSecond: 7, text: "early line", source: "speech" },
    { startSecond: 20, endSecond: 45, text: "SLIDE TITLE", source: "screen" },
  ]);
  assert.equal(documents[0]?.transcript, "early line");
  assert.equal(documents[1]?.transcript, "said across the boundary");
  assert.equal(documents[0]?.screen, "SLIDE TITLE");
  assert.equal(documents[1]?.screen, "SLIDE TITLE");
});

test("text past the last clip's end (rounding) lands in the last clip", () => {
  const documents = buildClipDocuments("v1", clips, [{ startSecond: 59.9, endSecond: 60.4, text: "the end", source: "subtitle" }]);
  assert.equal(documents[1]?.transcript, "the end");
});
