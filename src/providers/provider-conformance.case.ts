// The shared test suites for model providers, one per kind: every provider of a kind (and the same provider wrapped by
// the model runtime) runs the same cases, so the engine can rely on one behaviour whatever serves the model.

import assert from "node:assert/strict";
import { open as openFile } from "node:fs/promises";
import { after, before, describe, test, type TestContext } from "node:test";
import { inspect } from "node:util";
import { readWavLayout } from "../media/index.js";
import { VideoRagError, type ErrorCode } from "../spec/index.js";
import type {
  ChatMessage,
  Detection,
  Detector,
  ImageInput,
  ImageTextEncoder,
  LanguageModel,
  OcrEngine,
  RgbImage,
  Tag,
  Tagger,
  TextEmbedder,
  Transcriber,
  TranscriptSegment,
} from "../spec/index.js";

/** A provider under test, and how to let it go once its suite is done. */
export interface OpenedProvider<P> {
  provider: P;
  close?(): Promise<void> | void;
}

/** Opens the provider under test; called once per suite, before its first case. */
export type OpenProvider<P> = () => Promise<OpenedProvider<P>>;

/** What every suite accepts. */
export interface ConformanceOptions {
  /** Skips the whole suite, printing this reason (e.g. a program or model that is not installed). */
  skip?: string | false;
}

export interface TextEmbedderConformanceOptions extends ConformanceOptions {
  /** Three or more texts, the first two different. */
  texts?: string[];
}

export interface ImageTextEncoderConformanceOptions extends ConformanceOptions {
  /** Three or more texts, the first two different. */
  texts?: string[];
  /** Two or more images of different content; default: small solid colours of different sizes. */
  images?: () => RgbImage[] | Promise<RgbImage[]>;
}

export interface ImageModelConformanceOptions extends ConformanceOptions {
  /** Two or three real pictures; for a detector, at least one must show an object it knows. */
  images: () => RgbImage[] | Promise<RgbImage[]>;
}

export interface LanguageModelConformanceOptions extends ConformanceOptions {
  /** Attached to messages for models that accept images; default: a 1 × 1 PNG. */
  image?: ImageInput;
}

export interface TranscriberConformanceOptions extends ConformanceOptions {
  /** A 16 kHz mono 16-bit PCM WAV file of speech. */
  wavPath: string;
  /** Words said in the audio; the transcript must contain at least one of them. */
  expectedWords?: string[];
}

/** The images an OCR engine is tried on. */
export interface OcrSamples {
  /** Clear printed text. */
  text: ImageInput;
  /** Words in that image; every one must be read (case aside). */
  expectedWords: string[];
  /** The same kind of image with no text at all. */
  blank: ImageInput;
}

export interface OcrConformanceOptions extends ConformanceOptions {
  samples: () => OcrSamples | Promise<OcrSamples>;
}

// ---------------------------------------------------------------------------------------------------------------------
// Shared helpers.

// A generous bound: the slowest case (a lite transcriber on 11 s of speech) takes under 10 s on two cores. A provider
// that hangs fails here instead of stalling the run.
const caseTimeoutMs = 60_000;
// An aborted call has nothing to wait for; one that takes longer than this is treated as hanging.
const abortSettleMs = 5_000;

// The third text repeats the first: a batch holding one input twice must give it the same vector both times. The order
// is not symmetric, so a batch returned reversed cannot pass for the right one.
const defaultTexts = ["a red car on the road", "the blue sky", "a red car on the road", "a cat on the mat"];

/** 1 × 1 white PNG. */
const onePixelPng: ImageInput = {
  data: Buffer.from(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
    "base64",
  ),
  mimeType: "image/png",
};

/** Registers `describe(label)` that opens the provider once before its cases and closes it after them. */
function describeProvider<P>(
  kind: string,
  label: string,
  open: OpenProvider<P>,
  options: ConformanceOptions,
  cases: (provider: () => P) => void,
): void {
  describe(`${kind} conformance: ${label}`, { skip: options.skip ?? false }, () => {
    let opened: OpenedProvider<P> | undefined;
    before(async () => {
      opened = await open();
    });
    after(async () => {
      await opened?.close?.();
    });
    cases(() => {
      if (!opened) throw new Error(`${label} did not open`);
      return opened.provider;
    });
  });
}

/** A case with a time limit, so a provider that never answers fails instead of stalling the run. */
function conformanceTest(name: string, body: (context: TestContext) => Promise<void> | void): void {
  test(name, { timeout: caseTimeoutMs }, body);
}

function assertPositiveInteger(value: unknown, name: string): void {
  assert.ok(typeof value === "number" && Number.isInteger(value) && value > 0, `${name} must be a positive integer, not ${inspect(value)}`);
}

