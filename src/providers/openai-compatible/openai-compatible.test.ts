// OpenAI-compatible providers against a real local HTTP server that speaks the protocol: what is sent, what comes back,
// and how every failure a user can meet maps to an error code, with the API key never leaking.

import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { inspect } from "node:util";
import { VideoRagError, type ErrorCode } from "../../spec/errors.js";
import type { ChatMessage } from "../../spec/providers.js";
import {
  sendError,
  sendJson,
  startOpenAiTestServer,
  type Fault,
  type OpenAiTestServer,
  type ReplyHandler,
} from "../../test-support/openai-test-server.js";
import { needsShared, sharedPath } from "../../test-support/shared.js";
import { createOpenAiEmbedder, createOpenAiLanguageModel, createOpenAiTranscriber } from "./index.js";
import { readServerSentEvents } from "./server-sent-events.js";

const key = "sk-test-SECRET";
const question: ChatMessage[] = [
  { role: "system", content: "Answer briefly." },
  { role: "user", content: "What is on the whiteboard at minute two?" },
];

let server: OpenAiTestServer;
let tempDir: string;
before(async () => {
  server = await startOpenAiTestServer();
  tempDir = await mkdtemp(join(tmpdir(), "videorag-openai-"));
});
after(async () => {
  await server.close();
  await rm(tempDir, { recursive: true, force: true });
});

const connection = (overrides: { baseUrl?: string } = {}) => ({
  baseUrl: server.url,
  model: "test-model",
  apiKey: () => key,
  ...overrides,
});
const lastRequest = () => server.requests[server.requests.length - 1];

/** Awaits `promise` and returns the VideoRagError it must reject with. */
async function failureOf(promise: Promise<unknown>): Promise<VideoRagError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(VideoRagError.isInstance(error), `expected a VideoRagError, got ${inspect(error)}`);
    return error;
  }
  assert.fail("expected the call to fail");
}

async function collect(stream: AsyncIterable<string>): Promise<string[]> {
  const deltas: string[] = [];
  for await (const delta of stream) deltas.push(delta);
  return deltas;
}

/** A 16 kHz mono 16-bit WAV of a quiet tone, silent over the given [startSecond, endSecond) stretches. */
async function writeToneWav(name: string, seconds: number, silences: [number, number][] = []): Promise<string> {
  const samples = Math.round(16_000 * seconds);
  const wav = Buffer.alloc(44 + samples * 2);
  wav.write("RIFF", 0, "ascii");
  wav.writeUInt32LE(36 + samples * 2, 4);
  wav.write("WAVEfmt ", 8, "ascii");
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20);
  wav.writeUInt16LE(1, 22);
  wav.writeUInt32LE(16_000, 24);
  wav.writeUInt32LE(32_000, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write("data", 36, "ascii");
  wav.writeUInt32LE(samples * 2, 40);
  for (let index = 0; index < samples; index += 1) {
    const second = index / 16_000;
    const silent = silences.some(([start, end]) => second >= start && second < end);
    wav.writeInt16LE(silent ? 0 : Math.round(3000 * Math.sin(second * 2 * Math.PI * 440)), 44 + index * 2);
  }
  const path = join(tempDir, name);
  await writeFile(path, wav);
  return path;
}

/** The format and samples of a PCM WAV file, failing the test if it is not one. */
function readPcmWav(wav: Buffer): { sampleRate: number; channels: number; bitsPerSample: number; samples: Buffer; seconds: number } {
  assert.equal(wav.toString("ascii", 0, 4), "RIFF");
  assert.equal(wav.toString("ascii", 8, 12), "WAVE");
  assert.equal(wav.readUInt32LE(4), wav.length - 8, "the RIFF size is the file's");
  let format: { sampleRate: number; channels: number; bitsPerSample: number } | undefined;
  for (let offset = 12; offset + 8 <= wav.length; ) {
    const id = wav.toString("ascii", offset, offset + 4);
    const size = wav.readUInt32LE(offset + 4);
    if (id === "fmt ") {
      assert.equal(wav.readUInt16LE(offset + 8), 1, "integer PCM");
      format = { channels: wav.readUInt16LE(offset + 10), sampleRate: wav.readUInt32LE(offset + 12), bitsPerSample: wav.readUInt16LE(offset + 22) };
    }
    if (id === "data") {
      assert.ok(format, "fmt comes before data");
      const samples = wav.subarray(offset + 8, offset + 8 + size);
      assert.equal(samples.length, size, "the data chunk is whole");
      return { ...format, samples, seconds: size / (format.sampleRate * format.channels * (format.bitsPerSample / 8)) };
    }
    offset += 8 + size + (size % 2);
  }
  assert.fail("no data chunk");
}

