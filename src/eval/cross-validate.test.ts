import assert from "node:assert/strict";
import { test } from "node:test";
import { bestOf, crossValidate, foldsByGroup, meanAndSpread } from "./cross-validate.js";

const items = Array.from({ length: 60 }, (_, index) => ({ id: index, video: `v${Math.floor(index / 3)}` }));

test("folds keep a group's items together, cover every item once, and are balanced and repeatable", () => {
  const folds = foldsByGroup(items, 5, (item) => item.video);
  assert.equal(folds.length, 5);
  const tested = folds.flatMap((fold) => fold.test.map((item) => item.id)).sort((a, b) => a - b);
  assert.deepEqual(tested, items.map((item) => item.id));
  for (const fold of folds) {
    assert.equal(fold.test.length, 12, "20 groups of 3 fill 5 folds of 4 groups");
    assert.equal(fold.train.length + fold.test.length, 60);
    const held = new Set(fold.test.map((item) => item.video));
    assert.ok(fold.train.every((item) => !held.has(item.video)), "no group is both tuned on and measured");
  }
  assert.deepEqual(foldsByGroup(items, 5, (item) => item.video), folds);
  assert.throws(() => foldsByGroup(items.slice(0, 6), 5, (item) => item.video), /2 groups cannot fill 5 folds/);
});

test("each fold is tuned on its training items only and measured on the held-out ones", () => {
  const folds = foldsByGroup(items, 4, (item) => item.video);
  const seen: number[][] = [];
  const report = crossValidate({
    folds,
    // A "setting" that memorises its training items scores 1 on them and 0 on anything it never saw.
    tune: (train) => {
      seen.push(train.map((item) => item.id));
      return new Set(train.map((item) => item.id));
    },
    measure: (known, test) => ({ accuracy: test.filter((item) => known.has(item.id)).length / test.length }),
  });
  assert.equal(seen.length, 4);
  folds.forEach((fold, index) => assert.deepEqual(seen[index], fold.train.map((item) => item.id)));
  assert.deepEqual(report.metrics.accuracy, { mean: 0, spread: 0 });
  assert.deepEqual(report.folds.map((fold) => fold.size), folds.map((fold) => fold.test.length));
});

test("a grid search keeps the first best candidate; the spread is the folds' standard deviation", () => {
  assert.equal(bestOf([1, 3, 2, 3], (value) => value), 3);
  assert.equal(bestOf(["b", "a"], () => 0), "b");
  assert.throws(() => bestOf([], () => 0), RangeError);
  assert.deepEqual(meanAndSpread([0.2, 0.4]), { mean: 0.3, spread: 0.1 });
});