/** Capabilities are data: numbers, strings, booleans and arrays or objects of them, which can be logged and compared. */
function assertPlainData(value: unknown, path = "capabilities"): void {
  if (Array.isArray(value)) value.forEach((item, index) => assertPlainData(item, `${path}[${index}]`));
  else if (typeof value === "object" && value !== null) {
    const prototype: unknown = Object.getPrototypeOf(value);
    assert.ok(prototype === Object.prototype || prototype === null, `${path} must be a plain object`);
    for (const [name, item] of Object.entries(value)) assertPlainData(item, `${path}.${name}`);
  } else {
    assert.ok(
      typeof value === "string" || typeof value === "boolean" || (typeof value === "number" && Number.isFinite(value)),
      `${path} must be a finite number, a string or a boolean, not ${inspect(value)}`,
    );
  }
}

function assertId(id: unknown): void {
  assert.ok(typeof id === "string" && id.trim() !== "", `the provider id must be a non-empty string, not ${inspect(id)}`);
}

function assertLabels(labels: unknown): void {
  assert.ok(Array.isArray(labels) && labels.length > 0, "capabilities.labels must be a non-empty array");
  for (const label of labels) assert.ok(typeof label === "string" && label.trim() !== "", `a label must be a non-empty string, not ${inspect(label)}`);
}

function norm(vector: Float32Array): number {
  let sum = 0;
  for (const value of vector) sum += value * value;
  return Math.sqrt(sum);
}

/** One vector per input, each `dimensions` long, finite and of unit length. */
function assertUnitVectors(vectors: unknown, count: number, dimensions: number): asserts vectors is Float32Array[] {
  assert.ok(Array.isArray(vectors), "the result must be an array");
  assert.equal(vectors.length, count, "one vector per input");
  vectors.forEach((vector: unknown, index) => {
    assert.ok(vector instanceof Float32Array, `vector ${index} must be a Float32Array, not ${inspect(vector)}`);
    assert.equal(vector.length, dimensions, `vector ${index} has capabilities.dimensions entries`);
    assert.ok(vector.every(Number.isFinite), `vector ${index} has only finite values`);
    const length = norm(vector);
    assert.ok(Math.abs(length - 1) <= 1e-3, `vector ${index} is L2-normalised (its length is ${length})`);
  });
}

function maxDifference(a: Float32Array, b: Float32Array): number {
  assert.equal(a.length, b.length);
  let largest = 0;
  for (let index = 0; index < a.length; index++) largest = Math.max(largest, Math.abs((a[index] ?? 0) - (b[index] ?? 0)));
  return largest;
}

function assertSameVectors(batch: Float32Array[], singles: Float32Array[], what: string): void {
  assert.equal(batch.length, singles.length);
  batch.forEach((vector, index) => {
    const difference = maxDifference(vector, singles[index] as Float32Array);
    assert.ok(difference <= 1e-5, `${what} ${index}: embedded in a batch and alone differ by ${difference}`);
  });
}

/** Embeds each input alone, one call at a time. */
async function oneByOne<I, O>(inputs: I[], call: (inputs: I[]) => Promise<O[]>): Promise<O[]> {
  const outputs: O[] = [];
  for (const input of inputs) {
    const result = await call([input]);
    assert.equal(result.length, 1, "one result for one input");
    outputs.push(result[0] as O);
  }
  return outputs;
}

/** Settles with `work`, or fails naming `what` when it takes longer than `ms`. */
async function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new assert.AssertionError({ message: `${what} did not settle within ${ms} ms` })), ms);
  });
  try {
    return await Promise.race([work, hang]);
  } finally {
    clearTimeout(timer);
  }
}

/** Awaits `work`, which must reject with a VideoRagError of one of `codes`; returns that error. */
async function rejectsWith(work: () => Promise<unknown>, codes: readonly ErrorCode[], what: string): Promise<VideoRagError> {
  let outcome: { error: unknown } | undefined;
  try {
    // Called inside the try: a provider that throws synchronously instead of rejecting is caught here too.
    await within(work(), abortSettleMs, what);
  } catch (error) {
    if (error instanceof assert.AssertionError) throw error;
    outcome = { error };
  }
  assert.ok(outcome, `${what} resolved; it must reject with ${codes.join(" or ")}`);
  const { error } = outcome;
  assert.ok(VideoRagError.isInstance(error), `${what} must reject with a VideoRagError, not ${inspect(error)}`);
  assert.ok(codes.includes(error.code), `${what} rejected with ${error.code} (${error.message}); expected ${codes.join(" or ")}`);
  return error;
}

const interruptedCodes: readonly ErrorCode[] = ["INTERRUPTED", "MODEL_TIMEOUT"];
const badInputCodes: readonly ErrorCode[] = ["ARGUMENT_INVALID", "INPUT_UNSUPPORTED"];

function abortedSignal(): AbortSignal {
  const controller = new AbortController();
  controller.abort();
  return controller.signal;
}

/** An RGB image whose bytes do not match its size: half of them are missing. */
function truncatedImage(): RgbImage {
  return { width: 8, height: 8, data: new Uint8Array((8 * 8 * 3) / 2) };
}

function solidImage(width: number, height: number, rgb: [number, number, number]): RgbImage {
  const data = new Uint8Array(width * height * 3);
  for (let index = 0; index < data.length; index++) data[index] = rgb[index % 3] ?? 0;
  return { width, height, data };
}