/** Runs `work` with os.tmpdir() pointing at an empty folder of its own, so a test can see what was left there. */
async function inOwnTmpdir(work: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tempDir, "tmpdir-"));
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  try {
    await work(dir);
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
}

// --- chat --------------------------------------------------------------------------------------------------------------

test("chat sends the model, messages and options with the key, and returns the reply", async () => {
  const model = createOpenAiLanguageModel({ ...connection(), headers: { "x-proxy-team": "video" } });
  const result = await model.chat(question, { temperature: 0.2, maxTokens: 64 });

  assert.equal(result.text, "You said “What is on the whiteboard at minute two?”.");
  assert.equal(result.finishReason, "stop");
  assert.deepEqual(result.usage, { promptTokens: 12, completionTokens: 10 });
  const request = lastRequest();
  assert.equal(request?.path, "/v1/chat/completions");
  assert.equal(request?.headers.authorization, `Bearer ${key}`);
  assert.equal(request?.headers["x-proxy-team"], "video");
  assert.deepEqual(request?.json, { model: "test-model", messages: question, temperature: 0.2, max_tokens: 64 });
  assert.equal(model.id, "openai:test-model");
  assert.deepEqual(model.capabilities, { maxBatchSize: 1, maxConcurrency: 4, acceptsImages: false, maxImages: 0, jsonOutput: true });
});

test("the key function is not called until a request is sent, and is called for each one", async () => {
  let calls = 0;
  const apiKey = () => {
    calls += 1;
    return key;
  };
  const model = createOpenAiLanguageModel({ ...connection(), apiKey, label: "local-llm" });
  const stream = model.stream(question);
  createOpenAiEmbedder({ ...connection(), apiKey, dimensions: 32 });
  createOpenAiTranscriber({ ...connection(), apiKey });
  assert.equal(calls, 0);

  await model.chat(question);
  assert.equal(calls, 1);
  await collect(stream);
  assert.equal(calls, 2);
  assert.equal(model.id, "local-llm");
});

test("without a key no Authorization header is sent", async () => {
  await createOpenAiLanguageModel({ baseUrl: server.url, model: "test-model" }).chat(question);
  assert.equal(lastRequest()?.headers.authorization, undefined);
});

test("the base URL joins the API path with one slash, with or without a trailing slash", async () => {
  for (const baseUrl of [server.url, `${server.url}/`, `${server.url}//`]) {
    await createOpenAiLanguageModel(connection({ baseUrl })).chat(question);
    assert.equal(lastRequest()?.path, "/v1/chat/completions", baseUrl);
  }
});

test("a base URL that is not http(s) is CONFIG_INVALID at construction", () => {
  assert.throws(
    () => createOpenAiLanguageModel(connection({ baseUrl: "localhost:8080/v1" })),
    (error: unknown) => VideoRagError.isInstance(error) && error.code === "CONFIG_INVALID",
  );
});

test("streaming yields several deltas whose concatenation equals the whole reply", async () => {
  const model = createOpenAiLanguageModel(connection());
  const deltas = await collect(model.stream(question, { temperature: 0 }));
  assert.equal(lastRequest()?.json.stream, true);
  assert.equal(lastRequest()?.json.temperature, 0);
  const { text } = await model.chat(question);
  assert.ok(deltas.length >= 5, `got ${deltas.length} deltas`);
  assert.equal(deltas.join(""), text);
});

test("a consumer that stops reading early closes the stream instead of draining it", async () => {
  let finishedWhenClosed: Promise<boolean> | undefined;
  server.script((_request, response) => {
    finishedWhenClosed = new Promise((resolve) => response.on("close", () => resolve(response.writableFinished)));
    response.writeHead(200, { "content-type": "text/event-stream" });
    let sent = 0;
    const timer = setInterval(() => {
      sent += 1;
      response.write(`data: {"choices":[{"index":0,"delta":{"content":"word${sent} "}}]}\n\n`);
      if (sent === 200) response.end("data: [DONE]\n\n");
    }, 5);
    response.on("close", () => clearInterval(timer));
  });
  for await (const delta of createOpenAiLanguageModel(connection()).stream(question)) {
    assert.equal(delta, "word1 ");
    break;
  }
  assert.equal(await finishedWhenClosed, false, "the server saw the connection close before its reply was done");
});

test("server-sent events survive being split at every byte, however the body ends", async () => {
  const events = 'data: {"text":"café ☕"}\r\n\r\n: keep-alive\n\nevent: message\ndata: second\ndata: line\n\ndata: [DONE]';
  for (const ending of ["\n\n", "\n", ""]) {
    const bytes = Buffer.from(events + ending);
    for (let split = 0; split <= bytes.length; split += 1) {
      async function* chunks() {
        yield bytes.subarray(0, split);
        yield bytes.subarray(split);
      }
      const received: string[] = [];
      for await (const event of readServerSentEvents(chunks())) received.push(event);
      const where = `ending ${JSON.stringify(ending)}, split at byte ${split}`;
      assert.deepEqual(received, ['{"text":"café ☕"}', "second\nline", "[DONE]"], where);
    }
  }
});

