import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { configSchema, loadConfig } from "../config/index.js";
import { needsShared, sharedPath } from "../test-support/shared.js";
import { writeTestSherpaModels } from "../test-support/sherpa-models.js";
import { chooseProviders, liteConfig } from "./registry.js";
import { loadSherpaOnnx } from "./sherpa/index.js";

const scratch = mkdtempSync(join(tmpdir(), "videorag-registry-test-"));
const needsPocketsphinx = spawnSync("pocketsphinx_continuous", ["-h"]).error ? "pocketsphinx is not installed" : false;
const sherpaMissing: string | false = await loadSherpaOnnx().then(
  () => false,
  (error: unknown) => `sherpa-onnx-node does not load here (an optional dependency): ${String(error)}`,
);
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

const needsTesseract = (await import("node:child_process")).spawnSync("tesseract", ["--version"]).error ? "tesseract is not installed" : false;

test("OCR reads the configured languages it has packs for, and names the packs to install for the rest", { skip: needsTesseract }, async () => {
  const config = liteConfig();
  config.models.ocr = { provider: "tesseract", languages: ["eng", "xyz"] };
  const choice = await chooseProviders(config, { speech: false });
  assert.equal(choice.ocr?.id, "tesseract:eng");
  assert.ok(choice.summary.includes("screen text: tesseract:eng (lite; missing tesseract-ocr-xyz)"), choice.summary.join("; "));
  const warning = choice.warnings.find((item) => item.feature === "screen text");
  assert.equal(warning?.detail, "tesseract has no xyz language pack (apt-get install tesseract-ocr-xyz); reading eng only");
  config.models.ocr = { provider: "tesseract", languages: ["xyz"] };
  const none = await chooseProviders(config, { speech: false });
  assert.equal(none.ocr, undefined);
  assert.ok(none.summary.includes("screen text: off (no configured language is installed: apt-get install tesseract-ocr-xyz)"), none.summary.join("; "));
  assert.throws(() => configSchema.parse({ models: { ocr: { provider: "tesseract", languages: ["German"] } } }), /tesseract language code/);
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

test("the lite transcriber listens for the configured vocabulary, named in its id; the configuration refuses a bad one", { skip: needsPocketsphinx }, async () => {
  const config = liteConfig();
  assert.equal((await chooseProviders(config, { ocr: false })).transcriber?.id, "pocketsphinx:en-us");
  config.models.transcriber = { provider: "pocketsphinx", vocabulary: "all" };
  const choice = await chooseProviders(config, { ocr: false });
  assert.equal(choice.transcriber?.id, "pocketsphinx:en-us/all");
  assert.ok(choice.summary.some((line) => line.startsWith("speech: pocketsphinx:en-us/all (lite")), JSON.stringify(choice.summary));
  const parse = (transcriber: unknown) => configSchema.safeParse({ models: { transcriber } });
  assert.ok(parse({ provider: "pocketsphinx", vocabulary: 20_000 }).success);
  assert.equal(parse({ provider: "pocketsphinx", vocabulary: 10 }).success, false, "too few words to recognise speech");
  assert.equal(parse({ provider: "pocketsphinx", vocabulary: 2.5e4 + 0.5 }).success, false);
  assert.equal(parse({ provider: "pocketsphinx", words: 20_000 }).success, false, "unknown key");
});

describe("the neural diarizer (sherpa-onnx)", () => {
  // Speakers are split only where speech is recognised; an OpenAI-compatible transcriber needs no program or network here.
  const withTranscriber = () => {
    const config = liteConfig();
    config.models.transcriber = { provider: "openai", model: "whisper-1", apiKeyEnv: "OPENAI_API_KEY" };
    config.models.detector = { provider: "off" };
    config.models.tagger = { provider: "off" };
    config.models.vad = { provider: "off" };
    return config;
  };

  test("configured while its model files are missing: the lite diarizer runs, with a fallback warning naming the pull command", async () => {
    const config = withTranscriber();
    config.modelsDir = join(scratch, "no-diarizer-models");
    config.models.diarizer = { provider: "sherpa-onnx" };
    const choice = await chooseProviders(config, { ocr: false, env: {} });
    assert.match(choice.diarizer?.id ?? "", /^lite-diarizer@/);
    assert.equal(choice.diarizer?.capabilities.embeddings, false);
    const warning = choice.warnings.find((item) => item.feature === "speakers");
    assert.ok(warning, JSON.stringify(choice.warnings));
    assert.equal(warning.type, "fallback");
    assert.match(warning.detail, /videorag models pull pyannote-segmentation-3\.0/);
    assert.match(warning.detail, /videorag models pull 3dspeaker-campplus-en-voxceleb/);
    assert.match(warning.detail, /lite diarizer/);
    const line = choice.summary.find((item) => item.startsWith("speakers:")) ?? "";
    assert.match(line, /^speakers: lite-diarizer@\d+ \(lite; sherpa-onnx is not used: pyannote-segmentation-3\.0 and 3dspeaker-campplus-en-voxceleb are not in .*\(videorag models pull pyannote-segmentation-3\.0 3dspeaker-campplus-en-voxceleb\)\)$/);
  });

  test("a name that is not a model of the right kind falls back too", async () => {
    const config = withTranscriber();
    config.models.diarizer = { provider: "sherpa-onnx", segmentation: "silero-vad" };
    const choice = await chooseProviders(config, { ocr: false, env: {} });
    assert.match(choice.diarizer?.id ?? "", /^lite-diarizer@/);
    assert.match(choice.warnings.find((item) => item.feature === "speakers")?.detail ?? "", /"silero-vad" is not a speaker-segmentation model/);
  });

  test("with its models in the folder it runs, gives voice vectors, and the summary line names both models", { skip: sherpaMissing }, async () => {
    const config = withTranscriber();
    config.modelsDir = join(scratch, "diarizer-models");
    await writeTestSherpaModels(config.modelsDir);
    config.models.diarizer = { provider: "sherpa-onnx", threshold: 0.6 };
    const choice = await chooseProviders(config, { ocr: false, env: {} });
    assert.equal(choice.diarizer?.id, "sherpa-onnx@1:pyannote-segmentation-3.0+3dspeaker-campplus-en-voxceleb:threshold=0.6");
    assert.equal(choice.diarizer?.capabilities.embeddings, true);
    assert.ok(!choice.warnings.some((warning) => warning.feature === "speakers"), JSON.stringify(choice.warnings));
    assert.ok(choice.summary.includes(`speakers: ${choice.diarizer?.id} (sherpa-onnx, ${config.modelsDir})`), JSON.stringify(choice.summary));
  });

  test("without speech recognition there is no diarizer, whatever is configured", async () => {
    const config = liteConfig();
    config.models.diarizer = { provider: "sherpa-onnx" };
    const choice = await chooseProviders(config, { ocr: false, speech: false });
    assert.equal(choice.diarizer, undefined);
    assert.ok(choice.summary.includes("speakers: off"));
  });

  test("the configuration accepts the sherpa-onnx entry (also from VIDEORAG_DIARIZER) and refuses unknown keys and bad thresholds", () => {
    const parse = (diarizer: unknown) => configSchema.safeParse({ models: { diarizer } });
    assert.ok(parse({ provider: "sherpa-onnx" }).success);
    assert.ok(parse({ provider: "sherpa-onnx", segmentation: "pyannote-segmentation-3.0", embedding: "3dspeaker-campplus-en-voxceleb", threshold: 0.7 }).success);
    assert.ok(parse({ provider: "lite" }).success);
    assert.equal(parse({ provider: "sherpa-onnx", model: "x" }).success, false, "unknown key");
    assert.equal(parse({ provider: "sherpa-onnx", threshold: 0 }).success, false);
    assert.equal(parse({ provider: "sherpa-onnx", threshold: 2 }).success, false);
    assert.equal(parse({ provider: "sherpa-onnx", segmentation: "" }).success, false);
    assert.equal(parse({ provider: "pyannote" }).success, false);
    const loaded = loadConfig({ cwd: scratch, env: { VIDEORAG_DIARIZER: "sherpa-onnx" } });
    assert.deepEqual(loaded.config.models.diarizer, { provider: "sherpa-onnx" });
  });
});