/** Lower-case words of a text, punctuation dropped. */
function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];
}

/** Loads once, on first use, and shares the promise. */
function once<T>(load: () => T | Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => (pending ??= Promise.resolve().then(load));
}

// ---------------------------------------------------------------------------------------------------------------------
// TextEmbedder

/** The cases every TextEmbedder passes: sane capabilities, unit vectors, batch-invariant and ordered, empty in → out. */
export function runTextEmbedderConformance(
  label: string,
  open: OpenProvider<TextEmbedder>,
  options: TextEmbedderConformanceOptions = {},
): void {
  const texts = options.texts ?? defaultTexts;
  describeProvider("TextEmbedder", label, open, options, (embedder) => {
    conformanceTest("has an id and capabilities as data: positive integer limits and dimensions", () => {
      const { id, capabilities } = embedder();
      assertId(id);
      assertPlainData(capabilities);
      assertPositiveInteger(capabilities.maxBatchSize, "capabilities.maxBatchSize");
      assertPositiveInteger(capabilities.maxConcurrency, "capabilities.maxConcurrency");
      assertPositiveInteger(capabilities.dimensions, "capabilities.dimensions");
    });

    conformanceTest("gives one finite, L2-normalised vector of capabilities.dimensions per text", async () => {
      const { capabilities } = embedder();
      assertUnitVectors(await embedder().embed(texts), texts.length, capabilities.dimensions);
    });

    conformanceTest("a batch gives what each text gives alone, in input order (within 1e-5)", async () => {
      const batch = await embedder().embed(texts);
      const singles = await oneByOne(texts, (chunk) => embedder().embed(chunk));
      assertSameVectors(batch, singles, "text");
    });

    conformanceTest("different texts give different vectors", async () => {
      const [first, second] = await embedder().embed(texts.slice(0, 2));
      assert.ok(first && second);
      assert.ok(maxDifference(first, second) > 1e-3, "two different texts got the same vector");
    });

    conformanceTest("an empty batch gives an empty result without an error", async () => {
      assert.deepEqual(await embedder().embed([]), []);
    });

    conformanceTest("an aborted signal rejects with INTERRUPTED or MODEL_TIMEOUT", async () => {
      await rejectsWith(() => embedder().embed(texts.slice(0, 2), { signal: abortedSignal() }), interruptedCodes, "embed with an aborted signal");
    });
  });
}

// ---------------------------------------------------------------------------------------------------------------------
// ImageTextEncoder

/** The TextEmbedder cases for both halves of an image-text encoder, plus image input checks. */
export function runImageTextEncoderConformance(
  label: string,
  open: OpenProvider<ImageTextEncoder>,
  options: ImageTextEncoderConformanceOptions = {},
): void {
  const texts = options.texts ?? defaultTexts;
  const images = once(
    options.images ??
      (() => [solidImage(32, 24, [220, 30, 30]), solidImage(24, 32, [30, 60, 220]), solidImage(16, 16, [40, 200, 60])]),
  );
  describeProvider("ImageTextEncoder", label, open, options, (encoder) => {
    conformanceTest("has an id and capabilities as data: positive integer limits and dimensions", () => {
      const { id, capabilities } = encoder();
      assertId(id);
      assertPlainData(capabilities);
      assertPositiveInteger(capabilities.maxBatchSize, "capabilities.maxBatchSize");
      assertPositiveInteger(capabilities.maxConcurrency, "capabilities.maxConcurrency");
      assertPositiveInteger(capabilities.dimensions, "capabilities.dimensions");
    });

    conformanceTest("texts and images both give finite, L2-normalised vectors of capabilities.dimensions", async () => {
      const { dimensions } = encoder().capabilities;
      const pictures = await images();
      assertUnitVectors(await encoder().embedTexts(texts), texts.length, dimensions);
      assertUnitVectors(await encoder().embedImages(pictures), pictures.length, dimensions);
    });

    conformanceTest("a batch gives what each input gives alone, in input order (within 1e-5)", async () => {
      const pictures = await images();
      assertSameVectors(await encoder().embedTexts(texts), await oneByOne(texts, (chunk) => encoder().embedTexts(chunk)), "text");
      assertSameVectors(
        await encoder().embedImages(pictures),
        await oneByOne(pictures, (chunk) => encoder().embedImages(chunk)),
        "image",
      );
    });

    conformanceTest("different inputs give different vectors", async () => {
      const [firstText, secondText] = await encoder().embedTexts(texts.slice(0, 2));
      const [firstImage, secondImage] = await encoder().embedImages((await images()).slice(0, 2));
      assert.ok(firstText && secondText && firstImage && secondImage);
      assert.ok(maxDifference(firstText, secondText) > 1e-3, "two different texts got the same vector");
      assert.ok(maxDifference(firstImage, secondImage) > 1e-3, "two different images got the same vector");
    });

    conformanceTest("empty batches give empty results without an error", async () => {
      assert.deepEqual(await encoder().embedTexts([]), []);
      assert.deepEqual(await encoder().embedImages([]), []);
    });

    conformanceTest("an image whose bytes do not match its size rejects with ARGUMENT_INVALID or INPUT_UNSUPPORTED", async () => {
      await rejectsWith(() => encoder().embedImages([truncatedImage()]), badInputCodes, "embedImages of a truncated image");
    });

    conformanceTest("an aborted signal rejects with INTERRUPTED or MODEL_TIMEOUT", async () => {
      const pictures = await images();
      await rejectsWith(() => encoder().embedTexts(texts.slice(0, 2), { signal: abortedSignal() }), interruptedCodes, "embedTexts");
      await rejectsWith(() => encoder().embedImages(pictures, { signal: abortedSignal() }), interruptedCodes, "embedImages");
    });
  });
}

