// Error codes to exit codes (from the one table beside the codes) and one-line messages, so every command fails the same way.

import { errorOutcomes, toVideoRagError, type ErrorCode, type VideoRagError } from "../spec/index.js";

export function exitCodeFor(code: ErrorCode): number {
  return errorOutcomes[code].exitCode;
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
