// One endpoint of an OpenAI-compatible server: sends a request and turns every way it can fail into a VideoRagError.
// The API key is read when a request is sent and scrubbed from anything the server says back, so no message, warning
// or log line can carry it. Retries, timeouts, batching and caching are the runtime layer's job, not this one's.

import type { z } from "zod";
import { VideoRagError } from "../../spec/errors.js";
import { readServerSentEvents } from "./server-sent-events.js";

/** Where an OpenAI-compatible server is and how to call it; every provider in this folder takes these. */
export interface OpenAiConnectionOptions {
  /** API root the paths are appended to, e.g. "https://api.openai.com/v1" or "http://127.0.0.1:8080/v1". */
  baseUrl: string;
  model: string;
  /** Returns the API key. Called each time a request is sent, never before; no key means no Authorization header. */
  apiKey?: () => string | undefined;
  /** Provider id in answers and logs. Default `openai:<model>`. */
  label?: string;
  /** Extra headers sent with every request, e.g. a proxy's own. */
  headers?: Record<string, string>;
  /** Requests in flight at once; the runtime layer honours it. Default 4. */
  maxConcurrency?: number;
}

/** Sends requests to one path of the server. */
export interface OpenAiEndpoint {
  /** Posts a JSON body (or a multipart form) and returns the parsed JSON reply. */
  post(body: Record<string, unknown> | FormData, signal?: AbortSignal): Promise<unknown>;
  /** Posts a JSON body with `stream: true` and yields each event's parsed JSON until `data: [DONE]`. */
  stream(body: Record<string, unknown>, signal?: AbortSignal): AsyncGenerator<unknown>;
  /** Checks a reply against `schema`; MODEL_OUTPUT_INVALID when it does not fit. */
  parse<T>(schema: z.ZodType<T>, reply: unknown): T;
  /** Builds MODEL_OUTPUT_INVALID for a reply that parsed but makes no sense. */
  invalid(detail: string): VideoRagError;
}

/** `openai:<model>`, or the label the user gave. */
export function providerId(options: OpenAiConnectionOptions): string {
  return options.label ?? `openai:${options.model}`;
}