// ---------------------------------------------------------------------------------------------------------------------
// LanguageModel

const question: ChatMessage[] = [
  { role: "system", content: "Answer in one short sentence." },
  { role: "user", content: "What colour is a clear sky at noon?" },
];

/** Collects a stream's deltas; each must be a non-empty string. */
async function collect(stream: AsyncIterable<string>): Promise<string[]> {
  const deltas: string[] = [];
  for await (const delta of stream) {
    assert.ok(typeof delta === "string" && delta !== "", `a streamed delta must be a non-empty string, not ${inspect(delta)}`);
    deltas.push(delta);
  }
  return deltas;
}

function withImages(count: number, image: ImageInput): ChatMessage[] {
  return [
    {
      role: "user",
      content: [{ type: "text", text: "What do these pictures show?" }, ...Array.from({ length: count }, () => ({ type: "image" as const, image }))],
    },
  ];
}

/** The cases every LanguageModel passes: chat, streaming that adds up to chat, JSON mode, image limits, aborts. */
export function runLanguageModelConformance(
  label: string,
  open: OpenProvider<LanguageModel>,
  options: LanguageModelConformanceOptions = {},
): void {
  const image = options.image ?? onePixelPng;
  describeProvider("LanguageModel", label, open, options, (model) => {
    conformanceTest("has an id and capabilities as data: positive integer limits, acceptsImages ⇔ maxImages > 0", () => {
      const { id, capabilities } = model();
      assertId(id);
      assertPlainData(capabilities);
      assertPositiveInteger(capabilities.maxBatchSize, "capabilities.maxBatchSize");
      assertPositiveInteger(capabilities.maxConcurrency, "capabilities.maxConcurrency");
      assert.equal(typeof capabilities.acceptsImages, "boolean");
      assert.equal(typeof capabilities.jsonOutput, "boolean");
      assert.ok(Number.isInteger(capabilities.maxImages) && capabilities.maxImages >= 0, "capabilities.maxImages is a whole number");
      assert.equal(capabilities.acceptsImages, capabilities.maxImages > 0, "acceptsImages is true exactly when maxImages > 0");
      if (capabilities.contextTokens !== undefined) assertPositiveInteger(capabilities.contextTokens, "capabilities.contextTokens");
    });

    conformanceTest("chat answers with text, and its usage counts are whole numbers", async () => {
      const result = await model().chat(question, { temperature: 0, maxTokens: 64 });
      assert.ok(typeof result.text === "string" && result.text.trim() !== "", `the answer must be non-empty text, not ${inspect(result.text)}`);
      if (result.finishReason !== undefined) assert.equal(typeof result.finishReason, "string");
      if (result.usage !== undefined) {
        assert.ok(Number.isInteger(result.usage.promptTokens) && result.usage.promptTokens >= 0, "usage.promptTokens");
        assert.ok(Number.isInteger(result.usage.completionTokens) && result.usage.completionTokens >= 0, "usage.completionTokens");
      }
    });

    conformanceTest("stream yields non-empty deltas that concatenate to what chat returns", async () => {
      const chatOptions = { temperature: 0, maxTokens: 64 };
      const whole = await model().chat(question, chatOptions);
      const deltas = await collect(model().stream(question, chatOptions));
      assert.ok(deltas.length > 0, "the stream yielded nothing");
      assert.equal(deltas.join(""), whole.text);
    });

    conformanceTest("a stream left after its first delta does not keep its slot: maxConcurrency + 1 of them, then a chat", async () => {
      for (let index = 0; index <= model().capabilities.maxConcurrency; index++) {
        for await (const delta of model().stream(question, { temperature: 0, maxTokens: 64 })) {
          assert.equal(typeof delta, "string");
          break;
        }
      }
      const result = await within(model().chat(question, { temperature: 0, maxTokens: 64 }), abortSettleMs, "chat after abandoned streams");
      assert.ok(result.text.trim() !== "");
    });

    conformanceTest("with json: true (when capabilities.jsonOutput) the answer is a JSON object", async (context) => {
      if (!model().capabilities.jsonOutput) {
        context.skip("the model does not offer JSON output");
        return;
      }
      const messages: ChatMessage[] = [
        { role: "system", content: 'Reply with a JSON object of the form {"colour": string}.' },
        { role: "user", content: "What colour is a clear sky at noon? Answer in JSON." },
      ];
      const { text } = await model().chat(messages, { temperature: 0, maxTokens: 64, json: true });
      let parsed: unknown;
      assert.doesNotThrow(() => (parsed = JSON.parse(text)), `the answer is not JSON: ${text}`);
      assert.ok(typeof parsed === "object" && parsed !== null && !Array.isArray(parsed), `the answer is not a JSON object: ${text}`);
    });

    conformanceTest("images: up to maxImages are answered, one more is refused with INPUT_UNSUPPORTED or ARGUMENT_INVALID", async () => {
      const { acceptsImages, maxImages } = model().capabilities;
      if (acceptsImages) {
        const result = await model().chat(withImages(1, image), { temperature: 0, maxTokens: 64 });
        assert.ok(result.text.trim() !== "", "a message with an image got no answer");
      }
      const tooMany = withImages(maxImages + 1, image);
      await rejectsWith(() => model().chat(tooMany), badInputCodes, `chat with ${maxImages + 1} image(s)`);
      await rejectsWith(() => collect(model().stream(tooMany)), badInputCodes, `stream with ${maxImages + 1} image(s)`);
    });

    conformanceTest("an aborted signal rejects chat and stream with INTERRUPTED or MODEL_TIMEOUT", async () => {
      await rejectsWith(() => model().chat(question, { signal: abortedSignal() }), interruptedCodes, "chat with an aborted signal");
      await rejectsWith(() => collect(model().stream(question, { signal: abortedSignal() })), interruptedCodes, "stream with an aborted signal");
    });
  });
}

