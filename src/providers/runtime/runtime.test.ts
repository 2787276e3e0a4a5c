// The model runtime against in-memory fake providers that count their calls and fail on script: batching, the output
// cache (in memory and reopened from disk), concurrency limits, retries, timeouts, interruption, streaming and JSON.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { z } from "zod";
import { VideoRagError } from "../../spec/index.js";
import type {
  ChatMessage,
  ChatOptions,
  Detector,
  LanguageModel,
  OcrEngine,
  RgbImage,
  TextEmbedder,
  Transcriber,
} from "../../spec/index.js";
import {
  cacheKey,
  createLimiter,
  createMemoryModelCache,
  createModelCache,
  createModelRuntime,
  generateJson,
  type ModelCache,
  type RuntimeEvent,
} from "./index.js";
import { rejectsWith } from "../../test-support/assertions.js";

const dir = mkdtempSync(join(tmpdir(), "videorag-runtime-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let fileCount = 0;
const freshPath = (extension: string): string => join(dir, `file-${++fileCount}.${extension}`);

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Fails the way a provider would when a server is down: retryable. */
const unavailable = (message = "server down", retryAfterSeconds?: number): VideoRagError =>
  new VideoRagError("MODEL_UNAVAILABLE", message, { retryable: true, retryAfterSeconds });


/** A vector that encodes its text, so order mistakes show. */
const vectorOf = (text: string): Float32Array => Float32Array.from([text.length, text.charCodeAt(0) || 0, 1]);

interface FakeEmbedder extends TextEmbedder {
  /** The texts each call received. */
  batches: string[][];
}

/** A text embedder that answers after `delayMs`, running `before` first so a test can fail or hang chosen calls. */
function fakeEmbedder(
  options: { maxBatchSize?: number; maxConcurrency?: number; delayMs?: number; before?: (call: number, signal?: AbortSignal) => Promise<void> | void } = {},
): FakeEmbedder {
  const batches: string[][] = [];
  return {
    id: "fake-embedder",
    capabilities: { maxBatchSize: options.maxBatchSize ?? 100, maxConcurrency: options.maxConcurrency ?? 4, dimensions: 3 },
    batches,
    async embed(texts, callOptions) {
      batches.push([...texts]);
      await options.before?.(batches.length, callOptions?.signal);
      if (options.delayMs) await delay(options.delayMs);
      return texts.map(vectorOf);
    },
  };
}

/** Never settles and ignores its signal: the runtime alone has to stop waiting. */
const hang = (): Promise<void> => new Promise<void>(() => undefined);

interface FakeChat extends LanguageModel {
  requests: { messages: ChatMessage[]; options?: ChatOptions }[];
}

/** A chat model answering from a script, one answer per call; `stream` splits each answer into words. */
function fakeChat(answers: (string | Error)[], behaviour: { jsonOutput?: boolean; dropAfterFirstDelta?: boolean } = {}): FakeChat {
  const requests: FakeChat["requests"] = [];
  const next = (): string => {
    const answer = answers.shift();
    if (answer === undefined) throw new Error("the fake chat ran out of answers");
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return {
    id: "fake-chat",
    capabilities: { maxBatchSize: 1, maxConcurrency: 2, acceptsImages: true, maxImages: 4, jsonOutput: behaviour.jsonOutput ?? false },
    requests,
    async chat(messages, options) {
      requests.push({ messages, options });
      return { text: next(), finishReason: "stop" };
    },
    async *stream(messages, options) {
      requests.push({ messages, options });
      const words = next().split(/(?<= )/);
      for (const [index, word] of words.entries()) {
        if (index === 1 && behaviour.dropAfterFirstDelta) throw unavailable("dropped mid-stream");
        yield word;
      }
    },
  };
}

const image = (fill: number): RgbImage => ({ width: 2, height: 1, data: new Uint8Array([fill, fill, fill, fill, fill, fill]) });

describe("cacheKey", () => {
  test("ignores object key order and undefined options, and distinguishes model, kind and bytes", () => {
    const base = cacheKey("m", "detect", { image: Buffer.from([1, 2, 3]), minScore: 0.5 });
    assert.equal(cacheKey("m", "detect", { minScore: 0.5, image: new Uint8Array([1, 2, 3]), topK: undefined }), base);
    assert.notEqual(cacheKey("m", "detect", { image: Buffer.from([1, 2, 4]), minScore: 0.5 }), base);
    assert.notEqual(cacheKey("m", "tag", { image: Buffer.from([1, 2, 3]), minScore: 0.5 }), base);
    assert.notEqual(cacheKey("n", "detect", { image: Buffer.from([1, 2, 3]), minScore: 0.5 }), base);
    assert.notEqual(cacheKey("m", "embed", ["ab"]), cacheKey("m", "embed", ["a", "b"]));
    assert.match(base, /^[0-9a-f]{64}$/);
  });
});

for (const [name, open] of [
  ["memory", () => createMemoryModelCache()],
  ["sqlite", () => createModelCache(freshPath("sqlite"))],
] as const) {
  test(`${name} model cache keeps JSON values and vectors, counts them and clears by model`, () => {
    const cache: ModelCache = open();
    const vector = Float32Array.from([0.25, -1, 3.5]);
    cache.set("a", vector, { model: "embedder", kind: "embed" });
    cache.set("b", [{ label: "cat", score: 0.9 }], { model: "detector", kind: "detect" });
    vector[0] = 99; // the cache holds its own copy
    assert.deepEqual(cache.get("a"), Float32Array.from([0.25, -1, 3.5]));
    assert.deepEqual(cache.get("b"), [{ label: "cat", score: 0.9 }]);
    assert.equal(cache.get("missing"), undefined);
    const stats = cache.stats();
    assert.equal(stats.entries, 2);
    assert.equal(stats.models.embedder?.sizeBytes, 12, "a 3-float vector is stored as 12 raw bytes");
    assert.equal(cache.clear("embedder"), 1);
    assert.equal(cache.get("a"), undefined);
    assert.deepEqual(cache.get("b"), [{ label: "cat", score: 0.9 }]);
    assert.equal(cache.clear(), 1);
    assert.equal(cache.stats().entries, 0);
    cache.close();
  });
}

test("a model cache path that cannot be created fails with STORE_FAILED naming it", () => {
  const blocker = freshPath("txt");
  writeFileSync(blocker, "a file where a folder should be");
  const path = join(blocker, "cache.sqlite");
  assert.throws(() => createModelCache(path), (error: unknown) => VideoRagError.isInstance(error) && error.code === "STORE_FAILED" && error.subject === path);
});

describe("batching and caching", () => {
  test("a batch is split into chunks of maxBatchSize and reassembled in order", async () => {
    const embedder = fakeEmbedder({ maxBatchSize: 3 });
    const wrapped = createModelRuntime().wrapTextEmbedder(embedder);
    const texts = Array.from({ length: 10 }, (_, index) => `${"x".repeat(index + 1)}`);
    const vectors = await wrapped.embed(texts);
    assert.deepEqual(embedder.batches.map((batch) => batch.length).sort(), [1, 3, 3, 3]);
    assert.deepEqual(vectors, texts.map(vectorOf));
    assert.equal(wrapped.id, embedder.id);
    assert.equal(wrapped.capabilities, embedder.capabilities);
  });

  test("only the inputs missing from the cache reach the model", async () => {
    const embedder = fakeEmbedder();
    const runtime = createModelRuntime({ cache: createMemoryModelCache() });
    const wrapped = runtime.wrapTextEmbedder(embedder);
    const texts = Array.from({ length: 10 }, (_, index) => `text number ${index}`);
    await wrapped.embed(texts.slice(0, 7));
    const vectors = await wrapped.embed(texts);
    assert.deepEqual(embedder.batches[1], texts.slice(7));
    assert.deepEqual(vectors, texts.map(vectorOf));
    assert.deepEqual(runtime.stats()["fake-embedder"], { calls: 2, items: 10, cacheHits: 7, retries: 0, failures: 0 });
  });

  test("a second run over a cache reopened from disk makes zero model calls", async () => {
    const path = freshPath("sqlite");
    const wav = freshPath("wav");
    writeFileSync(wav, Buffer.from("RIFF fake audio bytes"));
    let modelCalls = 0;
    const detector: Detector = {
      id: "fake-detector",
      capabilities: { maxBatchSize: 2, maxConcurrency: 1, labels: ["cat"], inputSize: 2 },
      async detect(images) {
        modelCalls++;
        return images.map((item) => [{ label: "cat", score: item.data[0]! / 255, box: { x: 0, y: 0, width: 1, height: 1 } }]);
      },
    };
    const transcriber: Transcriber = {
      id: "fake-transcriber",
      capabilities: { languages: ["en"], maxConcurrency: 1, timestamps: "segment" },
      async transcribe() {
        modelCalls++;
        return { segments: [{ startSecond: 0, endSecond: 1.5, text: "hello" }], warnings: [] };
      },
    };
    const ocr: OcrEngine = {
      id: "fake-ocr",
      capabilities: { languages: ["eng"], maxConcurrency: 1 },
      async recognize() {
        modelCalls++;
        return [{ text: "SLIDE", confidence: 91 }];
      },
    };
    const embedder = fakeEmbedder();
    const chat = fakeChat(["the answer"]);
    const png = { data: Buffer.from([137, 80, 78, 71]), mimeType: "image/png" as const };

    const ingest = async (cache: ModelCache): Promise<unknown[]> => {
      const runtime = createModelRuntime({ cache });
      const outputs = [
        await runtime.wrapTextEmbedder(embedder).embed(["one", "two"]),
        await runtime.wrapDetector(detector).detect([image(51), image(102), image(153)], { minScore: 0.1 }),
        await runtime.wrapTranscriber(transcriber).transcribe(wav),
        await runtime.wrapOcr(ocr).recognize(png, { mode: "screen" }),
        await runtime.wrapLanguageModel(chat).chat([{ role: "user", content: "question" }]),
      ];
      cache.close();
      return outputs;
    };
    const first = await ingest(createModelCache(path));
    const callsAfterFirst = modelCalls + embedder.batches.length + chat.requests.length;
    assert.equal(callsAfterFirst, 6);
    const second = await ingest(createModelCache(path));
    assert.equal(modelCalls + embedder.batches.length + chat.requests.length, callsAfterFirst, "no model was called again");
    assert.deepEqual(second, first);
  });

  test("the transcriber cache follows the audio's bytes, not its path, and the language asked; OCR's the image, mode and language", async () => {
    let transcribed = 0;
    let recognized = 0;
    const runtime = createModelRuntime({ cache: createMemoryModelCache() });
    const transcriber = runtime.wrapTranscriber({
      id: "t",
      capabilities: { languages: ["en", "de"], maxConcurrency: 1, timestamps: "segment" },
      async transcribe(_path, options) {
        transcribed++;
        return { segments: [], warnings: [], language: options?.language ?? "en" };
      },
    });
    const [a, b, c] = [freshPath("wav"), freshPath("wav"), freshPath("wav")];
    writeFileSync(a, "same audio");
    writeFileSync(b, "same audio");
    writeFileSync(c, "other audio");
    for (const path of [a, b, c]) await transcriber.transcribe(path);
    assert.equal(transcribed, 2);
    assert.equal((await transcriber.transcribe(a, { language: "de" })).language, "de", "asked in German, heard again");
    assert.equal((await transcriber.transcribe(b)).language, "en", "the reported language is kept with the cached transcript");
    assert.equal(transcribed, 3);
    await rejectsWith(transcriber.transcribe(join(dir, "missing.wav")), "INPUT_NOT_FOUND");

    const ocr = runtime.wrapOcr({
      id: "o",
      capabilities: { languages: ["eng"], maxConcurrency: 1 },
      async recognize() {
        recognized++;
        return [];
      },
    });
    const png = (byte: number) => ({ data: Buffer.from([byte]), mimeType: "image/png" as const });
    await ocr.recognize(png(1), { mode: "screen" });
    await ocr.recognize({ ...png(1), timeSecond: 5 }, { mode: "screen" });
    await ocr.recognize(png(1), { mode: "subtitle" });
    await ocr.recognize(png(2), { mode: "screen" });
    assert.equal(recognized, 3);
    await ocr.recognize(png(1), { mode: "subtitle", language: "de" });
    assert.equal(recognized, 4, "a subtitle read in its stream's language is read again");
  });
});

test("the limiter serves waiters in arrival order", async () => {
  const limiter = createLimiter(1);
  const order: number[] = [];
  const first = await limiter.acquire();
  const waiters = [1, 2, 3].map((index) => limiter.acquire().then((release) => (order.push(index), release())));
  first();
  await Promise.all(waiters);
  assert.deepEqual(order, [1, 2, 3]);
});

test("no more than maxConcurrency calls run at once per model, across wrappers", async () => {
  let inFlight = 0;
  let peak = 0;
  const embedder = fakeEmbedder({
    maxBatchSize: 1,
    maxConcurrency: 2,
    before: async () => {
      peak = Math.max(peak, ++inFlight);
      await delay(10);
      inFlight--;
    },
  });
  const runtime = createModelRuntime();
  const [one, two] = [runtime.wrapTextEmbedder(embedder), runtime.wrapTextEmbedder(embedder)];
  await Promise.all([one.embed(["a", "b", "c", "d"]), two.embed(["e", "f", "g", "h"])]);
  assert.equal(embedder.batches.length, 8);
  assert.equal(peak, 2);
});

describe("retries, timeouts and interruption", () => {
  test("retryable errors are retried with backoff, and each retry is reported", async () => {
    const events: RuntimeEvent[] = [];
    const embedder = fakeEmbedder({ before: (call) => { if (call <= 2) throw unavailable(); } });
    const runtime = createModelRuntime({ baseDelayMs: 5, onEvent: (event) => events.push(event) });
    assert.deepEqual(await runtime.wrapTextEmbedder(embedder).embed(["hi"]), [vectorOf("hi")]);
    const retries = events.filter((event) => event.type === "retry");
    assert.deepEqual(retries.map((event) => [event.attempt, event.code]), [[1, "MODEL_UNAVAILABLE"], [2, "MODEL_UNAVAILABLE"]]);
    for (const event of retries) assert.ok(event.delayMs >= 2 && event.delayMs <= 10, `delay ${event.delayMs} outside 5·2^n with jitter`);
    assert.deepEqual(runtime.stats()["fake-embedder"], { calls: 3, items: 3, cacheHits: 0, retries: 2, failures: 0 });
    assert.equal(events.filter((event) => event.type === "call").length, 3);
  });

  test("Retry-After is waited out even when the backoff would be shorter", async () => {
    const startedMs: number[] = [];
    const embedder = fakeEmbedder({
      before: (call) => {
        startedMs.push(performance.now());
        if (call === 1) throw unavailable("slow down", 0.2);
      },
    });
    await createModelRuntime({ baseDelayMs: 1 }).wrapTextEmbedder(embedder).embed(["hi"]);
    const waitedMs = startedMs[1]! - startedMs[0]!;
    assert.ok(waitedMs >= 200, `waited ${waitedMs} ms`);
  });

  test("when retries run out the last error is thrown", async () => {
    const embedder = fakeEmbedder({ before: (call) => { throw unavailable(`failure ${call}`); } });
    const runtime = createModelRuntime({ retries: 2, baseDelayMs: 1 });
    const error = await rejectsWith(runtime.wrapTextEmbedder(embedder).embed(["hi"]), "MODEL_UNAVAILABLE");
    assert.equal(error.message, "failure 3");
    assert.deepEqual(runtime.stats()["fake-embedder"], { calls: 3, items: 3, cacheHits: 0, retries: 2, failures: 1 });
  });

  test("errors that are not retryable pass through at once", async () => {
    const refused = new VideoRagError("MODEL_AUTH_FAILED", "bad key");
    const embedder = fakeEmbedder({ before: () => { throw refused; } });
    const runtime = createModelRuntime({ baseDelayMs: 1 });
    await assert.rejects(runtime.wrapTextEmbedder(embedder).embed(["hi"]), (error) => error === refused);
    assert.equal(embedder.batches.length, 1);
  });

  test("a call that outlives timeoutMs fails with MODEL_TIMEOUT after its retries", async () => {
    const embedder = fakeEmbedder({ before: hang });
    const runtime = createModelRuntime({ timeoutMs: 20, retries: 1, baseDelayMs: 1 });
    const error = await rejectsWith(runtime.wrapTextEmbedder(embedder).embed(["hi"]), "MODEL_TIMEOUT");
    assert.equal(error.subject, "fake-embedder");
    assert.equal(embedder.batches.length, 2);
  });

  test("a caller abort surfaces INTERRUPTED at once, with no retry, even from a provider that ignores it", async () => {
    const embedder = fakeEmbedder({ before: hang });
    const runtime = createModelRuntime({ retries: 3, baseDelayMs: 1 });
    const controller = new AbortController();
    const startedMs = performance.now();
    setTimeout(() => controller.abort(), 20);
    await rejectsWith(runtime.wrapTextEmbedder(embedder).embed(["hi"], { signal: controller.signal }), "INTERRUPTED");
    assert.ok(performance.now() - startedMs < 500);
    assert.equal(embedder.batches.length, 1);
    assert.equal(runtime.stats()["fake-embedder"]?.failures, 0);
  });

  test("a call waiting for a concurrency slot leaves the queue on abort, and never reaches the model", async () => {
    const embedder = fakeEmbedder({ maxBatchSize: 1, maxConcurrency: 1, before: (call) => (call === 1 ? hang() : undefined) });
    const wrapped = createModelRuntime().wrapTextEmbedder(embedder);
    const holder = new AbortController();
    const occupying = wrapped.embed(["holds the slot"], { signal: holder.signal });
    const queued = new AbortController();
    const waiting = wrapped.embed(["waits"], { signal: queued.signal });
    setTimeout(() => queued.abort(), 20);
    await rejectsWith(waiting, "INTERRUPTED");
    holder.abort();
    await rejectsWith(occupying, "INTERRUPTED");
    assert.deepEqual(embedder.batches, [["holds the slot"]]);
  });

  test("a caller abort during a backoff wait surfaces INTERRUPTED without waiting it out", async () => {
    const embedder = fakeEmbedder({ before: () => { throw unavailable(); } });
    const controller = new AbortController();
    const runtime = createModelRuntime({
      baseDelayMs: 60_000,
      onEvent: (event) => {
        if (event.type === "retry") setTimeout(() => controller.abort(), 20);
      },
    });
    const startedMs = performance.now();
    await rejectsWith(runtime.wrapTextEmbedder(embedder).embed(["hi"], { signal: controller.signal }), "INTERRUPTED");
    assert.ok(performance.now() - startedMs < 500);
  });
});

describe("chat and streaming", () => {
  const question: ChatMessage[] = [{ role: "user", content: "what is said?" }];

  test("chat answers are cached by messages, images by their bytes, and options other than the signal", async () => {
    const chat = fakeChat(["one", "two", "three", "four"]);
    const model = createModelRuntime({ cache: createMemoryModelCache() }).wrapLanguageModel(chat);
    const withImage = (byte: number): ChatMessage[] => [
      { role: "user", content: [{ type: "text", text: "what is shown?" }, { type: "image", image: { data: Buffer.from([byte]), mimeType: "image/png" } }] },
    ];
    assert.equal((await model.chat(withImage(1))).text, "one");
    assert.equal((await model.chat(withImage(1), { signal: new AbortController().signal })).text, "one");
    assert.equal((await model.chat(withImage(2))).text, "two");
    assert.equal((await model.chat(withImage(1), { temperature: 0.7 })).text, "three");
    assert.equal(chat.requests.length, 3);
  });

  test("a stream on a miss yields the model's deltas and caches the text; on a hit it yields the text once", async () => {
    const chat = fakeChat(["the spoken words"]);
    const runtime = createModelRuntime({ cache: createMemoryModelCache() });
    const model = runtime.wrapLanguageModel(chat);
    const collect = async (): Promise<string[]> => {
      const deltas: string[] = [];
      for await (const delta of model.stream(question)) deltas.push(delta);
      return deltas;
    };
    assert.deepEqual(await collect(), ["the ", "spoken ", "words"]);
    assert.deepEqual(await collect(), ["the spoken words"]);
    assert.equal((await model.chat(question)).text, "the spoken words");
    assert.equal(chat.requests.length, 1);
  });

  test("a stream the caller leaves early is not cached", async () => {
    const chat = fakeChat(["first answer here", "second answer"]);
    const model = createModelRuntime({ cache: createMemoryModelCache() }).wrapLanguageModel(chat);
    for await (const delta of model.stream(question)) {
      assert.equal(delta, "first ");
      break;
    }
    let text = "";
    for await (const delta of model.stream(question)) text += delta;
    assert.equal(text, "second answer");
    assert.equal(chat.requests.length, 2);
  });

  test("a stream is retried before its first delta, but not after", async () => {
    const retried = fakeChat([unavailable(), "after a retry"]);
    let text = "";
    for await (const delta of createModelRuntime({ baseDelayMs: 1 }).wrapLanguageModel(retried).stream(question)) text += delta;
    assert.equal(text, "after a retry");
    assert.equal(retried.requests.length, 2);

    const dropped = fakeChat(["cut off here", "never asked"], { dropAfterFirstDelta: true });
    const runtime = createModelRuntime({ baseDelayMs: 1, cache: createMemoryModelCache() });
    const deltas: string[] = [];
    const consume = async (): Promise<void> => {
      for await (const delta of runtime.wrapLanguageModel(dropped).stream(question)) deltas.push(delta);
    };
    await rejectsWith(consume(), "MODEL_UNAVAILABLE");
    assert.deepEqual(deltas, ["cut "]);
    assert.equal(dropped.requests.length, 1);
    assert.equal(runtime.stats()["fake-chat"]?.failures, 1);
  });
});

describe("generateJson", () => {
  const schema = z.object({ answer: z.string(), count: z.number() });
  const ask: ChatMessage[] = [{ role: "system", content: "You count things." }, { role: "user", content: "How many cats?" }];

  test("a valid answer is returned as is, asking for JSON mode when the model has one", async () => {
    const chat = fakeChat(['{"answer":"three cats","count":3}'], { jsonOutput: true });
    assert.deepEqual(await generateJson(chat, ask, schema), { value: { answer: "three cats", count: 3 }, repaired: false });
    assert.equal(chat.requests[0]?.options?.json, true);
    assert.deepEqual(chat.requests[0]?.messages, ask);
  });

  test("fenced JSON and JSON inside prose are accepted; models without JSON mode are told to reply with JSON", async () => {
    const chat = fakeChat(['Sure!\n```json\n{"answer":"two","count":2}\n```', 'Here you go: {"answer":"one","count":1} Hope that helps.']);
    assert.deepEqual((await generateJson(chat, ask, schema)).value, { answer: "two", count: 2 });
    assert.deepEqual((await generateJson(chat, ask, schema)).value, { answer: "one", count: 1 });
    assert.equal(chat.requests[0]?.options?.json, undefined);
    const system = chat.requests[0]?.messages[0];
    assert.equal(system?.role, "system");
    assert.match(String(system?.content), /^You count things\.\n\n.*JSON only/);
  });

  test("an invalid answer gets one repair turn quoting the error", async () => {
    const chat = fakeChat(['{"answer":"three","count":"three"}', '{"answer":"three","count":3}'], { jsonOutput: true });
    assert.deepEqual(await generateJson(chat, ask, schema), { value: { answer: "three", count: 3 }, repaired: true });
    const repair = chat.requests[1]?.messages ?? [];
    assert.deepEqual(repair.slice(0, 2), ask);
    assert.deepEqual(repair[2], { role: "assistant", content: '{"answer":"three","count":"three"}' });
    assert.equal(repair[3]?.role, "user");
    assert.match(String(repair[3]?.content), /count: Expected number, received string/);
  });

  test("two invalid answers fail with MODEL_OUTPUT_INVALID naming the model and the first issue", async () => {
    const chat = fakeChat(["I think there are three.", '{"answer":3}'], { jsonOutput: true });
    const error = await rejectsWith(generateJson(chat, ask, schema), "MODEL_OUTPUT_INVALID");
    assert.match(String(chat.requests[1]?.messages[3]?.content), /not JSON/);
    assert.match(error.message, /fake-chat/);
    assert.match(error.message, /answer: Expected string, received number/);
    assert.equal(error.retryable, false);
  });
});

test("a transcription's timeout grows with the audio: long audio is not cut off by the per-call timeout", async () => {
  const runtime = createModelRuntime({ timeoutMs: 50, retries: 0 });
  // 44 header bytes + 1 s of 16 kHz mono 16-bit samples: the budget is 50 ms + 2 s.
  const wavPath = freshPath("wav");
  writeFileSync(wavPath, Buffer.alloc(44 + 32_000));
  let calls = 0;
  const slow: Transcriber = {
    id: "slow-asr",
    capabilities: { languages: ["en"], maxConcurrency: 1, timestamps: "segment" },
    async transcribe() {
      calls++;
      await delay(300);
      return { segments: [{ startSecond: 0, endSecond: 1, text: "hello" }], warnings: [] };
    },
  };
  const result = await runtime.wrapTranscriber(slow).transcribe(wavPath);
  assert.equal(result.segments[0]?.text, "hello");
  assert.equal(calls, 1);
  // The same model on a 0-second file gets only the base timeout.
  const empty = freshPath("wav");
  writeFileSync(empty, Buffer.alloc(44));
  await assert.rejects(runtime.wrapTranscriber(slow).transcribe(empty), (error: unknown) => VideoRagError.isInstance(error) && error.code === "MODEL_TIMEOUT");
});
