// The visual channel end to end on real street footage: YOLOX-nano and MobileNetV2 from ../shared/models turn frames into
// searchable words with times, so a video with no text at all answers "bicycle"; and the output cache makes a second
// ingest of the same videos cost no model call.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { openLibrary, type Library } from "./library.js";
import { needsShared, sharedPath } from "./test-support/shared.js";

const scratch = mkdtempSync(join(tmpdir(), "videorag-visual-test-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

describe("street footage with the local detector and tagger", { skip: needsShared }, () => {
  const path = join(scratch, "street");
  const videos = ["person-bicycle-car-detection.mp4", "bottle-detection.mp4"];
  let library: Library;
  before(async () => {
    library = await openLibrary({ path, modelsDir: sharedPath("models"), ocr: false, speech: false });
  });
  after(() => library.close());

  test("ingest names the providers and indexes visual words per frame", async () => {
    const report = await library.ingest(videos.map((video) => sharedPath("media/surveillance", video)));
    assert.equal(report.failed, 0, JSON.stringify(report.results));
    assert.ok(report.providers?.some((line) => /^objects: yolox/.test(line)), report.providers?.join("; "));
    assert.ok(report.providers?.some((line) => /^scene tags: mobilenet/.test(line)), report.providers?.join("; "));
    for (const result of report.results) assert.match(result.notes.join(" "), /visual: \d+ frames \(one every 2 s\)/);
  });

  test('search "bicycle" finds moments in the bicycle video, none in the bottles', async () => {
    const hits = await library.search("bicycle", { limit: 5 });
    assert.ok(hits[0], "no hit for bicycle");
    assert.equal(hits[0].title, "person-bicycle-car-detection.mp4");
    assert.ok(hits[0].source.includes("visual") || hits[0].source.includes("caption"), hits[0].source.join());
    assert.ok(hits[0].endSecond - hits[0].startSecond <= 30, `a moment, not the whole video: ${hits[0].startSecond}–${hits[0].endSecond}`);
    assert.ok(!hits.some((hit) => hit.title === "bottle-detection.mp4"));
    const bottles = await library.search("bottle", { limit: 5 });
    assert.equal(bottles[0]?.title, "bottle-detection.mp4");
  });

  test("the lite answer quotes the template caption with a citation", async () => {
    const answer = await library.ask("where is a bicycle seen?");
    assert.equal(answer.citations[0]?.title, "person-bicycle-car-detection.mp4");
    assert.match(answer.text, /bicycle/i);
    assert.match(answer.profile.summary, /lite/);
  });

  test('the visual mode ranks the bicycle clip first through the detector\'s words, placed at the frame that saw it', async () => {
    const hits = await library.search("a bicycle", { mode: "visual", limit: 5 });
    assert.equal(hits[0]?.title, "person-bicycle-car-detection.mp4");
    const found = hits[0]?.provenance?.[0];
    assert.equal(found?.retriever, "visual");
    assert.equal(found?.detail, "detections and tags: bicycle", "the detector's word that matched");
    assert.ok(found?.frameSecond !== undefined && found.frameSecond >= 8 && found.frameSecond <= 16, `frame at ${found?.frameSecond}`);
    assert.ok(!hits.some((hit) => hit.title === "bottle-detection.mp4"), "no bicycle among the bottles");
  });

  test("the video mode fuses text and visual evidence per video (alpha 0.7), best video first", async () => {
    const videos = await library.searchVideos("bicycle");
    assert.equal(videos[0]?.title, "person-bicycle-car-detection.mp4");
    assert.equal(videos[0]?.visualScore, 1);
    // No text in street footage: only the visual share of the score, 1 - alpha.
    assert.ok(Math.abs((videos[0]?.score ?? 0) - (0.7 * (videos[0]?.textScore ?? 0) + 0.3)) < 1e-3, JSON.stringify(videos[0]));
    const bottles = await library.retrieve("bottles on a table", { mode: "video" });
    assert.equal(bottles.videos[0]?.videoId, (await library.list()).find((video) => video.title === "bottle-detection.mp4")?.id);
    assert.equal(bottles.clips[0]?.provenance[0]?.retriever, "video");
  });

  test("a second ingest of the same videos makes zero model calls", async () => {
    for (const video of await library.list()) await library.remove(video.id);
    await library.close();
    library = await openLibrary({ path, modelsDir: sharedPath("models"), ocr: false, speech: false });
    const report = await library.ingest(videos.map((video) => sharedPath("media/surveillance", video)));
    assert.equal(report.results.filter((result) => result.status === "ingested").length, 2);
    const stats = await library.modelStats();
    const models = Object.entries(stats);
    assert.ok(models.length >= 2, JSON.stringify(stats));
    for (const [model, counts] of models) {
      assert.equal(counts.calls, 0, `${model} was called again`);
      assert.ok(counts.cacheHits > 0, `${model} served from the cache`);
    }
    assert.equal((await library.search("bicycle", { limit: 1 }))[0]?.title, "person-bicycle-car-detection.mp4");
  });
});
