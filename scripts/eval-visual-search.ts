// Precision and recall of visual search over (video, class) pairs on the footage in ../shared/media/surveillance: the
// five videos are ingested into a fresh library with the local detector and tagger, each of the detector's 80 classes
// is searched by name in the visual mode, and the videos returned are scored against test-data/surveillance-classes.json.
// Run: node --import tsx scripts/eval-visual-search.ts [--keep <library folder>]   (about 20 s on two cores)
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { evalVisualSearch, loadClassLabels } from "../src/eval/index.js";
import { readableLabel } from "../src/ingest/visual-words.js";
import { openLibrary } from "../src/library.js";
import { needsShared, sharedPath } from "../src/test-support/shared.js";

if (needsShared) {
  console.log(`skipped: ${needsShared}`);
} else {
  const keepAt = process.argv.indexOf("--keep");
  const scratch = keepAt === -1 ? mkdtempSync(join(tmpdir(), "videorag-eval-visual-")) : undefined;
  const path = scratch ? join(scratch, "library") : (process.argv[keepAt + 1] ?? "eval-visual.videorag");
  const labels = await loadClassLabels(new URL("../test-data/surveillance-classes.json", import.meta.url).pathname);
  const classes = readFileSync(sharedPath("models", "coco_labels.txt"), "utf8").split("\n").filter((line) => line.trim()).map((line) => readableLabel(line.trim()));
  const library = await openLibrary({ path, modelsDir: sharedPath("models"), ocr: false, speech: false });
  try {
    const ingest = await library.ingest(Object.keys(labels.videos).map((video) => sharedPath("media/surveillance", video)));
    if (ingest.failed > 0) throw new Error(`ingest failed: ${JSON.stringify(ingest.results)}`);
    const report = await evalVisualSearch(labels, classes, async (className) =>
      (await library.search(className, { mode: "visual", limit: 20 })).map((hit) => hit.title),
    );
    console.log(JSON.stringify(report, null, 2));
  } finally {
    await library.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}