test("a vision model sends images as data URLs and the text-only model refuses them", async () => {
  const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0xff, 0xd9]);
  const messages: ChatMessage[] = [
    {
      role: "user",
      content: [
        { type: "text", text: "Describe this frame." },
        { type: "image", image: { data: jpeg, mimeType: "image/jpeg", timeSecond: 12 } },
      ],
    },
  ];
  const vision = createOpenAiLanguageModel({ ...connection(), acceptsImages: true });
  assert.equal(vision.capabilities.maxImages, 10);
  const { text } = await vision.chat(messages);
  assert.equal(text, "You said “Describe this frame.” and showed 1 image(s).");
  assert.deepEqual(lastRequest()?.json.messages, [
    {
      role: "user",
      content: [
        { type: "text", text: "Describe this frame." },
        { type: "image_url", image_url: { url: `data:image/jpeg;base64,${jpeg.toString("base64")}` } },
      ],
    },
  ]);

  const sent = server.requests.length;
  const error = await failureOf(createOpenAiLanguageModel(connection()).chat(messages));
  assert.equal(error.code, "INPUT_UNSUPPORTED");
  assert.equal(server.requests.length, sent, "nothing was sent");
});

test("the json flag asks for a JSON object", async () => {
  const { text } = await createOpenAiLanguageModel(connection()).chat(question, { json: true });
  assert.deepEqual(lastRequest()?.json.response_format, { type: "json_object" });
  assert.deepEqual(JSON.parse(text), { said: "What is on the whiteboard at minute two?", images: 0 });
});

// --- embeddings --------------------------------------------------------------------------------------------------------

test("embeddings come back in input order, L2-normalised, with similar texts near", async () => {
  const embedder = createOpenAiEmbedder({ ...connection(), dimensions: 32 });
  assert.deepEqual(embedder.capabilities, { maxBatchSize: 64, maxConcurrency: 4, dimensions: 32 });
  const texts = ["the cat sat on the mat", "a cat sat on a mat", "quarterly revenue grew nine percent"];
  const vectors = await embedder.embed(texts);
  assert.deepEqual(lastRequest()?.json, { model: "test-model", input: texts });
  assert.equal(lastRequest()?.path, "/v1/embeddings");

  const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, index) => sum + value * (b[index] as number), 0);
  const [cat, alsoCat, revenue] = vectors as [Float32Array, Float32Array, Float32Array];
  for (const vector of vectors) assert.ok(Math.abs(dot(vector, vector) - 1) < 1e-5);
  // The server returns data in reverse order; index 0 must still be the first text.
  assert.ok(dot(cat, alsoCat) > 0.4, `similar texts: ${dot(cat, alsoCat)}`);
  assert.ok(dot(cat, revenue) < dot(cat, alsoCat));
  const [alone] = await embedder.embed([texts[0] as string]);
  assert.ok(Math.abs(dot(cat, alone as Float32Array) - 1) < 1e-5, "the first vector belongs to the first text");
});

test("embedding vectors of the wrong length are MODEL_OUTPUT_INVALID; no texts send no request", async () => {
  const embedder = createOpenAiEmbedder({ ...connection(), dimensions: 384 });
  const error = await failureOf(embedder.embed(["hello"]));
  assert.equal(error.code, "MODEL_OUTPUT_INVALID");
  assert.match(error.message, /384 dimensions, got 32/);
  const sent = server.requests.length;
  assert.deepEqual(await embedder.embed([]), []);
  assert.equal(server.requests.length, sent);
});

// --- transcription -----------------------------------------------------------------------------------------------------

test("transcription uploads the WAV as multipart and maps segments and words", { skip: needsShared }, async () => {
  const wavPath = sharedPath("media/audio/jfk.wav");
  const progress: number[][] = [];
  const transcriber = createOpenAiTranscriber(connection());
  const { segments, warnings } = await transcriber.transcribe(wavPath, { onProgress: (done, total) => progress.push([done, total]) });

  const request = lastRequest();
  assert.equal(request?.path, "/v1/audio/transcriptions");
  assert.match(String(request?.headers["content-type"]), /^multipart\/form-data; boundary=/);
  assert.equal(request?.headers.authorization, `Bearer ${key}`);
  assert.deepEqual(request?.form?.fields, {
    model: ["test-model"],
    response_format: ["verbose_json"],
    "timestamp_granularities[]": ["segment", "word"],
  });
  assert.equal(request?.form?.files.file?.filename, "jfk.wav");
  assert.deepEqual(request?.form?.files.file?.data, await readFile(wavPath));

  assert.deepEqual(warnings, []);
  assert.deepEqual(progress, [
    [0, 11],
    [11, 11],
  ]);
  assert.deepEqual(
    segments.map((segment) => [segment.startSecond, segment.endSecond, segment.text]),
    [
      [0, 5.34, "and so my fellow americans ask not"],
      [5.5, 10.84, "what your country can do for you"],
    ],
  );
  for (const segment of segments) {
    assert.equal(segment.words?.map((word) => word.word).join(" "), segment.text);
    for (const word of segment.words ?? []) assert.ok(word.startSecond >= segment.startSecond && word.endSecond <= segment.endSecond);
  }
});

