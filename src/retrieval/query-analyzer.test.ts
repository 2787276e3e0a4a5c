// The query analyzer: what a question is reduced to before it reaches the index.

import assert from "node:assert/strict";
import { test } from "node:test";
import { analyzeQuery, analyzeText, termKey, tokenize } from "./query-analyzer.js";

test("a how-to question keeps its subject and drops the framing", () => {
  assert.deepEqual(analyzeText("What is a common sequence of steps for replacing a car's brake disc?"), [
    "replacing",
    "car",
    "brake",
    "disc",
  ]);
  assert.deepEqual(analyzeText("After removing the wheel, what is usually the next step?"), ["removing", "wheel"]);
});

test("framing words stay when too little else is left, so short queries still search", () => {
  assert.deepEqual(analyzeText("key"), ["key"]);
  assert.deepEqual(analyzeText("the first steps"), ["first", "steps"]);
  assert.deepEqual(analyzeText("cutting a key"), ["cutting", "key"]);
  assert.deepEqual(analyzeText("what is it?"), []);
});

test("terms are weighted by repetition; quoted phrases are kept as phrases", () => {
  const query = analyzeQuery('Why "disc brake" and not drum brake?');
  assert.deepEqual(query.terms, [
    { text: "disc", weight: 1 },
    { text: "brake", weight: 2 },
    { text: "drum", weight: 1 },
  ]);
  assert.deepEqual(query.phrases, ["disc brake"]);
});

test("tokens split like the index's tokenizer: accents and digits kept, punctuation dropped", () => {
  assert.deepEqual(tokenize("Crème brûlée, 3 eggs & 200g sugar!"), ["crème", "brûlée", "3", "eggs", "200g", "sugar"]);
  assert.deepEqual(analyzeText("3 eggs"), ["3", "eggs"]);
});

test("termKey matches inflections of one word and keeps different words apart", () => {
  assert.equal(termKey("replacing"), termKey("replaced"));
  assert.equal(termKey("replace"), termKey("replaces"));
  assert.equal(termKey("cutting"), termKey("cut"));
  assert.equal(termKey("berries"), termKey("berry"));
  assert.equal(termKey("glass"), "glass");
  assert.notEqual(termKey("brake"), termKey("bread"));
});
