import assert from "node:assert/strict";
import { test } from "node:test";
import { shortLabel, softmax } from "./mobilenet-tagger.js";

test("tag labels keep ImageNet's first name, and softmax gives probabilities", () => {
  assert.equal(shortLabel("tabby, tabby cat"), "tabby");
  assert.equal(shortLabel("water bottle"), "water bottle");
  const probabilities = softmax(Float32Array.from([1000, 1000, 0]));
  assert.ok(Math.abs((probabilities[0] ?? 0) - 0.5) < 1e-6 && Math.abs((probabilities[1] ?? 0) - 0.5) < 1e-6);
  assert.ok((probabilities[2] ?? 1) < 1e-9);
});