test("a transcription in a known language sends it as the API's language; one the model does not hear is not sent", { skip: needsShared }, async () => {
  const wavPath = sharedPath("media/audio/jfk.wav");
  await createOpenAiTranscriber(connection()).transcribe(wavPath, { language: "de" });
  assert.deepEqual(lastRequest()?.form?.fields.language, ["de"]);
  const englishOnly = createOpenAiTranscriber({ ...connection(), languages: ["en"] });
  assert.deepEqual(englishOnly.capabilities.languages, ["en"]);
  await englishOnly.transcribe(wavPath, { language: "de" });
  assert.equal(lastRequest()?.form?.fields.language, undefined);
  assert.ok(createOpenAiTranscriber(connection()).capabilities.languages.includes("ja"), "Whisper's languages by default");
});

test("a transcription with text only becomes one segment over the whole audio, with a warning", async () => {
  const wavPath = await writeToneWav("tone.wav", 2.5);
  server.script((_request, response) => sendJson(response, 200, { text: " Hello there. " }));
  const { segments, warnings } = await createOpenAiTranscriber(connection()).transcribe(wavPath);
  assert.deepEqual(segments, [{ startSecond: 0, endSecond: 2.5, text: "Hello there." }]);
  assert.equal(warnings.length, 1);
  assert.equal(warnings[0]?.type, "degraded");
  assert.equal(warnings[0]?.feature, "speech timestamps");
});

test("a missing WAV file is INPUT_NOT_FOUND and sends nothing", async () => {
  const sent = server.requests.length;
  const error = await failureOf(createOpenAiTranscriber(connection()).transcribe(join(tempDir, "missing.wav")));
  assert.equal(error.code, "INPUT_NOT_FOUND");
  assert.equal(server.requests.length, sent);
});

test("long audio is sent in pieces under the limit, and their times are shifted onto the whole file", { skip: needsShared }, async () => {
  const wavPath = sharedPath("media/audio/jfk.wav");
  const original = readPcmWav(await readFile(wavPath));
  const transcriber = createOpenAiTranscriber({ ...connection(), maxSecondsPerRequest: 3 });
  const sent = server.requests.length;
  const progress: number[][] = [];
  const leftBetweenPieces: string[][] = [];

  await inOwnTmpdir(async (dir) => {
    const { segments, warnings } = await transcriber.transcribe(wavPath, {
      onProgress: (done, total) => {
        progress.push([done, total]);
        if (done > 0) leftBetweenPieces.push(readdirSync(dir, { recursive: true }).map(String));
      },
    });
    assert.deepEqual(readdirSync(dir), [], "no temporary files are left behind");

    const uploads = server.requests.slice(sent).map((request) => {
      assert.equal(request.path, "/v1/audio/transcriptions");
      assert.deepEqual(request.form?.fields, {
        model: ["test-model"],
        response_format: ["verbose_json"],
        "timestamp_granularities[]": ["segment", "word"],
      });
      const file = request.form?.files.file;
      assert.ok(file);
      return { filename: file.filename, ...readPcmWav(file.data) };
    });
    assert.ok(uploads.length >= 4, `11 s in pieces of at most 3 s takes at least 4 requests, made ${uploads.length}`);
    assert.deepEqual(
      uploads.map((upload) => upload.filename),
      uploads.map((_upload, index) => `jfk-${index + 1}.wav`),
    );
    for (const upload of uploads) {
      assert.deepEqual([upload.sampleRate, upload.channels, upload.bitsPerSample], [16_000, 1, 16]);
      assert.ok(upload.seconds > 1 && upload.seconds <= 3, `a piece of ${upload.seconds} s`);
    }
    assert.deepEqual(Buffer.concat(uploads.map((upload) => upload.samples)), original.samples, "the pieces are the audio, in order, whole");

    // The test server spreads its sentence over each upload, in two segments, with times from the upload's start.
    const startSeconds = uploads.map((_upload, index) => uploads.slice(0, index).reduce((sum, upload) => sum + upload.seconds, 0));
    assert.deepEqual(progress, [[0, 11], ...uploads.map((upload, index) => [(startSeconds[index] as number) + upload.seconds, 11])]);
    assert.equal(leftBetweenPieces.length, uploads.length);
    for (const left of leftBetweenPieces) assert.equal(left.length, 1, `only the empty piece folder, found ${left.join(", ")}`);

    assert.deepEqual(warnings, []);
    assert.equal(segments.length, uploads.length * 2);
    uploads.forEach((upload, index) => {
      const startSecond = startSeconds[index] as number;
      const [first, second] = [segments[index * 2], segments[index * 2 + 1]];
      const where = `piece ${index + 1} from ${startSecond} s`;
      assert.equal(first?.text, "and so my fellow americans ask not", where);
      assert.equal(second?.text, "what your country can do for you", where);
      assert.ok(Math.abs((first?.startSecond ?? -1) - startSecond) < 0.001, `${where}: starts at ${first?.startSecond}`);
      assert.ok(Math.abs((first?.words?.[0]?.startSecond ?? -1) - startSecond) < 0.001, `${where}: first word at the piece's start`);
      const serverEnd = Math.round((13.8 * upload.seconds * 100) / 14) / 100;
      assert.ok(Math.abs((second?.endSecond ?? -1) - (startSecond + serverEnd)) < 0.002, `${where}: ends at ${second?.endSecond}`);
    });
    assert.equal(segments[0]?.startSecond, 0);
    const lastEnd = segments[segments.length - 1]?.endSecond ?? 0;
    assert.ok(lastEnd > 10.8 && lastEnd <= 11, `the last segment ends at ${lastEnd} s`);
    let previousEnd = 0;
    for (const segment of segments) {
      assert.ok(segment.startSecond >= previousEnd && segment.endSecond > segment.startSecond, `out of order: ${inspect(segment)}`);
      assert.equal(segment.words?.map((word) => word.word).join(" "), segment.text);
      for (const word of segment.words ?? []) assert.ok(word.startSecond >= segment.startSecond && word.endSecond <= segment.endSecond);
      previousEnd = segment.endSecond;
    }
  });
});

