// The server's security rules, stated once and enforced in one middleware layer before any route runs:
//   1. a path whose percent-encoding does not decode is a 400 (never a 500 with a stack in the log);
//   2. the Host header names this machine (loopback), the address the server is bound to, or an allowed host name, so a
//      page on a rebound DNS name cannot read a server that has no token;
//   3. with a token, every route but the health check, the login and the web UI's files needs it (bearer or cookie);
//   4. a request that changes state (POST, PUT, PATCH, DELETE) from a browser comes from the server's own origin or a
//      configured CORS origin, and carries the content type its route reads (JSON, or multipart for uploads), so a page
//      on another site cannot send it as a "simple" request that needs no preflight;
//   5. a body is cut off at its limit whatever its transfer encoding (Content-Length or chunked);
//   6. an error is `{ error: { code, message } }` with its status; an unexpected one says only that, and its stack goes
//      to the server's log.
// Path confinement (the 7th rule: a path given to ingest resolves, after every symbolic link and for every file found
// in a folder, inside a media root) is `confinedPath` here and `confineTo` in ingest.

import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { realpathSync } from "node:fs";
import { isAbsolute } from "node:path";
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { isInside } from "../media/index.js";
import { VideoRagError, errorOutcomes, toVideoRagError } from "../spec/index.js";

export interface SecurityOptions {
  /** When set, API routes need `Authorization: Bearer <token>` or the login cookie. */
  token?: string;
  /** The address the server listens on (default 127.0.0.1); a wildcard address with no allowed hosts accepts any Host. */
  bindHost?: string;
  /** Host names (without port) clients may use beside loopback and the bound address, e.g. a LAN name. */
  allowedHosts?: string[];
  /** Origins allowed to call the API from another site (the CORS origins). */
  corsOrigins?: string[];
  /** Largest JSON body. */
  jsonLimitBytes: number;
  /** Largest upload: checked here against a declared length; the upload's reader counts the bytes as they stream. */
  uploadLimitBytes: number;
}

export const sessionCookie = "videorag_session";
const stateChanging = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const wildcardHosts = new Set(["0.0.0.0", "::", "[::]", ""]);

/** True for the addresses and names only this machine can reach: 127.0.0.0/8, ::1, localhost and *.localhost. */
export function isLoopback(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "");
  if (name === "localhost" || name.endsWith(".localhost") || name === "::1" || name === "0:0:0:0:0:0:0:1") return true;
  const ipv4 = /^(?:::ffff:)?(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(name);
  return ipv4 !== null && ipv4[1] === "127" && ipv4.slice(1).every((octet) => Number(octet) <= 255 && !/^0\d/.test(octet));
}

/** The host name of a Host header value, without its port; undefined when it is not a host name. */
export function hostName(header: string): string | undefined {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]/\s@]+)(?::\d{1,5})?$/.exec(header.trim());
  return match?.[1]?.toLowerCase().replace(/\.$/, "");
}

/** The URL path decoded, or a 400 when its percent-encoding is broken (`%ff`, `%`, overlong UTF-8). */
export function decodedPath(rawPath: string): string {
  try {
    return decodeURIComponent(rawPath);
  } catch {
    throw new VideoRagError("ARGUMENT_INVALID", "the URL's percent-encoding is not valid UTF-8");
  }
}