export function openAiEndpoint(options: OpenAiConnectionOptions, path: string): OpenAiEndpoint {
  const url = joinUrl(options.baseUrl, path);
  const subject = providerId(options);
  const parsedUrl = URL.canParse(url) ? new URL(url) : undefined;
  if (parsedUrl?.protocol !== "http:" && parsedUrl?.protocol !== "https:") {
    throw new VideoRagError("CONFIG_INVALID", `the base URL of ${subject} must start with http:// or https://`, { subject });
  }
  const { origin, pathname } = parsedUrl;
  // Names the path and model, never the query string or credentials the base URL might carry.
  const where = `POST ${pathname} (model ${options.model})`;

  const invalid = (detail: string) =>
    new VideoRagError("MODEL_OUTPUT_INVALID", `${where}: ${detail}`, { retryable: true, subject });

  /** Maps anything thrown while talking to the server; our own errors pass through. */
  function failure(error: unknown, signal: AbortSignal | undefined, stage: "connect" | "read"): VideoRagError {
    if (VideoRagError.isInstance(error)) return error;
    if (signal?.aborted) {
      const reason: unknown = signal.reason;
      // AbortSignal.timeout() aborts with a DOMException named TimeoutError; anything else is someone cancelling.
      const timedOut = typeof reason === "object" && reason !== null && (reason as { name?: unknown }).name === "TimeoutError";
      return timedOut
        ? new VideoRagError("MODEL_TIMEOUT", `${where} timed out`, { cause: reason, retryable: true, subject })
        : new VideoRagError("INTERRUPTED", `${where} was cancelled`, { cause: reason, subject });
    }
    // undici reports "fetch failed" and keeps the reason (ECONNREFUSED, ENOTFOUND, …) on the cause.
    const cause = error instanceof Error ? error.cause : undefined;
    const code = typeof cause === "object" && cause !== null && "code" in cause ? String(cause.code) : undefined;
    const reason = code ?? (error instanceof Error ? error.message : String(error));
    return stage === "connect"
      ? new VideoRagError("MODEL_UNAVAILABLE", `cannot reach ${origin} for ${where}: ${reason}`, { cause: error, retryable: true, subject })
      : new VideoRagError("MODEL_FAILED", `the connection broke while reading the reply to ${where}: ${reason}`, {
          cause: error,
          retryable: true,
          subject,
        });
  }

  async function send(body: Record<string, unknown> | FormData, signal: AbortSignal | undefined) {
    const key = options.apiKey?.() || undefined;
    const headers: Record<string, string> = { ...options.headers };
    if (key) headers.authorization = `Bearer ${key}`;
    // FormData sets its own multipart content type, boundary included.
    if (!(body instanceof FormData)) headers["content-type"] = "application/json";
    const payload = body instanceof FormData ? body : JSON.stringify(body);
    let response: Response;
    try {
      response = await fetch(url, { method: "POST", headers, body: payload, signal });
    } catch (error) {
      throw failure(error, signal, "connect");
    }
    if (!response.ok) throw await statusError(response, key);
    return { response, key };
  }

  async function statusError(response: Response, key: string | undefined): Promise<VideoRagError> {
    const { status } = response;
    const body = redact(await response.text().catch(() => ""), key);
    const detail = serverMessage(body);
    const said = detail ? `: ${detail}` : "";
    if (status === 401 || status === 403) {
      return new VideoRagError("MODEL_AUTH_FAILED", `${where} was refused with HTTP ${status}${said}`, { subject });
    }
    if (status === 429) {
      return new VideoRagError("MODEL_RATE_LIMITED", `${where} was rate limited (HTTP 429)${said}`, {
        retryable: true,
        retryAfterSeconds: parseRetryAfter(response.headers.get("retry-after")),
        subject,
      });
    }
    return new VideoRagError("MODEL_FAILED", `${where} failed with HTTP ${status}${said}`, { retryable: status >= 500, subject });
  }

  return {
    invalid,

    async post(body, signal) {
      const { response, key } = await send(body, signal);
      let text: string;
      try {
        text = await response.text();
      } catch (error) {
        throw failure(error, signal, "read");
      }
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw invalid(`the reply is not JSON: ${snippet(redact(text, key))}`);
      }
    },

    async *stream(body, signal) {
      const { response, key } = await send({ ...body, stream: true }, signal);
      if (!response.body) throw invalid("the streamed reply has no body");
      try {
        for await (const data of readServerSentEvents(response.body)) {
          if (data === "[DONE]") return;
          let event: unknown;
          try {
            event = JSON.parse(data);
          } catch {
            throw invalid(`a streamed event is not JSON: ${snippet(redact(data, key))}`);
          }
          if (typeof event === "object" && event !== null && "error" in event) {
            // An error after the stream began is the server failing mid-generation (overload, a crash), not the request.
            const detail = serverMessage(redact(data, key)) ?? "no message";
            throw new VideoRagError("MODEL_FAILED", `${where} failed mid-stream: ${detail}`, { retryable: true, subject });
          }
          yield event;
        }
      } catch (error) {
        throw failure(error, signal, "read");
      }
      throw invalid("the stream ended without data: [DONE]");
    },

    parse(schema, reply) {
      const result = schema.safeParse(reply);
      if (result.success) return result.data;
      const issues = result.error.issues.slice(0, 3).map((issue) => `${issue.path.join(".") || "reply"}: ${issue.message}`);
      throw invalid(`the reply does not have the expected shape (${issues.join("; ")})`);
    },
  };
}

/** Appends an API path to the base URL with exactly one slash between them. */
export function joinUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
}

/** Seconds to wait from a Retry-After header: either a number of seconds or an HTTP date. */
export function parseRetryAfter(value: string | null): number | undefined {
  if (!value) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

/**
 * The server's own explanation from an error body. OpenAI sends `{error: {message}}`; Ollama and llama.cpp proxies
 * send `{error: "…"}`; older vLLM sends `{message}`. A body that is not JSON (a proxy's HTML page) is shown shortened.
 */
function serverMessage(body: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return body.trim() ? snippet(body) : undefined;
  }
  if (typeof parsed !== "object" || parsed === null) return undefined;
  const { error, message } = parsed as { error?: unknown; message?: unknown };
  const candidate = typeof error === "object" && error !== null ? (error as { message?: unknown }).message : (error ?? message);
  return typeof candidate === "string" && candidate.trim() ? candidate.trim() : undefined;
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat || "(empty)";
}

// A careless server or proxy may echo the key back (e.g. "Incorrect API key provided: sk-…").
function redact(text: string, key: string | undefined): string {
  return key ? text.split(key).join("[redacted]") : text;
}
