// ROUGE-L against values computed by the reference implementation (Google's `rouge_score`, rougeL F-measure).

import assert from "node:assert/strict";
import { test } from "node:test";
import { longestCommonSubsequence, rougeL } from "./rouge-l.js";

const close = (actual: number, expected: number): void =>
  assert.ok(Math.abs(actual - expected) < 1e-9, `expected ${expected}, got ${actual}`);

test("the rouge_score README example: LCS 5 of 8 and 9 words gives F 58.82", () => {
  // rouge_score: Score(precision=0.625, recall=0.5555555555555556, fmeasure=0.5882352941176471)
  close(rougeL("The quick brown dog jumps on the log.", "The quick brown fox jumps over the lazy dog"), 58.82352941176471);
});

test("identical texts score 100, disjoint or empty ones 0; case and punctuation do not count", () => {
  close(rougeL("Remove the wheel, then the caliper.", "remove the wheel then the caliper"), 100);
  assert.equal(rougeL("nothing alike", "completely different words"), 0);
  assert.equal(rougeL("", "some reference"), 0);
  assert.equal(rougeL("some answer", ""), 0);
});

test("precision and recall weigh in as an F-measure, and beta shifts it toward recall", () => {
  // LCS("a b c d", "a c") = 2: precision 2/4, recall 2/2.
  close(rougeL("a b c d", "a c"), (100 * 2 * 0.5 * 1) / 1.5);
  close(rougeL("a b c d", "a c", { beta: 2 }), (100 * 5 * 0.5 * 1) / (1 + 4 * 0.5));
});

test("the longest common subsequence skips words but keeps order", () => {
  assert.equal(longestCommonSubsequence(["a", "b", "c", "d", "e"], ["a", "c", "e", "b"]), 3);
  assert.equal(longestCommonSubsequence(["x"], []), 0);
  assert.equal(longestCommonSubsequence("the cat sat on the mat".split(" "), "the mat sat on the cat".split(" ")), 4);
});
