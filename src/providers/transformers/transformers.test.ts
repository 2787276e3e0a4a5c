// transformers.js providers. No real CLIP, MiniLM or Whisper weights can be had on the machines these tests run on, so:
// missing models are checked against ../shared/models (where they are absent), and the load, download and inference
// paths run for real through transformers.js and onnxruntime on tiny generated stand-ins (test-models.ts). Whisper has
// no stand-in (its decoder with a key/value cache is too much to fake); its input handling and timing are tested alone.

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { RgbImage } from "../../spec/providers.js";
import { needsShared, sharedPath } from "../../test-support/shared.js";
import { listModels } from "../models/index.js";
import { createClipEncoder, createSentenceEmbedder, createWhisperTranscriber } from "./index.js";
import { writeTestClipModel, writeTestSentenceModel } from "./test-models.js";
import { planBlocks, toSegments } from "./whisper-transcriber.js";
import { rejectsWith } from "../../test-support/assertions.js";


function solid(width: number, height: number, rgb: [number, number, number]): RgbImage {
  const data = new Uint8Array(width * height * 3);
  for (let index = 0; index < data.length; index += 1) data[index] = rgb[index % 3] ?? 0;
  return { width, height, data };
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let index = 0; index < a.length; index += 1) sum += (a[index] ?? 0) * (b[index] ?? 0);
  return sum;
}

function assertUnit(vector: Float32Array | undefined, dimensions: number): void {
  assert.ok(vector);
  assert.equal(vector.length, dimensions);
  assert.ok(Math.abs(Math.sqrt(dot(vector, vector)) - 1) < 1e-5, "the vector has unit length");
}

/** A 16-bit PCM WAV of `samples` at `sampleRate`. */
function wav(samples: Int16Array, sampleRate = 16_000): Buffer {
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "ascii");
  header.writeUInt32LE(36 + samples.byteLength, 4);
  header.write("WAVEfmt ", 8, "ascii");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36, "ascii");
  header.writeUInt32LE(samples.byteLength, 40);
  return Buffer.concat([header, Buffer.from(samples.buffer)]);
}

const temporaryDirs: string[] = [];
async function temporaryDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "videorag-transformers-"));
  temporaryDirs.push(dir);
  return dir;
}
after(async () => {
  for (const dir of temporaryDirs) await rm(dir, { recursive: true, force: true });
});

test("creating a provider reads nothing: a folder that does not exist is neither needed nor made", async () => {
  const dir = join(await temporaryDir(), "not-there");
  const clip = createClipEncoder({ modelsDir: dir, allowDownload: false });
  const sentences = createSentenceEmbedder({ modelsDir: dir, allowDownload: false });
  const whisper = createWhisperTranscriber({ modelsDir: dir, allowDownload: false });
  assert.equal(clip.id, "transformers:Xenova/clip-vit-base-patch32");
  assert.deepEqual(clip.capabilities, { maxBatchSize: 16, maxConcurrency: 1, dimensions: 512 });
  assert.equal(sentences.id, "transformers:Xenova/all-MiniLM-L6-v2");
  assert.deepEqual(sentences.capabilities, { maxBatchSize: 32, maxConcurrency: 1, dimensions: 384 });
  assert.equal(whisper.id, "transformers:Xenova/whisper-base.en");
  assert.deepEqual(whisper.capabilities, { languages: ["en"], maxConcurrency: 1, timestamps: "segment" });
  assert.ok(createWhisperTranscriber({ model: "onnx-community/whisper-base" }).capabilities.languages.includes("de"));
  assert.equal(existsSync(dir), false);
  // Empty requests are answered without loading anything, so they succeed even with the model missing.
  assert.deepEqual(await clip.embedTexts([]), []);
  assert.deepEqual(await clip.embedImages([]), []);
  assert.deepEqual(await sentences.embed([]), []);
  assert.equal(existsSync(dir), false);
});

