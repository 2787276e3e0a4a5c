// A video removed while a question extracts its clips: the question still answers (from what remains), and nothing of
// the removed video comes back through the extraction's write-back.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { openLibrary } from "./library.js";
import { needsShared, sharedPath } from "./test-support/shared.js";

test("a question whose extraction loses its video to a removal answers instead of failing", { skip: needsShared }, async () => {
  const scratch = mkdtempSync(join(tmpdir(), "videorag-removal-"));
  const library = await openLibrary({ path: join(scratch, "lib"), visual: false });
  try {
    // Incremental: the speech is left for question time.
    const report = await library.ingest([sharedPath("media/audio/jfk.wav")], { incremental: true });
    const videoId = report.results[0]?.videoId ?? "";
    assert.ok(videoId, JSON.stringify(report.results));
    let removal: Promise<unknown> | undefined;
    const answer = await library.ask("what can you do for your country?", {
      onExtraction: (event) => {
        // Once a clip's stage has run, before its output is written back, the video goes.
        if (event.type === "extract-clip" && !removal) removal = library.remove(videoId);
      },
    });
    assert.ok(removal, "the question extracted something");
    await removal;
    assert.equal(typeof answer.text, "string");
    assert.deepEqual(await library.list(), [], "the removed video stays removed");
    const status = await library.status();
    assert.equal(status.byVideo.length, 0, "no deferred work is left for a video that is gone");
  } finally {
    await library.close();
    rmSync(scratch, { recursive: true, force: true });
  }
});
