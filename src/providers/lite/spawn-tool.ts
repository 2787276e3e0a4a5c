// Runs a Debian command-line program for the lite providers and maps its failures to VideoRagError codes.
// Private to src/providers/lite: the providers need stdin input, an abort signal and an install hint, nothing more.

import { spawn } from "node:child_process";
import { VideoRagError } from "../../spec/errors.js";

export interface SpawnToolOptions {
  /** Written to the program's stdin, which is then closed. Without it stdin is closed at once. */
  input?: Buffer;
  signal?: AbortSignal;
  /** Merged over the parent's environment. */
  env?: Record<string, string>;
  /** How to install the program, shown when it is missing, e.g. "apt-get install tesseract-ocr". */
  installHint: string;
}

export interface SpawnToolResult {
  stdout: Buffer;
  stderr: string;
}

// Enough of stderr to say why a program failed without holding a chatty log in memory.
const stderrTailBytes = 4096;

/** Runs `binary` with `args`, resolving with its output when it exits with 0. */
export function spawnTool(binary: string, args: string[], options: SpawnToolOptions): Promise<SpawnToolResult> {
  const { signal } = options;
  if (signal?.aborted) return Promise.reject(interrupted(binary, signal));

  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, {
      env: options.env ? { ...process.env, ...options.env } : process.env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const stdoutChunks: Buffer[] = [];
    let stderrTail = "";
    let settled = false;

    const finish = (error: VideoRagError | undefined, result?: SpawnToolResult) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      if (error) reject(error);
      else resolve(result as SpawnToolResult);
    };
    // SIGKILL, because tesseract and pocketsphinx have nothing to flush and the caller is leaving anyway.
    const onAbort = () => {
      child.kill("SIGKILL");
      finish(interrupted(binary, signal));
    };
    signal?.addEventListener("abort", onAbort, { once: true });

    child.stdout.on("data", (chunk: Buffer) => stdoutChunks.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => {
      stderrTail = (stderrTail + chunk.toString("utf8")).slice(-stderrTailBytes);
    });
    // A program that exits before reading all of stdin breaks the pipe; its exit status tells the real story.
    child.stdin.on("error", () => undefined);

    child.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") {
        finish(
          new VideoRagError("TOOL_MISSING", `${binary} is not installed (${options.installHint})`, {
            cause: error,
            subject: binary,
          }),
        );
      } else {
        finish(new VideoRagError("TOOL_FAILED", `${binary} could not be started: ${error.message}`, { cause: error, subject: binary }));
      }
    });
    child.on("close", (code, killedBy) => {
      if (code === 0) {
        finish(undefined, { stdout: Buffer.concat(stdoutChunks), stderr: stderrTail });
        return;
      }
      const status = code === null ? `was killed by ${killedBy}` : `exited with status ${code}`;
      const detail = stderrTail.trim().split("\n").slice(-3).join(" | ");
      finish(
        new VideoRagError("TOOL_FAILED", `${binary} ${status}${detail ? `: ${detail}` : ""}`, {
          subject: binary,
          // Being killed by a signal is usually memory pressure or a shutdown, which a later attempt may not meet.
          retryable: code === null,
        }),
      );
    });

    child.stdin.end(options.input);
  });
}

function interrupted(binary: string, signal: AbortSignal | undefined): VideoRagError {
  return new VideoRagError("INTERRUPTED", `${binary} was stopped because the work was cancelled`, {
    cause: signal?.reason,
    subject: binary,
  });
}
