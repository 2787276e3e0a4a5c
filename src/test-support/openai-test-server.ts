// A real HTTP server on 127.0.0.1 that speaks the OpenAI API closely enough to test clients against: chat (whole and
// streamed as server-sent events), embeddings, transcriptions and the model list. Faults can be scripted for the next
// requests, and every request is recorded so tests can assert what a client sent.

import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as delay } from "node:timers/promises";

/** A multipart/form-data body, as far as tests need to see it. */
export interface MultipartForm {
  /** Text fields by name; repeated names (`timestamp_granularities[]`) keep every value. */
  fields: Record<string, string[]>;
  files: Record<string, { filename: string; contentType: string; data: Buffer }>;
}

/** A request as the server received it. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed body of a JSON request; empty for other requests. */
  json: Record<string, unknown>;
  /** The parsed body of a multipart request. */
  form?: MultipartForm;
}

/**
 * A fault for one request: `rate-limit` (429, Retry-After: 1), `server-error` (500), `unauthorized` (401),
 * `hang` (never answers), `malformed-json` (a broken body, or a broken `data:` line when streaming) and
 * `cut-stream` (the reply stops halfway and the connection closes cleanly, without `data: [DONE]`).
 */
export type Fault = "rate-limit" | "server-error" | "unauthorized" | "hang" | "malformed-json" | "cut-stream";

/** A custom reply: write to `response` as a real server would. */
export type ReplyHandler = (request: RecordedRequest, response: ServerResponse) => void | Promise<void>;

export interface OpenAiTestServer {
  /** API root, ending in `/v1`. */
  url: string;
  requests: RecordedRequest[];
  /** Queues how the next requests are answered, one entry each; requests after the queue get normal replies. */
  script(...replies: (Fault | ReplyHandler)[]): void;
  close(): Promise<void>;
}

export interface OpenAiTestServerOptions {
  /** Length of the embedding vectors. Default 32. */
  embeddingDimensions?: number;
  /** The assistant's text for a chat request; default: the last user text echoed back. Streamed word by word. */
  reply?: (request: RecordedRequest) => string;
  /**
   * The language a transcription reports hearing when the request names none, as OpenAI's API names it (Whisper's
   * English name, "german"); default "english". A request that names one gets it back as sent.
   */
  heardLanguage?: string;
}

const modelId = "test-model";

