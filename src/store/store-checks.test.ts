// The rule both stores leave common words out of a BM25 search by (`commonTerms`).

import assert from "node:assert/strict";
import { test } from "node:test";
import { commonEntityShare, commonTermMinimum, commonTerms, flooredShare, isOneWord } from "./store-checks.js";

const counts = (entries: Record<string, number>): Map<string, number> => new Map(Object.entries(entries));

test("a word at least half the documents hold is left out while a rarer word remains", () => {
  const common = commonTerms(counts({ make: 6_891, dahi: 3, cucumber: 115 }), 8_648, false, flooredShare);
  assert.deepEqual([...common], ["make"]);
  assert.deepEqual([...commonTerms(counts({ make: 6_891, like: 7_181 }), 8_648, false, flooredShare)], [], "nothing rarer: every word stays");
  assert.deepEqual([...commonTerms(counts({ make: 6_891, like: 7_181 }), 8_648, true, flooredShare)], ["make", "like"], "a phrase or a longer term remains");
  assert.deepEqual([...commonTerms(counts({ make: 6_891, unheard: 0 }), 8_648, false, flooredShare)], [], "a word no document holds finds nothing, so it is not what remains");
});

test("a small index keeps every word: none is common below the minimum count", () => {
  assert.deepEqual([...commonTerms(counts({ saw: 3, plank: 2 }), 5, false, flooredShare)], []);
  assert.deepEqual([...commonTerms(counts({ saw: commonTermMinimum - 1, plank: 2 }), commonTermMinimum + 10, false, flooredShare)], []);
  assert.deepEqual([...commonTerms(counts({ saw: commonTermMinimum, plank: 2 }), commonTermMinimum + 10, false, flooredShare)], ["saw"]);
});

test("entity searches leave out words in more than one entity of twenty", () => {
  const entities = 45_534;
  const common = commonTerms(counts({ on: 13_071, like: 6_801, make: 5_797, need: 3_087, white: 905, precaution: 7 }), entities, false, commonEntityShare);
  assert.deepEqual([...common].sort(), ["like", "make", "need", "on"]);
  assert.deepEqual([...commonTerms(counts({ on: 13_071, precaution: 7 }), entities, false, flooredShare)], [], "under half: clips and videos keep them");
});

test("one word is letters and digits as the indexes write them", () => {
  assert.ok(isOneWord("pancake") && isOneWord("Häuser") && isOneWord("mp4") && isOneWord("东京"));
  assert.ok(!isOneWord("car's") && !isOneWord("olive oil") && !isOneWord("3.5") && !isOneWord("我们明天"));
});
