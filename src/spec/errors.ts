// Typed errors with stable codes: the CLI maps them to one-line messages and exit codes, the server to HTTP statuses.

/** Stable error codes. Never renumber or rename: users script against them. */
export const errorCodes = {
  INPUT_NOT_FOUND: "the path does not exist or cannot be read",
  INPUT_EMPTY: "the file is empty",
  INPUT_NOT_MEDIA: "the file is not a video or audio file ffmpeg can read",
  INPUT_CORRUPT: "the media file is damaged and cannot be decoded",
  INPUT_NO_STREAMS: "the file has neither a video nor an audio stream",
  INPUT_UNSUPPORTED: "the input is of a kind this command does not accept",
  PATH_OUTSIDE_LIBRARY: "the path escapes the library",
  TOOL_MISSING: "a required system program is not installed",
  TOOL_FAILED: "a system program failed",
  STORE_FAILED: "the library store failed",
  STORE_LOCKED: "another process holds the library",
  STORE_UNAVAILABLE: "the library's database server cannot be reached",
  VIDEO_NOT_FOUND: "no video with that id in the library",
  CONFIG_INVALID: "the configuration is invalid",
  ARGUMENT_INVALID: "a command argument is invalid",
  QUESTIONS_INVALID: "the questions file is not in the expected format",
  INTERRUPTED: "the work was interrupted",
  MODEL_NOT_FOUND: "a configured model is not present on this machine",
  MODEL_UNAVAILABLE: "a model server cannot be reached",
  MODEL_AUTH_FAILED: "the model server refused the credentials",
  MODEL_RATE_LIMITED: "the model server asked to slow down and retries ran out",
  MODEL_TIMEOUT: "a model call took longer than its timeout",
  MODEL_FAILED: "a model call failed",
  MODEL_OUTPUT_INVALID: "a model's output did not have the expected shape, even after a repair attempt",
  AUTH_REQUIRED: "the server needs a valid token",
  BODY_TOO_LARGE: "the request body is larger than the server accepts",
  ROUTE_NOT_FOUND: "no such route",
  HOST_NOT_ALLOWED: "the server does not answer to that host name",
  ORIGIN_NOT_ALLOWED: "a page from another site may not change the library",
  CONTENT_TYPE_UNSUPPORTED: "the request body is not of a type the route reads",
  JOB_NOT_FOUND: "no job with that id",
  ENTITY_NOT_FOUND: "no entity with that key in the knowledge graph",
  INTERNAL: "an unexpected internal error",
} as const;

export type ErrorCode = keyof typeof errorCodes;

/**
 * What each code means to a face, in one table: the CLI's exit code (2: used wrongly, 3: some input could not be
 * ingested, 4: the environment lacks something, 5: the library is busy, 130: interrupted, 1: anything else) and the
 * server's HTTP status.
 */
export const errorOutcomes: Record<ErrorCode, { exitCode: number; httpStatus: number }> = {
  INPUT_NOT_FOUND: { exitCode: 3, httpStatus: 404 },
  INPUT_EMPTY: { exitCode: 3, httpStatus: 422 },
  INPUT_NOT_MEDIA: { exitCode: 3, httpStatus: 422 },
  INPUT_CORRUPT: { exitCode: 3, httpStatus: 422 },
  INPUT_NO_STREAMS: { exitCode: 3, httpStatus: 422 },
  INPUT_UNSUPPORTED: { exitCode: 3, httpStatus: 415 },
  PATH_OUTSIDE_LIBRARY: { exitCode: 2, httpStatus: 403 },
  TOOL_MISSING: { exitCode: 4, httpStatus: 503 },
  TOOL_FAILED: { exitCode: 1, httpStatus: 500 },
  STORE_FAILED: { exitCode: 1, httpStatus: 500 },
  STORE_LOCKED: { exitCode: 5, httpStatus: 503 },
  STORE_UNAVAILABLE: { exitCode: 4, httpStatus: 503 },
  VIDEO_NOT_FOUND: { exitCode: 2, httpStatus: 404 },
  CONFIG_INVALID: { exitCode: 2, httpStatus: 500 },
  ARGUMENT_INVALID: { exitCode: 2, httpStatus: 400 },
  QUESTIONS_INVALID: { exitCode: 2, httpStatus: 400 },
  INTERRUPTED: { exitCode: 130, httpStatus: 503 },
  MODEL_NOT_FOUND: { exitCode: 4, httpStatus: 503 },
  MODEL_UNAVAILABLE: { exitCode: 1, httpStatus: 502 },
  MODEL_AUTH_FAILED: { exitCode: 1, httpStatus: 502 },
  MODEL_RATE_LIMITED: { exitCode: 1, httpStatus: 429 },
  MODEL_TIMEOUT: { exitCode: 1, httpStatus: 504 },
  MODEL_FAILED: { exitCode: 1, httpStatus: 502 },
  MODEL_OUTPUT_INVALID: { exitCode: 1, httpStatus: 502 },
  AUTH_REQUIRED: { exitCode: 2, httpStatus: 401 },
  BODY_TOO_LARGE: { exitCode: 2, httpStatus: 413 },
  ROUTE_NOT_FOUND: { exitCode: 2, httpStatus: 404 },
  HOST_NOT_ALLOWED: { exitCode: 2, httpStatus: 403 },
  ORIGIN_NOT_ALLOWED: { exitCode: 2, httpStatus: 403 },
  CONTENT_TYPE_UNSUPPORTED: { exitCode: 2, httpStatus: 415 },
  JOB_NOT_FOUND: { exitCode: 2, httpStatus: 404 },
  ENTITY_NOT_FOUND: { exitCode: 2, httpStatus: 404 },
  INTERNAL: { exitCode: 1, httpStatus: 500 },
};

const marker = Symbol.for("videorag.error");

/** The one error type the engine throws on purpose; `code` is stable, `retryable` says whether trying again may help. */
export class VideoRagError extends Error {
  readonly [marker] = true;
  readonly code: ErrorCode;
  readonly retryable: boolean;
  /** What the error is about, e.g. the file path, shown first on the CLI line. */
  readonly subject?: string;
  /** For rate limits: how long the server asked to wait before trying again. */
  readonly retryAfterSeconds?: number;

  constructor(
    code: ErrorCode,
    message: string,
    options: { cause?: unknown; retryable?: boolean; subject?: string; retryAfterSeconds?: number } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "VideoRagError";
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.subject = options.subject;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  /** True for any VideoRagError, even one from another copy of the package. */
  static isInstance(value: unknown): value is VideoRagError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }
}

/** Wraps anything thrown into a VideoRagError, keeping ours as they are. */
export function toVideoRagError(error: unknown, fallback: ErrorCode = "INTERNAL"): VideoRagError {
  if (VideoRagError.isInstance(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new VideoRagError(fallback, message, { cause: error });
}