describe("with the Hugging Face models absent (../shared/models) and downloads off", { skip: needsShared }, () => {
  const cases = [
    {
      name: "Xenova/clip-vit-base-patch32",
      call: "embedTexts",
      fallback: "no image-text vectors; visual search uses detector and tagger words",
      use: (dir: string) => createClipEncoder({ modelsDir: dir, allowDownload: false }).embedTexts(["a red car"]),
    },
    {
      name: "Xenova/clip-vit-base-patch32",
      call: "embedImages",
      fallback: "no image-text vectors",
      use: (dir: string) => createClipEncoder({ modelsDir: dir, allowDownload: false }).embedImages([solid(8, 8, [255, 0, 0])]),
    },
    {
      name: "Xenova/all-MiniLM-L6-v2",
      call: "embed",
      fallback: "text search uses BM25 keywords only",
      use: (dir: string) => createSentenceEmbedder({ modelsDir: dir, allowDownload: false }).embed(["a red car"]),
    },
    {
      name: "Xenova/whisper-base.en",
      call: "transcribe",
      fallback: "pocketsphinx",
      use: (dir: string) => createWhisperTranscriber({ modelsDir: dir, allowDownload: false }).transcribe(sharedPath("media", "audio", "jfk.wav")),
    },
  ];
  for (const { name, call, fallback, use } of cases) {
    test(`${name}: the first ${call} fails with MODEL_NOT_FOUND naming the folder, the pull command and the fallback`, async () => {
      const dir = sharedPath("models");
      const error = await rejectsWith(use(dir), "MODEL_NOT_FOUND");
      assert.ok(error.message.includes(dir), error.message);
      assert.ok(error.message.includes(`videorag models pull ${name}`), error.message);
      assert.ok(error.message.includes(fallback), error.message);
      assert.ok(error.message.includes("downloads are turned off"), error.message);
      // It stays retryable: a second call checks the folder again rather than replaying a cached failure.
      await rejectsWith(use(dir), "MODEL_NOT_FOUND");
    });
  }
});

test("a model the manifest does not know is looked for under <folder>/<org>/<name>", async () => {
  const dir = await temporaryDir();
  const embedder = createSentenceEmbedder({ model: "someone/tiny-embedder", modelsDir: dir, allowDownload: false });
  const error = await rejectsWith(embedder.embed(["hello"]), "MODEL_NOT_FOUND");
  assert.ok(error.message.includes(join(dir, "someone", "tiny-embedder")), error.message);
  assert.ok(error.message.includes("https://huggingface.co/someone/tiny-embedder"), error.message);
});