// ---------------------------------------------------------------------------------------------------------------------
// Detector

function assertDetections(lists: unknown, imageCount: number, labels: ReadonlySet<string>, minScore = 0): asserts lists is Detection[][] {
  assert.ok(Array.isArray(lists), "the result must be an array");
  assert.equal(lists.length, imageCount, "one list of detections per image");
  lists.forEach((detections: unknown, image) => {
    assert.ok(Array.isArray(detections), `image ${image}: detections must be an array`);
    let previous = Number.POSITIVE_INFINITY;
    for (const detection of detections as Detection[]) {
      const { label, score, box } = detection;
      const where = `image ${image}, ${inspect(detection, { breakLength: Infinity })}`;
      assert.ok(labels.has(label), `${where}: the label is not in capabilities.labels`);
      assert.ok(Number.isFinite(score) && score >= minScore && score <= 1, `${where}: the score is not within ${minScore}..1`);
      assert.ok(score <= previous, `${where}: detections are not sorted best first`);
      previous = score;
      const { x, y, width, height } = box;
      assert.ok([x, y, width, height].every(Number.isFinite), `${where}: the box is not finite`);
      assert.ok(x >= 0 && y >= 0 && width > 0 && height > 0, `${where}: the box is not a fraction of the image`);
      assert.ok(x + width <= 1 + 1e-6 && y + height <= 1 + 1e-6, `${where}: the box reaches past the image`);
    }
  });
}

function assertSameDetections(batch: Detection[][], singles: Detection[][]): void {
  batch.forEach((detections, image) => {
    const alone = singles[image] ?? [];
    assert.deepEqual(detections.map((detection) => detection.label), alone.map((detection) => detection.label), `image ${image}: labels`);
    detections.forEach((detection, index) => {
      const other = alone[index] as Detection;
      const values = (entry: Detection) => [entry.score, entry.box.x, entry.box.y, entry.box.width, entry.box.height];
      const difference = Math.max(...values(detection).map((value, position) => Math.abs(value - (values(other)[position] ?? 0))));
      assert.ok(difference <= 1e-4, `image ${image}, detection ${index}: in a batch and alone differ by ${difference}`);
    });
  });
}