/** The rules above as one middleware, to run before every route. */
export function securityRules(options: SecurityOptions): MiddlewareHandler {
  const bindHost = (options.bindHost ?? "127.0.0.1").toLowerCase();
  const allowedHosts = new Set((options.allowedHosts ?? []).map((host) => hostName(host) ?? host.toLowerCase()));
  const anyHost = wildcardHosts.has(bindHost) && allowedHosts.size === 0;
  const corsOrigins = new Set(options.corsOrigins ?? []);
  const token = options.token;
  const expectedSession = token ? sessionValue(token) : undefined;
  // Hono's limit holds the body in memory while it counts a chunked one: right for JSON, not for gigabytes of upload.
  const jsonLimit = limitBody(options.jsonLimitBytes, "the request body");

  const hostAllowed = (name: string | undefined): boolean =>
    name !== undefined && (anyHost || isLoopback(name) || name === bindHost || `[${bindHost}]` === name || allowedHosts.has(name));

  return async (c, next) => {
    // 1. The path decodes.
    const rawPath = new URL(c.req.url).pathname;
    decodedPath(rawPath);

    // 2. The Host names us.
    const host = c.req.header("host") ?? new URL(c.req.url).host;
    if (!hostAllowed(hostName(host))) {
      throw new VideoRagError("HOST_NOT_ALLOWED", "this server does not answer to that host name (start it with --allowed-host <name>)");
    }

    // 3. The token.
    const path = c.req.path;
    if (token && expectedSession && c.req.method !== "OPTIONS") {
      const open = path === "/api/health" || path === "/api/login" || !(path.startsWith("/api/") || path === "/openapi.json");
      const bearer = /^Bearer\s+(.+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
      const cookie = readCookie(c.req.header("cookie"), sessionCookie);
      const holds = (bearer !== undefined && sameSecret(bearer, token)) || (cookie !== undefined && sameSecret(cookie, expectedSession));
      if (!open && !holds) throw new VideoRagError("AUTH_REQUIRED", "this server needs a token: send Authorization: Bearer <token>");
    }

    if (!stateChanging.has(c.req.method)) return next();

    // 4. Where a state change comes from, and what it carries.
    const origin = c.req.header("origin");
    if (origin !== undefined && !corsOrigins.has(origin) && !sameOrigin(origin, host)) {
      throw new VideoRagError("ORIGIN_NOT_ALLOWED", `requests from ${origin.slice(0, 100)} may not change this library (start the server with --cors <origin>)`);
    }
    if (origin === undefined && c.req.header("sec-fetch-site") === "cross-site") {
      throw new VideoRagError("ORIGIN_NOT_ALLOWED", "a cross-site request may not change this library");
    }
    const contentType = (c.req.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
    const declaredLength = c.req.header("content-length");
    const hasBody =
      declaredLength !== undefined ? declaredLength !== "0" : c.req.header("transfer-encoding") !== undefined || (c.req.method !== "DELETE" && c.req.raw.body !== null);
    const multipart = contentType === "multipart/form-data";
    if (multipart && !(c.req.method === "POST" && path === "/api/ingest")) {
      throw new VideoRagError("CONTENT_TYPE_UNSUPPORTED", "only POST /api/ingest takes multipart/form-data");
    }
    if (hasBody && !multipart && contentType !== "application/json") {
      throw new VideoRagError("CONTENT_TYPE_UNSUPPORTED", "send the body as application/json");
    }

    // 5. The body's size, counted as it arrives (an upload's by `receiveUpload`, which streams it to disk).
    if (!multipart) {
      // A declared length is checked against the limit, so that the route reads node's own request: Hono's bodyLimit
      // reads the body through a web Request and stream built for it, a third of a small request's cost on the
      // server's thread. A body of undeclared length is counted as it streams.
      if (declaredLength === undefined || c.req.header("transfer-encoding") !== undefined) return jsonLimit(c, next);
      if (Number.parseInt(declaredLength, 10) > options.jsonLimitBytes) throw bodyTooLarge(options.jsonLimitBytes, "the request body");
      return next();
    }
    if (Number(declaredLength ?? 0) > options.uploadLimitBytes) {
      throw bodyTooLarge(options.uploadLimitBytes, "the upload");
    }
    return next();
  };
}

function limitBody(maxSize: number, what: string): MiddlewareHandler {
  return bodyLimit({
    maxSize,
    onError: () => {
      throw bodyTooLarge(maxSize, what);
    },
  });
}

function bodyTooLarge(maxSize: number, what: string): VideoRagError {
  return new VideoRagError("BODY_TOO_LARGE", `${what} is larger than the server's limit of ${formatBytes(maxSize)}`);
}

function sameOrigin(origin: string, host: string): boolean {
  try {
    return new URL(origin).host.toLowerCase() === host.toLowerCase();
  } catch {
    return false;
  }
}

/** 6. The one error mapper: the code's status and a JSON body; an unexpected error's details stay in the log. */
export function errorResponse(error: unknown, c: Context, log: (line: string) => void): Response {
  const failure = toVideoRagError(error);
  const status = errorOutcomes[failure.code].httpStatus as 400;
  if (failure.code === "INTERNAL") {
    log(`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return c.json({ error: { code: failure.code, message: "an unexpected internal error; the server's log has the details" } }, status);
  }
  return c.json({ error: { code: failure.code, message: failure.message } }, status);
}

/** 7. A path the server may ingest: it resolves, after symbolic links, inside one of the (real) media roots. */
export function confinedPath(path: string, roots: string[]): string {
  if (!isAbsolute(path)) throw new VideoRagError("ARGUMENT_INVALID", `give an absolute path, not "${path}"`, { subject: path });
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    throw new VideoRagError("INPUT_NOT_FOUND", "the path does not exist", { subject: path });
  }
  if (!roots.some((root) => isInside(real, root))) {
    throw new VideoRagError("PATH_OUTSIDE_LIBRARY", "the path is outside the server's media roots", { subject: path });
  }
  return real;
}


/** Compares two secrets in time that does not depend on where they differ (their hashes have one length). */
export function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string): Buffer => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** The login cookie: derived from the token, so the token itself is never stored in the browser. */
export function sessionValue(token: string): string {
  return createHmac("sha256", token).update("videorag session").digest("hex");
}

function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const [key, ...value] = part.trim().split("=");
    if (key === name) return value.join("=");
  }
  return undefined;
}

export function formatBytes(bytes: number): string {
  if (bytes >= 2 ** 30) return `${Number((bytes / 2 ** 30).toFixed(1))} GiB`;
  if (bytes >= 2 ** 20) return `${Number((bytes / 2 ** 20).toFixed(1))} MiB`;
  return `${bytes} bytes`;
}