/** Starts the server on a free port of 127.0.0.1. */
export async function startOpenAiTestServer(options: OpenAiTestServerOptions = {}): Promise<OpenAiTestServer> {
  const requests: RecordedRequest[] = [];
  const queue: (Fault | ReplyHandler)[] = [];
  const dimensions = options.embeddingDimensions ?? 32;

  const server = createServer((incoming, response) => {
    void (async () => {
      const request = await record(incoming);
      requests.push(request);
      if (options.reply) scriptedReplies.set(request, options.reply);
      const scripted = queue.shift();
      if (typeof scripted === "function") await scripted(request, response);
      else if (scripted) await fault(scripted, request, response);
      else await reply(request, response, dimensions, options.heardLanguage ?? "english");
    })().catch((error: unknown) => {
      if (!response.headersSent) sendError(response, 500, `test server failed: ${String(error)}`, "server_error");
      else response.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    script: (...replies) => void queue.push(...replies),
    close: async () => {
      // Hung requests keep their sockets open; without this close() would wait for them forever.
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Sends an OpenAI-shaped error body. */
export function sendError(response: ServerResponse, status: number, message: string, type = "invalid_request_error"): void {
  sendJson(response, status, { error: { message, type, param: null, code: null } });
}

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(JSON.stringify(body));
}

async function record(incoming: IncomingMessage): Promise<RecordedRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  const contentType = incoming.headers["content-type"] ?? "";
  const request: RecordedRequest = {
    method: incoming.method ?? "GET",
    path: incoming.url ?? "/",
    headers: incoming.headers,
    json: {},
  };
  if (contentType.startsWith("application/json")) request.json = JSON.parse(body.toString("utf8")) as Record<string, unknown>;
  else if (contentType.startsWith("multipart/form-data")) request.form = parseMultipart(body, contentType);
  return request;
}

async function reply(request: RecordedRequest, response: ServerResponse, dimensions: number, heardLanguage: string): Promise<void> {
  const route = `${request.method} ${request.path}`;
  if (route === "GET /v1/models") {
    sendJson(response, 200, { object: "list", data: [{ id: modelId, object: "model", created: 1_700_000_000, owned_by: "test" }] });
  } else if (route === "POST /v1/chat/completions") {
    if (request.json.stream === true) await streamChat(response, chatPieces(request));
    else sendJson(response, 200, chatCompletion(request));
  } else if (route === "POST /v1/embeddings") {
    sendJson(response, 200, embeddings(request, dimensions));
  } else if (route === "POST /v1/audio/transcriptions") {
    const file = request.form?.files.file;
    if (!file) sendError(response, 400, "you must provide a file");
    else {
      const language = request.form?.fields.language?.[0] ?? heardLanguage;
      sendJson(response, 200, transcription(file.data, request.form?.fields["timestamp_granularities[]"] ?? [], language));
    }
  } else {
    sendError(response, 404, `Unknown request URL: ${route}`);
  }
}

async function fault(kind: Fault, request: RecordedRequest, response: ServerResponse): Promise<void> {
  const streaming = request.json.stream === true;
  switch (kind) {
    case "rate-limit":
      sendJson(response, 429, { error: { message: "Rate limit reached for test-model", type: "requests", code: "rate_limit_exceeded" } }, {
        "retry-after": "1",
      });
      return;
    case "server-error":
      sendError(response, 500, "The server had an error while processing your request.", "server_error");
      return;
    case "unauthorized":
      // Echoes the key, as a careless proxy might, so tests can check that clients scrub it from their errors.
      sendError(response, 401, `Incorrect API key provided: ${request.headers.authorization ?? "(none)"}.`);
      return;
    case "hang":
      return;
    case "malformed-json":
      if (!streaming) {
        response.writeHead(200, { "content-type": "application/json" });
        response.end('{"id": "chatcmpl-1", "choices": [{"message": ');
        return;
      }
      writeStreamHead(response);
      response.write('data: {"choices": [{"delta": {"content": "Hel\n\n');
      response.end("data: [DONE]\n\n");
      return;
    case "cut-stream": {
      if (!streaming) {
        const whole = JSON.stringify(chatCompletion(request));
        response.writeHead(200, { "content-type": "application/json" });
        response.end(whole.slice(0, whole.length / 2));
        return;
      }
      const pieces = chatPieces(request);
      await streamChat(response, pieces.slice(0, Math.ceil(pieces.length / 2)), { finish: false });
      return;
    }
  }
}

// --- chat ------------------------------------------------------------------------------------------------------------

/** Each server's own reply function, found from the request it answers. */
const scriptedReplies = new WeakMap<RecordedRequest, (request: RecordedRequest) => string>();

/** The reply: the scripted one, or the last user text echoed back, naming how many images came with the request. */
function chatText(request: RecordedRequest): string {
  const scripted = scriptedReplies.get(request);
  if (scripted) return scripted(request);
  const messages = (request.json.messages ?? []) as { role: string; content: string | { type: string; text?: string }[] }[];
  const lastUser = [...messages].reverse().find((message) => message.role === "user");
  const parts = typeof lastUser?.content === "string" ? [{ type: "text", text: lastUser.content }] : (lastUser?.content ?? []);
  const said = parts.map((part) => part.text ?? "").join(" ").trim();
  const images = messages
    .flatMap((message) => (typeof message.content === "string" ? [] : message.content))
    .filter((part) => part.type === "image_url").length;
  const format = request.json.response_format as { type?: string } | undefined;
  if (format?.type === "json_object") return JSON.stringify({ said, images });
  return images > 0 ? `You said “${said}” and showed ${images} image(s).` : `You said “${said}”.`;
}

function chatPieces(request: RecordedRequest): string[] {
  return chatText(request).match(/\S+\s*/g) ?? [];
}

function chatCompletion(request: RecordedRequest) {
  const text = chatText(request);
  return {
    id: "chatcmpl-test",
    object: "chat.completion",
    created: 1_700_000_000,
    model: modelId,
    choices: [{ index: 0, message: { role: "assistant", content: text }, logprobs: null, finish_reason: "stop" }],
    usage: { prompt_tokens: 12, completion_tokens: chatPieces(request).length, total_tokens: 12 + chatPieces(request).length },
  };
}

function writeStreamHead(response: ServerResponse): void {
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
}

/**
 * Streams `pieces` as chat.completion.chunk events. Each event goes out in two writes split at its middle byte (often
 * inside a line, sometimes inside a character), with a pause between, so a client really receives many small chunks.
 */
async function streamChat(response: ServerResponse, pieces: string[], { finish = true } = {}): Promise<void> {
  writeStreamHead(response);
  const chunk = (delta: Record<string, string>, finishReason: string | null) => ({
    id: "chatcmpl-test",
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model: modelId,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  });
  const events = [chunk({ role: "assistant", content: "" }, null), ...pieces.map((content) => chunk({ content }, null))];
  if (finish) events.push(chunk({}, "stop"));
  for (const event of events) {
    const bytes = Buffer.from(`data: ${JSON.stringify(event)}\n\n`);
    const middle = Math.floor(bytes.length / 2);
    response.write(bytes.subarray(0, middle));
    await delay(2);
    response.write(bytes.subarray(middle));
    await delay(2);
  }
  response.end(finish ? "data: [DONE]\n\n" : undefined);
}

// --- embeddings ------------------------------------------------------------------------------------------------------

/** Hashed bag of words: texts sharing words get near vectors. Deliberately not normalised, and returned in reverse order. */
function embeddings(request: RecordedRequest, dimensions: number) {
  const input = request.json.input;
  const texts = typeof input === "string" ? [input] : (input as string[]);
  const data = texts.map((text, index) => {
    const embedding = new Array<number>(dimensions).fill(0);
    for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
      const slot = fnv1a(word) % dimensions;
      embedding[slot] = (embedding[slot] as number) + 1;
    }
    return { object: "embedding", index, embedding };
  });
  // The API numbers each vector; clients must not rely on the order of `data`.
  return { object: "list", data: data.reverse(), model: modelId, usage: { prompt_tokens: texts.length, total_tokens: texts.length } };
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text)) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash;
}

// --- transcriptions --------------------------------------------------------------------------------------------------

const spokenWords = "and so my fellow americans ask not what your country can do for you".split(" ");

/**
 * A verbose_json reply: the fixed sentence spread evenly over the uploaded WAV's duration, in two segments, said to be
 * in `language`.
 */
function transcription(wav: Buffer, granularities: string[], language: string) {
  const duration = wavDurationSeconds(wav);
  const step = duration / spokenWords.length;
  const words = spokenWords.map((word, index) => ({ word, start: round(index * step), end: round((index + 0.8) * step) }));
  const half = Math.ceil(words.length / 2);
  const segments = [words.slice(0, half), words.slice(half)].map((segmentWords, id) => ({
    id,
    seek: 0,
    start: segmentWords[0]?.start ?? 0,
    end: segmentWords[segmentWords.length - 1]?.end ?? 0,
    text: ` ${segmentWords.map((word) => word.word).join(" ")}`,
    tokens: [],
    temperature: 0,
    avg_logprob: -0.2,
    compression_ratio: 1.2,
    no_speech_prob: 0.01,
  }));
  return {
    task: "transcribe",
    language,
    duration,
    text: spokenWords.join(" "),
    ...(granularities.includes("segment") && { segments }),
    ...(granularities.includes("word") && { words }),
  };
}

/** Duration of a PCM WAV from its fmt and data chunks. */
function wavDurationSeconds(wav: Buffer): number {
  let bytesPerSecond = 0;
  for (let offset = 12; offset + 8 <= wav.length; ) {
    const id = wav.toString("ascii", offset, offset + 4);
    const size = wav.readUInt32LE(offset + 4);
    if (id === "fmt ") bytesPerSecond = wav.readUInt32LE(offset + 16);
    if (id === "data" && bytesPerSecond > 0) return Math.min(size, wav.length - offset - 8) / bytesPerSecond;
    offset += 8 + size + (size % 2);
  }
  throw new Error("the uploaded file is not a PCM WAV");
}

function round(seconds: number): number {
  return Math.round(seconds * 100) / 100;
}

// --- multipart -------------------------------------------------------------------------------------------------------

function parseMultipart(body: Buffer, contentType: string): MultipartForm {
  const boundary = /boundary="?([^";]+)"?/.exec(contentType)?.[1];
  if (!boundary) throw new Error("multipart request without a boundary");
  const delimiter = Buffer.from(`--${boundary}`);
  const form: MultipartForm = { fields: {}, files: {} };
  let position = body.indexOf(delimiter);
  while (position >= 0) {
    const start = position + delimiter.length;
    const next = body.indexOf(delimiter, start);
    // The closing delimiter is followed by "--" and nothing else matters.
    if (next < 0 || body.toString("ascii", start, start + 2) === "--") break;
    // Each part is CRLF, headers, CRLF CRLF, content, CRLF.
    const part = body.subarray(start + 2, next - 2);
    const headerEnd = part.indexOf("\r\n\r\n");
    const headers = part.toString("utf8", 0, headerEnd);
    const content = part.subarray(headerEnd + 4);
    const name = /;\s*name="([^"]*)"/.exec(headers)?.[1] ?? "";
    const filename = /;\s*filename="([^"]*)"/.exec(headers)?.[1];
    if (filename !== undefined) {
      const partType = /^content-type:\s*(\S+)/im.exec(headers)?.[1] ?? "application/octet-stream";
      form.files[name] = { filename, contentType: partType, data: Buffer.from(content) };
    } else {
      (form.fields[name] ??= []).push(content.toString("utf8"));
    }
    position = next;
  }
  return form;
}
