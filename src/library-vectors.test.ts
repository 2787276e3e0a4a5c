// Vectors end to end: an image-text encoder and a sentence embedder loaded by name through transformers.js from a local
// models folder. Real weights cannot be downloaded here, so the folder holds tiny generated stand-ins with the same
// files and graph signatures; their vectors mean nothing, but every step a real CLIP or MiniLM takes is taken.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { VideoRagConfig } from "./config/index.js";
import { liteConfig } from "./providers/registry.js";
import { writeTestClipModel, writeTestSentenceModel } from "./providers/transformers/test-models.js";
import { openLibrary, type Library } from "./library.js";
import { openSqliteStore } from "./store/index.js";
import { needsShared, sharedPath } from "./test-support/shared.js";

const scratch = mkdtempSync(join(tmpdir(), "videorag-vectors-test-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** A configuration whose image-text encoder and sentence embedder are tiny stand-ins written into `modelsDir`. */
async function standInModels(modelsDir: string): Promise<VideoRagConfig> {
  await writeTestClipModel(modelsDir, "test/tiny-clip");
  await writeTestSentenceModel(modelsDir, "test/tiny-minilm");
  const config = liteConfig();
  config.modelsDir = modelsDir;
  config.models.imageText = { provider: "transformers", model: "test/tiny-clip" };
  config.models.textEmbedder = { provider: "transformers", model: "test/tiny-minilm" };
  return config;
}

describe("image-text and dense text vectors from models loaded by name", { skip: needsShared }, () => {
  const path = join(scratch, "library");
  let library: Library;
  before(async () => {
    library = await openLibrary({ path, config: await standInModels(join(scratch, "models")), ocr: false, speech: false });
  });
  after(() => library.close());

  test("ingest stores a vector per sampled frame, per clip, and a text vector per clip with text", async () => {
    const report = await library.ingest([sharedPath("media/surveillance/car-detection.mp4"), sharedPath("media/subtitled/friday.mp4")]);
    assert.equal(report.failed, 0, JSON.stringify(report.results));
    assert.ok(report.providers?.includes("image-text vectors: transformers:test/tiny-clip (transformers.js)"), report.providers?.join("; "));
    assert.ok(report.providers?.includes("text vectors: transformers:test/tiny-minilm (transformers.js)"), report.providers?.join("; "));
    await library.close();
    const store = openSqliteStore(join(path, "library.sqlite"));
    try {
      const spaces = new Map((await store.vectorSpaces()).map((space) => [space.space, space]));
      const image = spaces.get("image:transformers:test/tiny-clip");
      // car-detection.mp4: 30 s at one frame every 2 s is 15 frames and 1 clip; friday.mp4: 6 s is 3 frames and 1 clip.
      assert.equal(image?.count, 15 + 1 + 3 + 1);
      assert.equal(image?.dimensions, 512);
      const text = spaces.get("text:transformers:test/tiny-minilm");
      assert.equal(text?.dimensions, 384);
      assert.ok((text?.count ?? 0) >= 1, "friday.mp4's clip has subtitles, so it has a text vector");
    } finally {
      await store.close();
    }
    library = await openLibrary({ path, ocr: false, speech: false });
  });
});

describe("retrieval fuses BM25 with the dense and visual retrievers", { skip: needsShared }, () => {
  let library: Library;
  before(async () => {
    library = await openLibrary({ path: join(scratch, "library-2"), config: await standInModels(join(scratch, "models-2")), ocr: false, speech: false });
    await library.ingest([sharedPath("media/subtitled/friday.mp4"), sharedPath("media/surveillance/bottle-detection.mp4")]);
  });
  after(() => library.close());

  test("chapters have vectors of their own: chapter search finds friday.mp4's chapter by words and by its vector", async () => {
    const found = await library.searchChapters("who is in a bad humor?", { limit: 3 });
    assert.equal(found[0]?.video.title, "friday.mp4");
    assert.deepEqual(new Set(found[0]?.retrievers), new Set(["bm25", "dense"]));
    // Without the question's words, only the vectors can find it.
    const byMeaning = await library.searchChapters("zzzz qqqq", { limit: 3 });
    assert.ok(byMeaning.every((match) => match.retrievers.join() === "dense"));
    assert.ok(byMeaning.length > 0);
  });

  test("every hit names the retrievers that found it; the subtitle match is found by bm25 and the vectors", async () => {
    const hits = await library.search("who is in a bad humor?", { limit: 5 });
    assert.equal(hits[0]?.title, "friday.mp4");
    // Hybrid, the default mode: text (BM25, dense and the graph's entities "bad humor", "humor") and frames.
    assert.deepEqual(new Set(hits[0]?.retriever.split("+")), new Set(["bm25", "dense", "graph", "visual"]));
    for (const hit of hits) assert.match(hit.retriever, /^(bm25|dense|graph|visual)(\+(bm25|dense|graph|visual))*$/);
    for (const hit of hits) assert.deepEqual(hit.provenance?.map((found) => found.retriever), hit.retriever.split("+"));
    assert.ok(hits.some((hit) => hit.title === "bottle-detection.mp4" && !hit.retriever.includes("bm25")), "vectors find clips BM25 cannot");
  });

  test("the answer names the retrievers it drew on", async () => {
    const answer = await library.ask("who is in a bad humor?");
    assert.match(answer.profile.summary, /hybrid mode: bm25\+dense\+graph\+visual \(dense: [^,]+, visual: [^)]+\)/);
    assert.match(answer.text, /\[friday\.mp4 0:03–0:04\]/);
  });
});
