// Every provider in the repo through its kind's shared suite, twice: as created, and wrapped by the model runtime, which
// is how the engine calls it. Real inputs from ../shared where the suite needs them (frames, speech), small generated
// ones otherwise (tiny transformers models, a drawn slide, the local OpenAI-compatible test server).

import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import { sampleRgbFrames } from "../media/rgb-frames.js";
import type { RgbImage } from "../spec/index.js";
import { startOpenAiTestServer, type OpenAiTestServer } from "../test-support/openai-test-server.js";
import { needsShared, sharedPath } from "../test-support/shared.js";
import { createPocketsphinxTranscriber, createTesseractOcr } from "./lite/index.js";
import { createMobilenetTagger, createYoloxDetector } from "./onnx/index.js";
import { createOpenAiEmbedder, createOpenAiLanguageModel, createOpenAiTranscriber } from "./openai-compatible/index.js";
import {
  runDetectorConformance,
  runImageTextEncoderConformance,
  runLanguageModelConformance,
  runOcrEngineConformance,
  runTaggerConformance,
  runTextEmbedderConformance,
  runTranscriberConformance,
  type OpenProvider,
} from "./provider-conformance.case.js";
import { createMemoryModelCache, createModelRuntime, type ModelRuntime } from "./runtime/index.js";
import { createClipEncoder, createSentenceEmbedder } from "./transformers/index.js";
import { writeTestClipModel, writeTestSentenceModel } from "./transformers/test-models.js";

/**
 * Registers `suite` for the provider as created and for the same provider wrapped by a fresh model runtime with an
 * output cache, as the engine uses it: answers from the cache must behave like the provider's own.
 */
function rawAndWrapped<P>(
  label: string,
  open: OpenProvider<P>,
  wrap: (runtime: ModelRuntime, provider: P) => P,
  suite: (label: string, open: OpenProvider<P>) => void,
): void {
  suite(label, open);
  suite(`${label}, wrapped by the model runtime`, async () => {
    const opened = await open();
    return { provider: wrap(createModelRuntime({ cache: createMemoryModelCache() }), opened.provider), close: opened.close };
  });
}

/** A provider on its own OpenAI-compatible test server, closed with it. */
function onTestServer<P>(create: (server: OpenAiTestServer) => P, embeddingDimensions?: number): OpenProvider<P> {
  return async () => {
    const server = await startOpenAiTestServer({ embeddingDimensions });
    return { provider: create(server), close: () => server.close() };
  };
}

const temporaryDirs: string[] = [];
after(async () => {
  for (const dir of temporaryDirs) await rm(dir, { recursive: true, force: true });
});

// One folder for both tiny models: transformers.js reads the models folder from a global, so every provider in this
// process must use the same one.
let tinyModels: Promise<string> | undefined;
function tinyModelsDir(): Promise<string> {
  tinyModels ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), "videorag-conformance-models-"));
    temporaryDirs.push(dir);
    await writeTestSentenceModel(dir, "test/tiny-minilm", 64);
    await writeTestClipModel(dir, "test/tiny-clip", 64);
    return dir;
  })();
  return tinyModels;
}

// --- TextEmbedder ----------------------------------------------------------------------------------------------------

rawAndWrapped(
  "openai embeddings on the test server",
  onTestServer((server) => createOpenAiEmbedder({ baseUrl: server.url, model: "test-model", dimensions: 48, maxBatchSize: 2 }), 48),
  (runtime, provider) => runtime.wrapTextEmbedder(provider),
  (label, open) => runTextEmbedderConformance(label, open),
);

rawAndWrapped(
  "transformers sentence embedder on a tiny generated model",
  async () => ({
    provider: createSentenceEmbedder({ model: "test/tiny-minilm", dimensions: 64, modelsDir: await tinyModelsDir(), allowDownload: false }),
  }),
  (runtime, provider) => runtime.wrapTextEmbedder(provider),
  (label, open) => runTextEmbedderConformance(label, open),
);

// --- ImageTextEncoder ------------------------------------------------------------------------------------------------

// The stand-in's text vector is the mean over every token, padding included, so in a batch a shorter text would move
// towards the padding row. Real CLIP reads the vector at the end-of-text token, which padding does not change. Texts of
// one length (one token a word) keep the batch case about the provider rather than the stand-in.
const sixWordTexts = ["a red car on the mat", "the blue sky on a car", "a red car on the mat", "a cat on the red mat"];

rawAndWrapped(
  "transformers CLIP encoder on a tiny generated model",
  async () => ({
    provider: createClipEncoder({ model: "test/tiny-clip", dimensions: 64, modelsDir: await tinyModelsDir(), allowDownload: false }),
  }),
  (runtime, provider) => runtime.wrapImageTextEncoder(provider),
  (label, open) => runImageTextEncoderConformance(label, open, { texts: sixWordTexts }),
);

// --- LanguageModel ---------------------------------------------------------------------------------------------------

