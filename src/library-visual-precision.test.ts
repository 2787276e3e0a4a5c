// Visual words that can be trusted, measured: the five videos in ../shared/media/surveillance are ingested with the
// local detector and tagger, each of the detector's 80 classes is searched by name in the visual mode, and the videos
// returned are scored as (video, class) pairs against test-data/surveillance-classes.json. Before objects had to hold
// up (one global 0.35 threshold, single frames, MobileNet tags at 0.3) this was precision 0.318 (7 of 22), recall
// 0.875: "kite", "airplane", "bus" and "cell phone" all found the street footage. Also: scripts/eval-visual-search.ts.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { evalVisualSearch, loadClassLabels } from "./eval/index.js";
import { readableLabel } from "./ingest/visual-words.js";
import { openLibrary } from "./library.js";
import { needsShared, sharedPath } from "./test-support/shared.js";

const scratch = mkdtempSync(join(tmpdir(), "videorag-visual-precision-test-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * Present pairs no threshold can find: the cars in car-detection.mp4 are filmed from straight above, and YOLOX-nano
 * calls them "cell phone", "suitcase" or "bus"; its "car" score on them stays under 0.5 even at two frames a second,
 * and detection on overlapping crops (four tiles of 60% of the frame each, every 3 s) finds cell phones and buses there too.
 */
const beyondTheDetector = new Set(["car-detection.mp4: car"]);

test("searching each COCO class finds the videos that show it, and not the others", { skip: needsShared }, async () => {
  const labels = await loadClassLabels(new URL("../test-data/surveillance-classes.json", import.meta.url).pathname);
  const classes = readFileSync(sharedPath("models", "coco_labels.txt"), "utf8")
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => readableLabel(line.trim()));
  assert.equal(classes.length, 80);
  const library = await openLibrary({ path: join(scratch, "library"), modelsDir: sharedPath("models"), ocr: false, speech: false });
  try {
    const ingest = await library.ingest(Object.keys(labels.videos).map((video) => sharedPath("media/surveillance", video)));
    assert.equal(ingest.failed, 0, JSON.stringify(ingest.results));
    const report = await evalVisualSearch(labels, classes, async (className) =>
      (await library.search(className, { mode: "visual", limit: 20 })).map((hit) => hit.title),
    );
    console.log(`visual search over (video, class) pairs: precision ${report.precision}, recall ${report.recall}; ` +
      `false positives: ${report.falsePositives.join(", ") || "none"}; missed: ${report.falseNegatives.join(", ") || "none"}`);
    assert.ok(report.precision >= 0.8, `precision ${report.precision}: ${report.falsePositives.join(", ")}`);
    // The goal is recall 0.9; of the 8 present pairs the one above is out of the detector's reach, which caps it at 7/8.
    assert.ok(report.recall >= 0.875, `recall ${report.recall}: missed ${report.falseNegatives.join(", ")}`);
    for (const missed of report.falseNegatives) assert.ok(beyondTheDetector.has(missed), `missed ${missed}`);
  } finally {
    await library.close();
  }
});