/** The cases every Detector passes: boxes in fractions, scores in 0..1 best first, known labels, minScore, batches. */
export function runDetectorConformance(label: string, open: OpenProvider<Detector>, options: ImageModelConformanceOptions): void {
  const images = once(options.images);
  describeProvider("Detector", label, open, options, (detector) => {
    const labels = () => new Set(detector().capabilities.labels);

    conformanceTest("has an id and capabilities as data: positive integer limits and input size, labels", () => {
      const { id, capabilities } = detector();
      assertId(id);
      assertPlainData(capabilities);
      assertPositiveInteger(capabilities.maxBatchSize, "capabilities.maxBatchSize");
      assertPositiveInteger(capabilities.maxConcurrency, "capabilities.maxConcurrency");
      assertPositiveInteger(capabilities.inputSize, "capabilities.inputSize");
      assertLabels(capabilities.labels);
    });

    conformanceTest("finds objects: known labels, scores within 0..1 best first, boxes within the image", async () => {
      const pictures = await images();
      const lists = await detector().detect(pictures);
      assertDetections(lists, pictures.length, labels());
      assert.ok(lists.some((detections) => detections.length > 0), "nothing was found in any of the images");
    });

    conformanceTest("honours minScore, and a lower one never finds fewer objects", async () => {
      const pictures = await images();
      const strict = await detector().detect(pictures, { minScore: 0.6 });
      const loose = await detector().detect(pictures, { minScore: 0.2 });
      assertDetections(strict, pictures.length, labels(), 0.6);
      assertDetections(loose, pictures.length, labels(), 0.2);
      strict.forEach((detections, image) => {
        assert.ok((loose[image]?.length ?? 0) >= detections.length, `image ${image}: minScore 0.2 found fewer than 0.6`);
      });
    });

    conformanceTest("a batch gives what each image gives alone, in input order", async () => {
      const pictures = await images();
      assertSameDetections(await detector().detect(pictures), await oneByOne(pictures, (chunk) => detector().detect(chunk)));
    });

    conformanceTest("an empty batch gives an empty result without an error", async () => {
      assert.deepEqual(await detector().detect([]), []);
    });

    conformanceTest("an image whose bytes do not match its size rejects with ARGUMENT_INVALID or INPUT_UNSUPPORTED", async () => {
      await rejectsWith(() => detector().detect([truncatedImage()]), badInputCodes, "detect on a truncated image");
    });

    conformanceTest("an aborted signal rejects with INTERRUPTED or MODEL_TIMEOUT", async () => {
      const pictures = await images();
      await rejectsWith(() => detector().detect(pictures, { signal: abortedSignal() }), interruptedCodes, "detect with an aborted signal");
    });
  });
}

// ---------------------------------------------------------------------------------------------------------------------
// Tagger

function assertTags(lists: unknown, imageCount: number, labels: ReadonlySet<string>, topK: number, minScore: number): asserts lists is Tag[][] {
  assert.ok(Array.isArray(lists), "the result must be an array");
  assert.equal(lists.length, imageCount, "one list of tags per image");
  lists.forEach((tags: unknown, image) => {
    assert.ok(Array.isArray(tags), `image ${image}: tags must be an array`);
    assert.ok(tags.length <= topK, `image ${image}: ${tags.length} tags, more than topK ${topK}`);
    let previous = Number.POSITIVE_INFINITY;
    const seen = new Set<string>();
    for (const tag of tags as Tag[]) {
      const where = `image ${image}, ${inspect(tag, { breakLength: Infinity })}`;
      assert.ok(labels.has(tag.label), `${where}: the label is not in capabilities.labels`);
      assert.ok(!seen.has(tag.label), `${where}: the label is given twice`);
      seen.add(tag.label);
      assert.ok(Number.isFinite(tag.score) && tag.score >= minScore && tag.score <= 1, `${where}: the score is not within ${minScore}..1`);
      assert.ok(tag.score <= previous, `${where}: tags are not sorted best first`);
      previous = tag.score;
    }
  });
}

/** The cases every Tagger passes: at most topK known labels per image, scores in 0..1 best first, minScore, batches. */
export function runTaggerConformance(label: string, open: OpenProvider<Tagger>, options: ImageModelConformanceOptions): void {
  const images = once(options.images);
  describeProvider("Tagger", label, open, options, (tagger) => {
    const labels = () => new Set(tagger().capabilities.labels);

    conformanceTest("has an id and capabilities as data: positive integer limits and input size, labels", () => {
      const { id, capabilities } = tagger();
      assertId(id);
      assertPlainData(capabilities);
      assertPositiveInteger(capabilities.maxBatchSize, "capabilities.maxBatchSize");
      assertPositiveInteger(capabilities.maxConcurrency, "capabilities.maxConcurrency");
      assertPositiveInteger(capabilities.inputSize, "capabilities.inputSize");
      assertLabels(capabilities.labels);
    });

    conformanceTest("with minScore 0, exactly topK different known labels per image, scores within 0..1 best first", async () => {
      const pictures = await images();
      const topK = Math.min(3, tagger().capabilities.labels.length);
      const lists = await tagger().tag(pictures, { topK, minScore: 0 });
      assertTags(lists, pictures.length, labels(), topK, 0);
      lists.forEach((tags, image) => assert.equal(tags.length, topK, `image ${image}: every label passes minScore 0`));
    });

    conformanceTest("honours topK and minScore together", async () => {
      const pictures = await images();
      assertTags(await tagger().tag(pictures, { topK: 1, minScore: 0 }), pictures.length, labels(), 1, 0);
      assertTags(await tagger().tag(pictures, { topK: 50, minScore: 0.2 }), pictures.length, labels(), 50, 0.2);
    });

    conformanceTest("a batch gives what each image gives alone, in input order", async () => {
      const pictures = await images();
      const batch = await tagger().tag(pictures, { topK: 5, minScore: 0 });
      const singles = await oneByOne(pictures, (chunk) => tagger().tag(chunk, { topK: 5, minScore: 0 }));
      batch.forEach((tags, image) => {
        const alone = singles[image] ?? [];
        // Near-ties may swap places between runs of a quantised model; the best tag and every score must agree.
        assert.equal(tags[0]?.label, alone[0]?.label, `image ${image}: the best tag`);
        const scores = new Map(alone.map((tag) => [tag.label, tag.score]));
        for (const tag of tags) {
          const other = scores.get(tag.label);
          if (other !== undefined) assert.ok(Math.abs(tag.score - other) <= 1e-4, `image ${image}, ${tag.label}: ${tag.score} against ${other}`);
        }
      });
    });

    conformanceTest("an empty batch gives an empty result without an error", async () => {
      assert.deepEqual(await tagger().tag([]), []);
    });

    conformanceTest("an image whose bytes do not match its size rejects with ARGUMENT_INVALID or INPUT_UNSUPPORTED", async () => {
      await rejectsWith(() => tagger().tag([truncatedImage()]), badInputCodes, "tag on a truncated image");
    });

    conformanceTest("an aborted signal rejects with INTERRUPTED or MODEL_TIMEOUT", async () => {
      const pictures = await images();
      await rejectsWith(() => tagger().tag(pictures, { signal: abortedSignal() }), interruptedCodes, "tag with an aborted signal");
    });
  });
}