describe("tiny stand-in models, loaded offline from the models folder", () => {
  let dir = "";
  before(async () => {
    dir = await temporaryDir();
    await writeTestSentenceModel(dir, "Xenova/all-MiniLM-L6-v2");
    await writeTestClipModel(dir, "Xenova/clip-vit-base-patch32");
  });

  test("the models count as present in the layout the manifest lists", async () => {
    const listing = await listModels(dir);
    assert.equal(listing.find((model) => model.name === "Xenova/all-MiniLM-L6-v2")?.status, "present");
    assert.equal(listing.find((model) => model.name === "Xenova/clip-vit-base-patch32")?.status, "present");
  });

  test("an E5 model is given its prefixes, a question as a query and the rest as passages; other models are not", async () => {
    await writeTestSentenceModel(dir, "Xenova/multilingual-e5-small", 384, [["query"], ["passage"], ["lighthouse", "leuchtturm"]]);
    const e5 = createSentenceEmbedder({ modelsDir: dir, model: "Xenova/multilingual-e5-small", allowDownload: false });
    const [asked] = await e5.embed(["lighthouse"], { purpose: "query" });
    const [passage] = await e5.embed(["Leuchtturm"]);
    const [statedPassage] = await e5.embed(["Leuchtturm"], { purpose: "passage" });
    assert.ok(asked && passage && statedPassage);
    assert.ok(dot(passage, statedPassage) > 0.99999, "a passage by default");
    assert.ok(dot(asked, passage) < 0.95, "the query prefix moves the question's vector");
    const miniLm = createSentenceEmbedder({ modelsDir: dir, allowDownload: false });
    const [plain] = await miniLm.embed(["the cat"], { purpose: "query" });
    const [plainPassage] = await miniLm.embed(["the cat"]);
    assert.ok(plain && plainPassage && dot(plain, plainPassage) > 0.99999, "MiniLM reads the text as it is");
  });

  test("sentence vectors are 384-long, unit length, and do not depend on what else is in the batch", async () => {
    const embedder = createSentenceEmbedder({ modelsDir: dir, allowDownload: false });
    const [alone] = await embedder.embed(["The cat"]);
    const [cat, dog, unknown] = await embedder.embed(["the cat", "a dog on the mat", "zebra"]);
    for (const vector of [alone, cat, dog, unknown]) assertUnit(vector, 384);
    assert.ok(alone && cat && dog);
    // Padding the short text to the batch's longest must not change its mean-pooled vector.
    assert.ok(dot(alone, cat) > 0.99999, "the same text gives the same vector, padded or not");
    assert.ok(dot(cat, dog) < 0.9, "different texts give different vectors");
  });

  test("a dimensions setting that does not match the model is MODEL_OUTPUT_INVALID, not a silent wrong length", async () => {
    const embedder = createSentenceEmbedder({ modelsDir: dir, allowDownload: false, dimensions: 256 });
    const error = await rejectsWith(embedder.embed(["the cat"]), "MODEL_OUTPUT_INVALID");
    assert.match(error.message, /384/);
  });

  test("CLIP text and image vectors are 512-long and unit length; equal images match, different ones do not", async () => {
    const encoder = createClipEncoder({ modelsDir: dir, allowDownload: false });
    const [redCar, blueSky] = await encoder.embedTexts(["red car", "blue sky"]);
    assertUnit(redCar, 512);
    assertUnit(blueSky, 512);
    assert.ok(redCar && blueSky && dot(redCar, blueSky) < 0.9);

    // Different sizes and aspect ratios: the processor resizes and crops each to 224 × 224.
    const [red, blue, redAgain] = await encoder.embedImages([solid(64, 48, [255, 0, 0]), solid(300, 200, [0, 0, 255]), solid(31, 77, [255, 0, 0])]);
    for (const vector of [red, blue, redAgain]) assertUnit(vector, 512);
    assert.ok(red && blue && redAgain);
    assert.ok(dot(red, redAgain) > 0.9999, "two red images give the same vector");
    assert.ok(dot(red, blue) < 0.9, "red and blue images give different vectors");

    // CLIP sees the centre square, as in training: blue bars beside a red centre are cut away, not squeezed in.
    const wide = solid(300, 100, [0, 0, 255]);
    for (let row = 0; row < 100; row += 1) wide.data.set(solid(100, 1, [255, 0, 0]).data, (row * 300 + 100) * 3);
    const [centre] = await encoder.embedImages([wide]);
    assert.ok(centre && dot(centre, red) > 0.9999, "a red centre between blue bars embeds like a red image");
  });

  test("an image whose bytes do not match its size is INPUT_UNSUPPORTED", async () => {
    const encoder = createClipEncoder({ modelsDir: dir, allowDownload: false });
    const broken = { width: 10, height: 10, data: new Uint8Array(10 * 10 * 4) };
    const error = await rejectsWith(encoder.embedImages([broken]), "INPUT_UNSUPPORTED");
    assert.match(error.message, /10x10/);
  });

  test("an aborted call is INTERRUPTED", async () => {
    const encoder = createClipEncoder({ modelsDir: dir, allowDownload: false });
    const controller = new AbortController();
    controller.abort();
    await rejectsWith(encoder.embedTexts(["red car"], { signal: controller.signal }), "INTERRUPTED");
  });
});

describe("downloading into the models folder, from a local stand-in for huggingface.co", () => {
  let source = "";
  let remoteHost = "";
  let previousHost = "";
  const requested: string[] = [];
  const server = createServer((request, response) => {
    const url = request.url ?? "";
    requested.push(url);
    const match = /^\/(.+?)\/resolve\/main\/(.+)$/.exec(url);
    const path = match ? join(source, ...(match[1] ?? "").split("/"), ...(match[2] ?? "").split("/")) : "";
    readFile(path).then(
      (body) => response.writeHead(200, { "content-length": body.length, "content-type": "application/octet-stream" }).end(body),
      () => response.writeHead(404).end(),
    );
  });

  before(async () => {
    source = await temporaryDir();
    await writeTestSentenceModel(source, "Xenova/all-MiniLM-L6-v2");
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    remoteHost = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    // transformers.js has one global hub address; point it at the local server for these tests only.
    const { env } = await import("@huggingface/transformers");
    previousHost = env.remoteHost;
    env.remoteHost = remoteHost;
  });
  after(async () => {
    const { env } = await import("@huggingface/transformers");
    env.remoteHost = previousHost;
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  });

  test("a missing model is fetched with progress into <folder>/<org>/<name>/ and then loads offline", async () => {
    const dir = await temporaryDir();
    const progress: [string, number, number | undefined][] = [];
    const embedder = createSentenceEmbedder({ modelsDir: dir, onProgress: (file, done, total) => progress.push([file, done, total]) });
    const [vector] = await embedder.embed(["the cat"]);
    assertUnit(vector, 384);

    const weights = "Xenova/all-MiniLM-L6-v2/onnx/model_quantized.onnx";
    const { size } = await stat(join(dir, ...weights.split("/")));
    assert.deepEqual(progress.filter(([file]) => file === weights).at(-1), [weights, size, size]);
    const listing = await listModels(dir);
    assert.equal(listing.find((model) => model.name === "Xenova/all-MiniLM-L6-v2")?.status, "present");

    // The next run needs no server.
    const before = requested.length;
    const offline = createSentenceEmbedder({ modelsDir: dir, allowDownload: false });
    const [again] = await offline.embed(["the cat"]);
    assert.ok(vector && again && dot(vector, again) > 0.99999);
    assert.equal(requested.length, before, "nothing was requested for a model already in the folder");
  });

  test("a download the server cannot serve is MODEL_NOT_FOUND saying the download failed", async () => {
    const dir = await temporaryDir();
    const encoder = createClipEncoder({ modelsDir: dir });
    const error = await rejectsWith(encoder.embedTexts(["red car"]), "MODEL_NOT_FOUND");
    assert.match(error.message, /downloading it failed/);
    assert.ok(error.message.includes(dir), error.message);
    assert.ok(error.message.includes("no image-text vectors"), error.message);
  });
});