test("long audio is cut in its pauses, and audio at the limit goes whole in one request", async () => {
  const pauses: [number, number][] = [
    [2.2, 2.6],
    [4.9, 5.3],
    [7.5, 7.9],
  ];
  const wavPath = await writeToneWav("pauses.wav", 10, pauses);
  const transcriber = createOpenAiTranscriber({ ...connection(), maxSecondsPerRequest: 3 });
  const sent = server.requests.length;
  await transcriber.transcribe(wavPath);
  const seconds = server.requests.slice(sent).map((request) => readPcmWav(request.form?.files.file?.data ?? Buffer.alloc(0)).seconds);
  assert.equal(seconds.length, 4);
  let cutSecond = 0;
  for (const pieceSeconds of seconds.slice(0, -1)) {
    cutSecond += pieceSeconds;
    assert.ok(
      pauses.some(([start, end]) => cutSecond > start && cutSecond < end),
      `a cut at ${cutSecond.toFixed(2)} s is not in a pause (pieces of ${seconds.join(", ")} s)`,
    );
  }

  const atLimit = await writeToneWav("three-seconds.wav", 3);
  await transcriber.transcribe(atLimit);
  assert.equal(lastRequest()?.form?.files.file?.filename, "three-seconds.wav");
  assert.deepEqual(lastRequest()?.form?.files.file?.data, await readFile(atLimit));
});

test("pieces that come back with text only give one segment each over the piece, and one warning", async () => {
  const wavPath = await writeToneWav("text-only-pieces.wav", 10, [[4.9, 5.3]]);
  const textOnly: ReplyHandler = (_request, response) => sendJson(response, 200, { text: " Hello there. " });
  server.script(textOnly, textOnly);
  const sent = server.requests.length;
  const { segments, warnings } = await createOpenAiTranscriber({ ...connection(), maxSecondsPerRequest: 6 }).transcribe(wavPath);
  const [first, second] = server.requests.slice(sent).map((request) => readPcmWav(request.form?.files.file?.data ?? Buffer.alloc(0)).seconds);
  assert.ok(first !== undefined && second !== undefined && first + second === 10);
  assert.deepEqual(segments, [
    { startSecond: 0, endSecond: first, text: "Hello there." },
    { startSecond: first, endSecond: 10, text: "Hello there." },
  ]);
  assert.equal(warnings.length, 1);
  assert.equal(warnings[0]?.type, "degraded");
  assert.match(warnings[0]?.detail ?? "", /one segment per piece of up to 6 s/);
});

