// recall@k and latency percentiles.

import assert from "node:assert/strict";
import { test } from "node:test";
import { latencyPercentiles, percentile } from "./latency-percentiles.js";
import { recallAtK } from "./recall-at-k.js";

test("recall@k counts the relevant items within the first k", () => {
  const ranked = ["a", "b", "c", "d"];
  assert.equal(recallAtK(ranked, ["c"], 1), 0);
  assert.equal(recallAtK(ranked, ["c"], 3), 1);
  assert.equal(recallAtK(ranked, ["a", "d", "z"], 4), 2 / 3);
  assert.equal(recallAtK(["a", "a", "b"], ["a", "b"], 2), 0.5, "a repeated item counts once");
  assert.equal(recallAtK(ranked, [], 10), 0);
});

test("percentiles interpolate between ranks as numpy does", () => {
  assert.equal(percentile([1, 2, 3, 4], 50), 2.5);
  assert.equal(percentile([4, 3, 2, 1], 0), 1);
  assert.equal(percentile([1, 2, 3, 4], 100), 4);
  const hundred = Array.from({ length: 100 }, (_, index) => index + 1);
  assert.ok(Math.abs(percentile(hundred, 95) - 95.05) < 1e-9);
  assert.ok(Number.isNaN(percentile([], 50)));
  assert.deepEqual(latencyPercentiles([10, 20, 30, 40, 1000]), { p50: 30, p95: 808 });
});