describe("Whisper input and timing", () => {
  test("a WAV that is not 16 kHz mono is INPUT_UNSUPPORTED, checked before any model is loaded", async () => {
    const dir = await temporaryDir();
    const path = join(dir, "cd.wav");
    await writeFile(path, wav(new Int16Array(44_100), 44_100));
    const whisper = createWhisperTranscriber({ modelsDir: join(dir, "models"), allowDownload: false });
    const error = await rejectsWith(whisper.transcribe(path), "INPUT_UNSUPPORTED");
    assert.match(error.message, /44100 Hz/);
  });

  test("audio too short to hold speech gives no segments and needs no model", async () => {
    const dir = await temporaryDir();
    const path = join(dir, "blip.wav");
    await writeFile(path, wav(new Int16Array(100)));
    const whisper = createWhisperTranscriber({ modelsDir: join(dir, "models"), allowDownload: false });
    const seen: number[] = [];
    const result = await whisper.transcribe(path, { onProgress: (done) => seen.push(done) });
    assert.deepEqual(result, { segments: [], warnings: [] });
    assert.deepEqual(seen, [0]);
  });

  test("long audio is cut into blocks of about five minutes at the quietest moment before each boundary", () => {
    const frameRate = 100; // 10 ms frames
    const seconds = 11 * 60;
    const energies = new Float64Array(seconds * frameRate).fill(1_000_000);
    // A pause at 4:50 (within the 20 s before the 5-minute mark) and a decoy at 4:00 (too early to be used).
    for (const pauseSecond of [290, 240]) energies.fill(10, pauseSecond * frameRate, (pauseSecond + 0.5) * frameRate);
    const blocks = planBlocks(energies, seconds * 16_000);
    const boundaries = blocks.map((block) => block.endSample / 16_000);
    assert.equal(blocks.length, 2, JSON.stringify(boundaries));
    assert.ok(Math.abs((boundaries[0] ?? 0) - 290.25) <= 0.2, `first cut at ${boundaries[0]}`);
    assert.equal(blocks[1]?.startSample, blocks[0]?.endSample, "blocks are contiguous");
    assert.equal(blocks.at(-1)?.endSample, seconds * 16_000, "the last block ends with the audio");
    // The 6 minutes left after the cut are under 5 × 4/3 minutes: one longer last block rather than a short tail.
    assert.deepEqual(planBlocks(new Float64Array(60 * frameRate), 60 * 16_000), [{ startSample: 0, endSample: 60 * 16_000 }]);
  });

  test("Whisper's chunks become segments on the file's clock, without bracketed non-speech", () => {
    const output = {
      text: " And so my fellow Americans [BLANK_AUDIO] ask not",
      chunks: [
        { timestamp: [0, 4.5] as [number, number], text: " And so my fellow Americans" },
        { timestamp: [4.5, 6] as [number, number], text: " [BLANK_AUDIO]" },
        { timestamp: [6, null] as unknown as [number, number], text: " ask not" },
      ],
    };
    assert.deepEqual(toSegments(output, 300.25, 310), [
      { startSecond: 300.25, endSecond: 304.75, text: "And so my fellow Americans" },
      { startSecond: 306.25, endSecond: 310, text: "ask not" },
    ]);
  });
});
