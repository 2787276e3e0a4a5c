// One mapping from error codes to exit codes and one-line messages, so every command fails the same way.

import { toVideoRagError, type ErrorCode, type VideoRagError } from "../spec/index.js";

/** 2: the command was used wrongly; 3: some input could not be ingested; 4: the environment is missing something. */
const exitCodes: Partial<Record<ErrorCode, number>> = {
  ARGUMENT_INVALID: 2,
  CONFIG_INVALID: 2,
  QUESTIONS_INVALID: 2,
  VIDEO_NOT_FOUND: 2,
  PATH_OUTSIDE_LIBRARY: 2,
  INPUT_NOT_FOUND: 3,
  INPUT_EMPTY: 3,
  INPUT_NOT_MEDIA: 3,
  INPUT_CORRUPT: 3,
  INPUT_NO_STREAMS: 3,
  INPUT_UNSUPPORTED: 3,
  TOOL_MISSING: 4,
  STORE_LOCKED: 5,
  INTERRUPTED: 130,
};

export function exitCodeFor(code: ErrorCode): number {
  return exitCodes[code] ?? 1;
}

/** `videorag: VIDEO_NOT_FOUND no video "abc" in the library` — one line, no stack, no secrets. */
export function errorLine(error: VideoRagError): string {
  const subject = error.subject && !error.message.includes(error.subject) ? ` (${error.subject})` : "";
  return `videorag: ${error.code} ${error.message}${subject}`;
}

export function reportError(error: unknown): void {
  const failure = toVideoRagError(error);
  console.error(errorLine(failure));
  if (failure.code === "INTERNAL" && process.env.VIDEORAG_DEBUG && error instanceof Error) console.error(error.stack);
  process.exitCode = exitCodeFor(failure.code);
}
