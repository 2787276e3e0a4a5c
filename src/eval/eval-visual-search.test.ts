import assert from "node:assert/strict";
import { test } from "node:test";
import { evalVisualSearch, type ClassLabels } from "./eval-visual-search.js";

const labels: ClassLabels = {
  videos: {
    "street.mp4": { present: ["person", "car"], ambiguous: ["truck"] },
    "table.mp4": { present: ["bottle"], ambiguous: [] },
  },
};

test("pairs are counted per video and class; ambiguous pairs and unlabelled videos are not", async () => {
  const found: Record<string, string[]> = {
    person: ["street.mp4", "street.mp4", "table.mp4"],
    car: [],
    truck: ["street.mp4", "other.mp4"],
    bottle: ["table.mp4"],
    kite: ["street.mp4"],
  };
  const report = await evalVisualSearch(labels, ["person", "car", "truck", "bottle", "kite", "bus"], async (name) => found[name] ?? []);
  assert.deepEqual(report, {
    precision: 0.5,
    recall: 0.667,
    truePositives: 2,
    falsePositives: ["table.mp4: person", "street.mp4: kite"],
    falseNegatives: ["street.mp4: car"],
  });
});

test("nothing returned is precision 1 and recall 0", async () => {
  const report = await evalVisualSearch(labels, ["person", "car", "bottle"], async () => []);
  assert.equal(report.precision, 1);
  assert.equal(report.recall, 0);
});