test("diarized_json is asked for without timestamp granularities, and its segments keep their speakers", async () => {
  const wavPath = await writeToneWav("diarized.wav", 4);
  // The shape of OpenAI's gpt-4o-transcribe-diarize reply (TranscriptionDiarized).
  server.script((_request, response) =>
    sendJson(response, 200, {
      task: "transcribe",
      duration: 4,
      text: "Is the oven hot? Not yet.",
      segments: [
        { type: "transcript.text.segment", id: "seg_0", start: 0.2, end: 1.9, text: " Is the oven hot?", speaker: "A" },
        { type: "transcript.text.segment", id: "seg_1", start: 2.1, end: 3.6, text: " Not yet.", speaker: "B" },
      ],
      usage: { type: "duration", seconds: 4 },
    }),
  );
  const transcriber = createOpenAiTranscriber({ ...connection(), model: "gpt-4o-transcribe-diarize", responseFormat: "diarized_json" });
  const { segments, warnings } = await transcriber.transcribe(wavPath);
  assert.deepEqual(lastRequest()?.form?.fields, {
    model: ["gpt-4o-transcribe-diarize"],
    response_format: ["diarized_json"],
    chunking_strategy: ["auto"],
  });
  assert.deepEqual(segments, [
    { startSecond: 0.2, endSecond: 1.9, text: "Is the oven hot?", speaker: "A" },
    { startSecond: 2.1, endSecond: 3.6, text: "Not yet.", speaker: "B" },
  ]);
  assert.deepEqual(warnings, []);
});

test("a verbose_json reply with whisperX-style speakers keeps them; one without speakers gives none", async () => {
  const wavPath = await writeToneWav("whisperx.wav", 3);
  const verbose = (speakers: (string | null | undefined)[]): ReplyHandler => (_request, response) =>
    sendJson(response, 200, {
      text: "Hello there. General Kenobi.",
      segments: [
        { id: 0, start: 0, end: 1.2, text: " Hello there.", ...(speakers[0] === undefined ? {} : { speaker: speakers[0] }) },
        { id: 1, start: 1.4, end: 2.8, text: " General Kenobi.", ...(speakers[1] === undefined ? {} : { speaker: speakers[1] }) },
      ],
      words: [
        { word: "Hello", start: 0, end: 0.5, speaker: "SPEAKER_00" },
        { word: "there.", start: 0.5, end: 1.2 },
      ],
    });
  server.script(verbose(["SPEAKER_00", "SPEAKER_01"]), verbose([undefined, undefined]), verbose([null, "  "]));
  const transcriber = createOpenAiTranscriber(connection());

  const labelled = await transcriber.transcribe(wavPath);
  assert.deepEqual(lastRequest()?.form?.fields.response_format, ["verbose_json"]);
  assert.deepEqual(labelled.segments.map((segment) => [segment.speaker, segment.text]), [
    ["SPEAKER_00", "Hello there."],
    ["SPEAKER_01", "General Kenobi."],
  ]);
  assert.deepEqual(labelled.segments[0]?.words?.map((word) => word.word), ["Hello", "there."], "words are kept beside the speaker");

  for (const reply of [await transcriber.transcribe(wavPath), await transcriber.transcribe(wavPath)]) {
    assert.deepEqual(reply.segments.map((segment) => segment.text), ["Hello there.", "General Kenobi."]);
    for (const segment of reply.segments) assert.equal("speaker" in segment, false, "an absent, null or blank speaker is no speaker");
  }
});

test("speakers from several pieces come with a warning that labels restart with each request", async () => {
  const wavPath = await writeToneWav("diarized-pieces.wav", 10, [[4.9, 5.3]]);
  const labelled: ReplyHandler = (_request, response) =>
    sendJson(response, 200, { text: "Hi.", segments: [{ start: 0.1, end: 1, text: "Hi.", speaker: "A" }] });
  server.script(labelled, labelled);
  const transcriber = createOpenAiTranscriber({ ...connection(), maxSecondsPerRequest: 6, responseFormat: "diarized_json" });
  const { segments, warnings } = await transcriber.transcribe(wavPath);
  assert.deepEqual(segments.map((segment) => segment.speaker), ["A", "A"]);
  assert.deepEqual(warnings.map((warning) => [warning.type, warning.feature]), [["degraded", "speakers"]]);
  assert.match(warnings[0]?.detail ?? "", /2 pieces/);
});

test("an unknown responseFormat is CONFIG_INVALID", () => {
  assert.throws(
    () => createOpenAiTranscriber({ ...connection(), responseFormat: "srt" as "verbose_json" }),
    (error: unknown) => VideoRagError.isInstance(error) && error.code === "CONFIG_INVALID",
  );
});

