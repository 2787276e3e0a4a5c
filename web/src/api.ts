// Talking to the videorag server: JSON requests, server-sent event streams read from fetch, uploads with progress,
// and the token login a protected server asks for (a request answered 401 waits for the login, then runs again).

import type { ErrorBody } from "./api-types";

/** A failure the API reported (its stable code and message), or a network failure (code NETWORK). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

type LoginListener = (needed: boolean) => void;
let loginListener: LoginListener = () => undefined;
let waitingForLogin: (() => void)[] = [];

/** The app shows the token form while `needed` is true. */
export function onLoginNeeded(listener: LoginListener): void {
  loginListener = listener;
}

function waitForLogin(): Promise<void> {
  return new Promise((resolve) => {
    waitingForLogin.push(resolve);
    loginListener(true);
  });
}

/** Sends the token; the server answers with an HttpOnly cookie, and the requests that waited run again. */
export async function login(token: string): Promise<void> {
  const response = await fetch("/api/login", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ token }),
  });
  if (!response.ok) throw await errorFrom(response);
  const waiting = waitingForLogin;
  waitingForLogin = [];
  loginListener(false);
  for (const resume of waiting) resume();
}

async function errorFrom(response: Response): Promise<ApiError> {
  const fallback = `${response.status} ${response.statusText || "error"}`;
  try {
    const body = (await response.json()) as Partial<ErrorBody>;
    if (body.error?.message) return new ApiError(response.status, body.error.code, body.error.message);
  } catch {
    // not JSON: a proxy's page, or nothing
  }
  return new ApiError(response.status, "HTTP_ERROR", fallback);
}

/** fetch, with network failures as ApiError and a 401 turned into the login form and a retry. */
async function send(path: string, init: RequestInit = {}): Promise<Response> {
  for (;;) {
    let response: Response;
    try {
      response = await fetch(path, init);
    } catch (error) {
      if (init.signal?.aborted) throw error;
      throw new ApiError(0, "NETWORK", "The server could not be reached.");
    }
    if (response.status === 401) {
      await waitForLogin();
      continue;
    }
    if (!response.ok) throw await errorFrom(response);
    return response;
  }
}

/** A JSON request; `body` is sent as JSON. */
export async function api<T>(path: string, options: { method?: string; body?: unknown; signal?: AbortSignal } = {}): Promise<T> {
  const init: RequestInit = { method: options.method ?? "GET", headers: { Accept: "application/json" } };
  if (options.signal) init.signal = options.signal;
  if (options.body !== undefined) {
    init.headers = { Accept: "application/json", "Content-Type": "application/json" };
    init.body = JSON.stringify(options.body);
  }
  const response = await send(path, init);
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

/** One server-sent event. */
export interface StreamEvent {
  event: string;
  data: string;
}

/** Opens an event stream (GET, or POST with a JSON body) and yields its events; a JSON reply comes as one `done`. */
export async function* streamEvents(
  path: string,
  options: { body?: unknown; signal?: AbortSignal } = {},
): AsyncGenerator<StreamEvent> {
  const headers: Record<string, string> = { Accept: "text/event-stream" };
  const init: RequestInit = { method: "GET", headers };
  if (options.signal) init.signal = options.signal;
  if (options.body !== undefined) {
    init.method = "POST";
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(options.body);
  }
  const response = await send(path, init);
  if (!(response.headers.get("Content-Type") ?? "").includes("text/event-stream")) {
    yield { event: "done", data: await response.text() };
    return;
  }
  if (!response.body) return;
  yield* parseEventStream(response.body.pipeThrough(new TextDecoderStream()));
}

/** The text/event-stream format: blocks separated by a blank line, `event:` and `data:` fields, `:` comments. */
export async function* parseEventStream(stream: ReadableStream<string>): AsyncGenerator<StreamEvent> {
  const reader = stream.getReader();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value.replace(/\r\n?/g, "\n");
      let boundary = buffer.indexOf("\n\n");
      while (boundary >= 0) {
        const parsed = parseBlock(buffer.slice(0, boundary));
        buffer = buffer.slice(boundary + 2);
        if (parsed) yield parsed;
        boundary = buffer.indexOf("\n\n");
      }
    }
    const last = parseBlock(buffer);
    if (last) yield last;
  } finally {
    reader.releaseLock();
  }
}

function parseBlock(block: string): StreamEvent | undefined {
  let event = "message";
  const data: string[] = [];
  for (const line of block.split("\n")) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
  }
  return data.length > 0 || event !== "message" ? { event, data: data.join("\n") } : undefined;
}

/** Uploads files for ingest as multipart/form-data (field `file`), reporting the bytes sent as 0..1. */
export async function uploadFiles(
  files: File[],
  options: { incremental: boolean; onProgress: (fraction: number) => void },
): Promise<{ jobId: string }> {
  for (;;) {
    const form = new FormData();
    for (const file of files) form.append("file", file, file.name);
    if (options.incremental) form.append("incremental", "true");
    const request = new XMLHttpRequest();
    const finished = new Promise<void>((resolve, reject) => {
      request.upload.onprogress = (event) => {
        if (event.lengthComputable) options.onProgress(event.loaded / event.total);
      };
      request.onload = () => resolve();
      request.onerror = () => reject(new ApiError(0, "NETWORK", "The upload failed: the server could not be reached."));
    });
    request.open("POST", "/api/ingest");
    request.setRequestHeader("Accept", "application/json");
    request.send(form);
    await finished;
    if (request.status === 401) {
      await waitForLogin();
      continue;
    }
    const reply = new Response(request.responseText, { status: request.status, statusText: request.statusText });
    if (request.status < 200 || request.status >= 300) throw await errorFrom(reply);
    return (await reply.json()) as { jobId: string };
  }
}

/** Where a video's picture at a second, its playable media, its subtitles and its chapters are. */
export const mediaUrls = {
  frame: (videoId: string, second: number) => `/api/videos/${encodeURIComponent(videoId)}/frame?t=${Math.max(0, Math.round(second * 10) / 10)}`,
  media: (videoId: string) => `/api/videos/${encodeURIComponent(videoId)}/media`,
  subtitles: (videoId: string) => `/api/videos/${encodeURIComponent(videoId)}/transcript.vtt`,
  chapters: (videoId: string) => `/api/videos/${encodeURIComponent(videoId)}/chapters.vtt`,
};

/** A message for people from whatever was thrown. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}
