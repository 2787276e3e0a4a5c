import assert from "node:assert/strict";
import { test } from "node:test";
import { reciprocalRankFusion } from "./fusion.js";

test("an item two retrievers agree on outranks the top of either alone", () => {
  const fused = reciprocalRankFusion(
    [
      { retriever: "bm25", items: ["a", "b", "c"] },
      { retriever: "dense", items: ["d", "b", "e"] },
    ],
    (item) => item,
  );
  assert.deepEqual(fused.map((entry) => entry.item), ["b", "a", "d", "c", "e"]);
  assert.deepEqual(fused[0]?.retrievers, ["bm25", "dense"]);
  assert.ok(Math.abs((fused[0]?.score ?? 0) - (1 / 62 + 1 / 62)) < 1e-12);
});

test("one list alone keeps its order", () => {
  const fused = reciprocalRankFusion([{ retriever: "visual", items: [3, 1, 2] }], String);
  assert.deepEqual(fused.map((entry) => entry.item), [3, 1, 2]);
  assert.deepEqual(fused.map((entry) => entry.retrievers), [["visual"], ["visual"], ["visual"]]);
});
