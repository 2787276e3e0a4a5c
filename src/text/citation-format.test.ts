import assert from "node:assert/strict";
import { test } from "node:test";
import { formatCitation, formatTimestamp, stripCitations } from "./citation-format.js";

test("timestamps floor to the second and grow hours when needed", () => {
  assert.equal(formatTimestamp(3), "0:03");
  assert.equal(formatTimestamp(4.299), "0:04");
  assert.equal(formatTimestamp(760), "12:40");
  assert.equal(formatTimestamp(3723), "1:02:03");
});

test("a citation reads [file m:ss–m:ss], with ~ for estimated times", () => {
  assert.equal(formatCitation({ title: "friday.mp4", startSecond: 3, endSecond: 4.299 }), "[friday.mp4 0:03–0:04]");
  assert.equal(formatCitation({ title: "abc.txt", startSecond: 62, endSecond: 90 }, true), "[abc.txt ~1:02–1:30]");
});

test("stripCitations leaves the words only", () => {
  assert.equal(stripCitations("He is in a bad humor [friday.mp4 0:03–0:04]\nNext [a b.mp4 ~1:00–1:30]"), "He is in a bad humor\nNext");
});

test("a citation names its speaker when one is known, and stripping removes it with the rest", () => {
  const cited = formatCitation({ title: "meeting.mp4", startSecond: 760, endSecond: 790, speaker: "Dana" });
  assert.equal(cited, "[meeting.mp4 12:40–13:10 · Dana]");
  assert.equal(stripCitations(`We keep the budget. ${cited}`), "We keep the budget.");
});