// ---------------------------------------------------------------------------------------------------------------------
// Transcriber

async function wavDurationSeconds(wavPath: string): Promise<number> {
  const file = await openFile(wavPath, "r");
  try {
    const layout = await readWavLayout(file, wavPath);
    return layout.dataBytes / (layout.sampleRate * layout.channels * (layout.bitsPerSample / 8));
  } finally {
    await file.close();
  }
}

/** What one transcription gave, with the progress it reported on the way. */
interface Transcription {
  segments: TranscriptSegment[];
  warnings: unknown[];
  progress: [doneSeconds: number, totalSeconds: number][];
  durationSeconds: number;
}

// Transcribers time speech to about a frame; the last word's end may be rounded past the audio's end.
const timeSlackSeconds = 0.5;

/** The cases every Transcriber passes: time-ordered segments within the audio, with text, progress and aborts. */
export function runTranscriberConformance(label: string, open: OpenProvider<Transcriber>, options: TranscriberConformanceOptions): void {
  describeProvider("Transcriber", label, open, options, (transcriber) => {
    // One transcription shared by the cases that read it: a lite transcriber takes seconds per run.
    const transcription = once(async (): Promise<Transcription> => {
      const progress: [number, number][] = [];
      const { segments, warnings } = await transcriber().transcribe(options.wavPath, {
        onProgress: (done, total) => progress.push([done, total]),
      });
      return { segments, warnings, progress, durationSeconds: await wavDurationSeconds(options.wavPath) };
    });

    conformanceTest("has an id and capabilities as data: languages, a positive integer limit, a timestamp level", () => {
      const { id, capabilities } = transcriber();
      assertId(id);
      assertPlainData(capabilities);
      assert.ok(Array.isArray(capabilities.languages) && capabilities.languages.length > 0, "capabilities.languages is non-empty");
      for (const language of capabilities.languages) assert.ok(typeof language === "string" && language !== "");
      assertPositiveInteger(capabilities.maxConcurrency, "capabilities.maxConcurrency");
      assert.ok(["word", "segment"].includes(capabilities.timestamps), `capabilities.timestamps is ${inspect(capabilities.timestamps)}`);
    });

    conformanceTest("segments are time-ordered, within the audio (0 ≤ start ≤ end ≤ duration + 0.5 s), with text", async () => {
      const { segments, durationSeconds } = await transcription();
      assert.ok(segments.length > 0, "speech gave no segments");
      let previousStart = 0;
      segments.forEach((segment, index) => {
        const where = `segment ${index} ${inspect(segment, { breakLength: Infinity, depth: 0 })}`;
        const { startSecond, endSecond, text } = segment;
        assert.ok(Number.isFinite(startSecond) && Number.isFinite(endSecond), `${where}: times are not finite`);
        assert.ok(startSecond >= 0 && startSecond <= endSecond, `${where}: start is not within 0..end`);
        assert.ok(endSecond <= durationSeconds + timeSlackSeconds, `${where}: ends after the audio's ${durationSeconds} s`);
        assert.ok(startSecond >= previousStart, `${where}: starts before the segment before it`);
        previousStart = startSecond;
        assert.ok(typeof text === "string" && text.trim() !== "", `${where}: has no text`);
      });
    });

    conformanceTest("word times, where given (always, for word timestamps), are ordered and inside their segment", async () => {
      const { segments, durationSeconds } = await transcription();
      const wordLevel = transcriber().capabilities.timestamps === "word";
      segments.forEach((segment, index) => {
        if (wordLevel) assert.ok(segment.words && segment.words.length > 0, `segment ${index} has no words, yet timestamps are "word"`);
        let previousStart = segment.startSecond - timeSlackSeconds;
        for (const word of segment.words ?? []) {
          const where = `segment ${index}, ${inspect(word, { breakLength: Infinity })}`;
          assert.ok(typeof word.word === "string" && word.word.trim() !== "", `${where}: no text`);
          assert.ok(word.startSecond >= 0 && word.startSecond <= word.endSecond, `${where}: start is not within 0..end`);
          assert.ok(word.endSecond <= durationSeconds + timeSlackSeconds, `${where}: ends after the audio`);
          assert.ok(word.startSecond >= previousStart, `${where}: out of order or before its segment`);
          assert.ok(word.endSecond <= segment.endSecond + timeSlackSeconds, `${where}: ends after its segment`);
          previousStart = word.startSecond;
        }
      });
    });

    conformanceTest("hears what was said", async (context) => {
      const expected = options.expectedWords ?? [];
      if (expected.length === 0) {
        context.skip("no expected words were given for this audio");
        return;
      }
      const heard = new Set((await transcription()).segments.flatMap((segment) => wordsOf(segment.text)));
      assert.ok(
        expected.some((word) => heard.has(word.toLowerCase())),
        `none of ${expected.join(", ")} in ${[...heard].join(" ")}`,
      );
    });

    conformanceTest("warnings are well-formed, and progress (where reported) climbs from 0 to the audio's duration", async () => {
      const { warnings, progress, durationSeconds } = await transcription();
      assert.ok(Array.isArray(warnings), "warnings must be an array");
      for (const warning of warnings) {
        const { type, feature, detail } = warning as { type?: unknown; feature?: unknown; detail?: unknown };
        assert.ok(["unsupported", "fallback", "skipped", "degraded"].includes(String(type)), `warning type ${inspect(type)}`);
        assert.ok(typeof feature === "string" && typeof detail === "string" && detail !== "", `warning ${inspect(warning)}`);
      }
      let previousDone = 0;
      for (const [done, total] of progress) {
        assert.ok(Math.abs(total - durationSeconds) <= timeSlackSeconds, `progress total ${total} s is not the audio's ${durationSeconds} s`);
        assert.ok(done >= previousDone && done <= total + 1e-6, `progress ${done} of ${total} after ${previousDone}`);
        previousDone = done;
      }
    });

    conformanceTest("a missing file rejects with INPUT_NOT_FOUND", async () => {
      await rejectsWith(
        () => transcriber().transcribe(`${options.wavPath}.missing.wav`),
        ["INPUT_NOT_FOUND"],
        "transcribe of a file that does not exist",
      );
    });

    conformanceTest("an aborted signal rejects with INTERRUPTED or MODEL_TIMEOUT", async () => {
      await rejectsWith(
        () => transcriber().transcribe(options.wavPath, { signal: abortedSignal() }),
        interruptedCodes,
        "transcribe with an aborted signal",
      );
    });
  });
}