test("an abort between or during pieces is INTERRUPTED, and no failure leaves temporary files", async () => {
  const wavPath = await writeToneWav("abort.wav", 10);
  const transcriber = createOpenAiTranscriber({ ...connection(), maxSecondsPerRequest: 3 });
  await inOwnTmpdir(async (dir) => {
    // Between pieces: the caller aborts as the first piece is reported done.
    const between = new AbortController();
    let sent = server.requests.length;
    const betweenError = await failureOf(
      transcriber.transcribe(wavPath, { signal: between.signal, onProgress: (done) => done > 0 && between.abort() }),
    );
    assert.equal(betweenError.code, "INTERRUPTED");
    assert.equal(server.requests.length - sent, 1, "no piece is sent after the abort");
    assert.deepEqual(readdirSync(dir), []);

    // During a piece: the caller aborts while the server holds the second upload unanswered.
    const during = new AbortController();
    sent = server.requests.length;
    const duringError = await failureOf(
      transcriber.transcribe(wavPath, {
        signal: during.signal,
        onProgress: (done) => done > 0 && server.script(() => during.abort()),
      }),
    );
    assert.equal(duringError.code, "INTERRUPTED");
    assert.equal(server.requests.length - sent, 2);
    assert.deepEqual(readdirSync(dir), []);

    // A server failure on the second piece.
    sent = server.requests.length;
    const failed = await failureOf(transcriber.transcribe(wavPath, { onProgress: (done) => done > 0 && server.script("server-error") }));
    assert.equal(failed.code, "MODEL_FAILED");
    assert.equal(server.requests.length - sent, 2);
    assert.deepEqual(readdirSync(dir), []);
  });
});

test("a maxSecondsPerRequest under 1 s is CONFIG_INVALID at construction", () => {
  for (const maxSecondsPerRequest of [0, 0.5, -3, Number.NaN]) {
    assert.throws(
      () => createOpenAiTranscriber({ ...connection(), maxSecondsPerRequest }),
      (error: unknown) => VideoRagError.isInstance(error) && error.code === "CONFIG_INVALID",
      String(maxSecondsPerRequest),
    );
  }
});

// --- failures ----------------------------------------------------------------------------------------------------------

const faultCases: { fault: Fault; code: ErrorCode; retryable: boolean }[] = [
  { fault: "rate-limit", code: "MODEL_RATE_LIMITED", retryable: true },
  { fault: "server-error", code: "MODEL_FAILED", retryable: true },
  { fault: "unauthorized", code: "MODEL_AUTH_FAILED", retryable: false },
  { fault: "malformed-json", code: "MODEL_OUTPUT_INVALID", retryable: true },
  { fault: "cut-stream", code: "MODEL_OUTPUT_INVALID", retryable: true },
];

test("each server fault maps to its error code, for chat, streams, embeddings and transcriptions", async () => {
  const model = createOpenAiLanguageModel(connection());
  const embedder = createOpenAiEmbedder({ ...connection(), dimensions: 32 });
  const wavPath = await writeToneWav("fault.wav", 1);
  const calls = {
    chat: () => model.chat(question),
    stream: () => collect(model.stream(question)),
    embed: () => embedder.embed(["hello"]),
    transcribe: () => createOpenAiTranscriber(connection()).transcribe(wavPath),
  };
  for (const { fault, code, retryable } of faultCases) {
    for (const [name, call] of Object.entries(calls)) {
      server.script(fault);
      const error = await failureOf(call());
      const label = `${fault} on ${name}`;
      assert.equal(error.code, code, label);
      assert.equal(error.retryable, retryable, label);
      assert.equal(error.subject, "openai:test-model", label);
      assert.match(error.message, /\/v1\/\S+ \(model test-model\)/, label);
      if (fault === "rate-limit") assert.equal(error.retryAfterSeconds, 1, label);
    }
  }
});

test("other 4xx replies are MODEL_FAILED, not retryable, and carry the server's message", async () => {
  server.script((_request, response) => sendError(response, 400, "  max_tokens is too large: 999999.\n"));
  const error = await failureOf(createOpenAiLanguageModel(connection()).chat(question, { maxTokens: 999_999 }));
  assert.equal(error.code, "MODEL_FAILED");
  assert.equal(error.retryable, false);
  assert.equal(error.message, "POST /v1/chat/completions (model test-model) failed with HTTP 400: max_tokens is too large: 999999.");

  server.script((_request, response) => sendJson(response, 403, { error: "this project has no access to the model" }));
  const forbidden = await failureOf(createOpenAiLanguageModel(connection()).chat(question));
  assert.equal(forbidden.code, "MODEL_AUTH_FAILED");
  assert.match(forbidden.message, /HTTP 403: this project has no access to the model$/);
});

test("Retry-After given as an HTTP date becomes seconds from now", async () => {
  const retryAt = new Date(Date.now() + 120_000).toUTCString();
  server.script((_request, response) => sendJson(response, 429, { error: { message: "slow down" } }, { "retry-after": retryAt }));
  const error = await failureOf(createOpenAiLanguageModel(connection()).chat(question));
  assert.equal(error.code, "MODEL_RATE_LIMITED");
  const seconds = error.retryAfterSeconds ?? Number.NaN;
  assert.ok(seconds >= 118 && seconds <= 120, `retry after ${seconds} s`);
});