rawAndWrapped(
  "openai chat on the test server, text only",
  onTestServer((server) => createOpenAiLanguageModel({ baseUrl: server.url, model: "test-model", maxConcurrency: 2 })),
  (runtime, provider) => runtime.wrapLanguageModel(provider),
  (label, open) => runLanguageModelConformance(label, open),
);

rawAndWrapped(
  "openai chat on the test server, accepting 3 images",
  onTestServer((server) =>
    createOpenAiLanguageModel({ baseUrl: server.url, model: "test-model", acceptsImages: true, maxImages: 3, contextTokens: 8192 }),
  ),
  (runtime, provider) => runtime.wrapLanguageModel(provider),
  (label, open) => runLanguageModelConformance(label, open),
);

// --- Detector and Tagger ---------------------------------------------------------------------------------------------

// Three small frames of bottles on a shelf, 6 s apart, decoded once for both models.
let bottleFrames: Promise<RgbImage[]> | undefined;
function frames(): Promise<RgbImage[]> {
  bottleFrames ??= (async () => {
    const taken: RgbImage[] = [];
    for await (const frame of sampleRgbFrames(sharedPath("media/surveillance/bottle-detection.mp4"), { everySeconds: 6, maxSide: 320 })) {
      taken.push(frame);
      if (taken.length === 3) break;
    }
    return taken;
  })();
  return bottleFrames;
}

rawAndWrapped(
  "yolox-nano on frames of bottle-detection.mp4",
  async () => ({
    provider: createYoloxDetector({ modelPath: sharedPath("models/yolox_nano.onnx"), labelsPath: sharedPath("models/coco_labels.txt") }),
  }),
  (runtime, provider) => runtime.wrapDetector(provider),
  (label, open) => runDetectorConformance(label, open, { images: frames, skip: needsShared }),
);

rawAndWrapped(
  "mobilenetv2 on frames of bottle-detection.mp4",
  async () => ({
    provider: createMobilenetTagger({
      modelPath: sharedPath("models/mobilenetv2-12-int8.onnx"),
      labelsPath: sharedPath("models/imagenet_labels.txt"),
    }),
  }),
  (runtime, provider) => runtime.wrapTagger(provider),
  (label, open) => runTaggerConformance(label, open, { images: frames, skip: needsShared }),
);

// --- Transcriber -----------------------------------------------------------------------------------------------------

const jfk = needsShared ? "" : sharedPath("media/audio/jfk.wav");
// "And so my fellow Americans, ask not what your country can do for you; ask what you can do for your country."
const jfkWords = ["americans", "country"];

rawAndWrapped(
  "openai transcriptions on the test server",
  onTestServer((server) => createOpenAiTranscriber({ baseUrl: server.url, model: "test-model" })),
  (runtime, provider) => runtime.wrapTranscriber(provider),
  (label, open) => runTranscriberConformance(label, open, { wavPath: jfk, expectedWords: jfkWords, skip: needsShared }),
);

const needsPocketsphinx = spawnSync("pocketsphinx_continuous", ["-h"]).error ? "pocketsphinx is not installed" : false;
rawAndWrapped(
  "pocketsphinx on jfk.wav",
  async () => ({ provider: createPocketsphinxTranscriber() }),
  (runtime, provider) => runtime.wrapTranscriber(provider),
  (label, open) =>
    runTranscriberConformance(label, open, { wavPath: jfk, expectedWords: jfkWords, skip: needsShared || needsPocketsphinx }),
);

// --- OcrEngine -------------------------------------------------------------------------------------------------------

const fontFile = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
const needsTesseract = spawnSync("tesseract", ["--version"]).error
  ? "tesseract is not installed"
  : existsSync(fontFile)
    ? false
    : `no font at ${fontFile} to draw a test slide with`;

/** A 640 × 360 PNG drawn by ffmpeg: white, with `lines` of black text when given. */
function slide(lines: string[]): Buffer {
  const drawn = lines.map((text, index) => `drawtext=fontfile=${fontFile}:text='${text}':fontsize=36:fontcolor=black:x=40:y=${60 + index * 80}`);
  return execFileSync(
    "ffmpeg",
    [
      "-loglevel", "error", "-f", "lavfi", "-i", "color=white:s=640x360",
      ...(drawn.length > 0 ? ["-vf", drawn.join(",")] : []),
      "-frames:v", "1", "-f", "image2pipe", "-c:v", "png", "-",
    ],
    { maxBuffer: 16 * 1024 * 1024 },
  );
}

rawAndWrapped(
  "tesseract on a drawn slide",
  async () => ({ provider: createTesseractOcr() }),
  (runtime, provider) => runtime.wrapOcr(provider),
  (label, open) =>
    runOcrEngineConformance(label, open, {
      skip: needsTesseract,
      samples: () => ({
        text: { data: slide(["Quarterly Revenue Growth", "Deployment pipeline"]), mimeType: "image/png" },
        expectedWords: ["quarterly", "revenue", "growth", "deployment", "pipeline"],
        blank: { data: slide([]), mimeType: "image/png" },
      }),
    }),
);