// ---------------------------------------------------------------------------------------------------------------------
// OcrEngine

function assertOcrLines(lines: unknown, what: string): void {
  assert.ok(Array.isArray(lines), `${what}: the result must be an array`);
  for (const line of lines as { text?: unknown; confidence?: unknown }[]) {
    assert.ok(typeof line.text === "string" && line.text.trim() !== "", `${what}: a line without text: ${inspect(line)}`);
    assert.ok(
      typeof line.confidence === "number" && line.confidence >= 0 && line.confidence <= 100,
      `${what}: confidence is not within 0..100: ${inspect(line)}`,
    );
  }
}

/** The cases every OcrEngine passes: lines with text and confidence 0..100, nothing on a blank image, aborts. */
export function runOcrEngineConformance(label: string, open: OpenProvider<OcrEngine>, options: OcrConformanceOptions): void {
  const samples = once(options.samples);
  describeProvider("OcrEngine", label, open, options, (ocr) => {
    conformanceTest("has an id and capabilities as data: languages and a positive integer limit", () => {
      const { id, capabilities } = ocr();
      assertId(id);
      assertPlainData(capabilities);
      assert.ok(Array.isArray(capabilities.languages) && capabilities.languages.length > 0, "capabilities.languages is non-empty");
      assertPositiveInteger(capabilities.maxConcurrency, "capabilities.maxConcurrency");
    });

    for (const mode of ["screen", "subtitle"] as const) {
      conformanceTest(`reads printed text in ${mode} mode: lines with text and confidence within 0..100`, async () => {
        const { text, expectedWords } = await samples();
        const lines = await ocr().recognize(text, { mode });
        assertOcrLines(lines, mode);
        const read = new Set(lines.flatMap((line) => wordsOf(line.text)));
        const missed = expectedWords.filter((word) => !read.has(word.toLowerCase()));
        assert.deepEqual(missed, [], `not read: ${missed.join(", ")}; read: ${lines.map((line) => line.text).join(" | ")}`);
      });
    }

    conformanceTest("an image without text gives no lines", async () => {
      const { blank } = await samples();
      assert.deepEqual(await ocr().recognize(blank), []);
    });

    conformanceTest("an aborted signal rejects with INTERRUPTED or MODEL_TIMEOUT", async () => {
      const { text } = await samples();
      await rejectsWith(() => ocr().recognize(text, { signal: abortedSignal() }), interruptedCodes, "recognize with an aborted signal");
    });
  });
}