test("a streamed error event is MODEL_FAILED and a dropped connection mid-stream is a retryable MODEL_FAILED", async () => {
  const model = createOpenAiLanguageModel(connection());
  server.script((_request, response) => {
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.write('data: {"choices":[{"index":0,"delta":{"content":"Hel"}}]}\n\n');
    response.end('data: {"error":{"message":"the model crashed","type":"server_error"}}\n\n');
  });
  const streamed = await failureOf(collect(model.stream(question)));
  assert.equal(streamed.code, "MODEL_FAILED");
  assert.match(streamed.message, /the model crashed/);

  server.script((_request, response) => {
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.write('data: {"choices":[{"index":0,"delta":{"content":"Hel"}}]}\n\n', () => setTimeout(() => response.destroy(), 20));
  });
  const dropped = await failureOf(collect(model.stream(question)));
  assert.equal(dropped.code, "MODEL_FAILED");
  assert.equal(dropped.retryable, true);
});

test("a server that never answers times out as MODEL_TIMEOUT; a user abort is INTERRUPTED", async () => {
  const model = createOpenAiLanguageModel(connection());
  server.script("hang");
  const started = Date.now();
  const timedOut = await failureOf(model.chat(question, { signal: AbortSignal.timeout(200) }));
  assert.equal(timedOut.code, "MODEL_TIMEOUT");
  assert.equal(timedOut.retryable, true);
  assert.ok(Date.now() - started < 2000);

  // Aborted while the stream is under way, after the first delta arrived.
  server.script((_request, response) => {
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.write('data: {"choices":[{"index":0,"delta":{"content":"Hel"}}]}\n\n');
  });
  const controller = new AbortController();
  const deltas: string[] = [];
  const interrupted = await failureOf(
    (async () => {
      for await (const delta of model.stream(question, { signal: controller.signal })) {
        deltas.push(delta);
        controller.abort();
      }
    })(),
  );
  assert.deepEqual(deltas, ["Hel"]);
  assert.equal(interrupted.code, "INTERRUPTED");
  assert.equal(interrupted.retryable, false);
});

test("a server that is not running is MODEL_UNAVAILABLE", async () => {
  const closedPort = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
  const error = await failureOf(createOpenAiLanguageModel(connection({ baseUrl: `http://127.0.0.1:${closedPort}/v1` })).chat(question));
  assert.equal(error.code, "MODEL_UNAVAILABLE");
  assert.equal(error.retryable, true);
  assert.match(error.message, /ECONNREFUSED/);
});

test("the key never appears in any error, its cause or its stack", async () => {
  const model = createOpenAiLanguageModel(connection());
  const embedder = createOpenAiEmbedder({ ...connection(), dimensions: 8 });
  // Servers that echo the Authorization header back, in every place a client might copy text from.
  const echoKey =
    (status: number): ReplyHandler =>
    (request, response) =>
      sendError(response, status, `bad request from ${request.headers.authorization}`);
  const echoKeyAsText: ReplyHandler = (request, response) => {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(`<html>proxy saw ${request.headers.authorization}</html>`);
  };
  const echoKeyInStream =
    (event: string): ReplyHandler =>
    (request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.end(`data: ${event.replace("KEY", String(request.headers.authorization))}\n\ndata: [DONE]\n\n`);
    };
  const errors: VideoRagError[] = [];
  for (const fault of faultCases.map((entry) => entry.fault)) {
    server.script(fault);
    errors.push(await failureOf(model.chat(question)));
    server.script(fault);
    errors.push(await failureOf(collect(model.stream(question))));
  }
  for (const handler of [echoKey(400), echoKey(401), echoKey(503), echoKeyAsText]) {
    server.script(handler);
    errors.push(await failureOf(model.chat(question)));
  }
  for (const event of ['{"error":{"message":"failed for KEY"}}', "not json KEY"]) {
    server.script(echoKeyInStream(event));
    errors.push(await failureOf(collect(model.stream(question))));
  }
  errors.push(await failureOf(embedder.embed(["wrong length"])));
  server.script("hang");
  errors.push(await failureOf(model.chat(question, { signal: AbortSignal.timeout(100) })));
  errors.push(await failureOf(createOpenAiLanguageModel(connection({ baseUrl: "http://127.0.0.1:1/v1" })).chat(question)));

  assert.ok(server.requests.some((request) => request.headers.authorization === `Bearer ${key}`), "the key was sent");
  assert.ok(errors.some((error) => error.message.includes("[redacted]")), "an echoed key was scrubbed");
  for (const error of errors) {
    const everything = `${inspect(error, { depth: 10, showHidden: true })} ${JSON.stringify(error)} ${error.stack}`;
    assert.ok(!everything.includes("SECRET"), `${error.code} leaks the key: ${error.message}`);
  }
});
