import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { needsShared, sharedPath } from "../test-support/shared.js";
import { chooseProviders, liteConfig } from "./registry.js";

const scratch = mkdtempSync(join(tmpdir(), "videorag-registry-test-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

test("a configured model that is not in the folder falls back, naming the folder, the pull command and the fallback", async () => {
  const config = liteConfig();
  config.modelsDir = join(scratch, "empty");
  config.models.imageText = { provider: "transformers", model: "Xenova/clip-vit-base-patch32" };
  config.models.detector = { provider: "off" };
  config.models.tagger = { provider: "off" };
  const choice = await chooseProviders(config, { ocr: false, speech: false });
  assert.equal(choice.imageText, undefined);
  const warning = choice.warnings.find((item) => item.feature === "image-text vectors");
  assert.ok(warning, JSON.stringify(choice.warnings));
  assert.equal(warning.type, "fallback");
  assert.ok(warning.detail.includes(join(scratch, "empty")), warning.detail);
  assert.match(warning.detail, /videorag models pull Xenova\/clip-vit-base-patch32/);
  assert.match(warning.detail, /visual search uses the detector's and tagger's words/);
  assert.ok(choice.summary.includes("objects: off"));
});

test("doctor's look never downloads: it says the model will be fetched when the library opens", async () => {
  const config = liteConfig();
  config.allowDownloads = true;
  config.modelsDir = join(scratch, "empty-2");
  config.models.textEmbedder = { provider: "transformers", model: "Xenova/all-MiniLM-L6-v2" };
  const choice = await chooseProviders(config, { ocr: false, speech: false, download: false });
  assert.equal(choice.textEmbedder, undefined);
  assert.match(choice.summary.find((line) => line.startsWith("text vectors:")) ?? "", /will be downloaded when the library opens/);
});

test("an unknown detector name is a fallback, not a crash", async () => {
  const config = liteConfig();
  config.models.detector = { provider: "onnx", model: "yolo-nonexistent" };
  const choice = await chooseProviders(config, { ocr: false, speech: false });
  assert.equal(choice.detector, undefined);
  assert.match(choice.summary.find((line) => line.startsWith("objects:")) ?? "", /unknown detector model "yolo-nonexistent"/);
});

test("with the ONNX files in the folder, the detector and tagger run by default, wrapped by the runtime", { skip: needsShared }, async () => {
  const config = liteConfig();
  config.modelsDir = sharedPath("models");
  const choice = await chooseProviders(config, { ocr: false, speech: false });
  assert.equal(choice.detector?.id, "yolox-nano");
  assert.equal(choice.tagger?.id, "mobilenetv2-12-int8");
  assert.equal(choice.vad?.id, "onnx:silero-vad");
  assert.deepEqual(choice.warnings, []);
  assert.deepEqual(choice.runtime.stats(), {});
});

test("voice-activity detection: off when asked, a quiet summary line when its file is missing, a fallback for a model of another kind", { skip: needsShared }, async () => {
  const off = liteConfig();
  off.modelsDir = sharedPath("models");
  off.models.vad = { provider: "off" };
  const offChoice = await chooseProviders(off, { ocr: false, speech: false });
  assert.equal(offChoice.vad, undefined);
  assert.ok(offChoice.summary.includes("speech activity: off"));

  const missing = liteConfig();
  missing.modelsDir = join(tmpdir(), "videorag-no-models-here");
  const missingChoice = await chooseProviders(missing, { ocr: false, speech: false });
  assert.equal(missingChoice.vad, undefined);
  assert.match(missingChoice.summary.find((line) => line.startsWith("speech activity:")) ?? "", /videorag models pull silero-vad/);
  assert.ok(!missingChoice.warnings.some((warning) => warning.feature === "speech activity"));

  const wrong = liteConfig();
  wrong.modelsDir = sharedPath("models");
  wrong.models.vad = { provider: "onnx", model: "yolox-nano" };
  const wrongChoice = await chooseProviders(wrong, { ocr: false, speech: false });
  assert.equal(wrongChoice.vad, undefined);
  assert.ok(wrongChoice.warnings.some((warning) => warning.feature === "speech activity"), JSON.stringify(wrongChoice.warnings));
});
