// Runs an external program (ffmpeg, ffprobe, or a lite provider's tool) and maps its failures to VideoRagError codes,
// so a missing program, a crash, a timeout and a cancellation each reach the user as one stable code.

import {
  spawn,
  spawnSync,
  type ChildProcess,
  type ChildProcessByStdio,
  type ChildProcessWithoutNullStreams,
  type SpawnOptions,
  type SpawnOptionsWithStdioTuple,
  type SpawnOptionsWithoutStdio,
  type StdioNull,
  type StdioPipe,
} from "node:child_process";
import { AsyncLocalStorage } from "node:async_hooks";
import { accessSync, constants } from "node:fs";
import { setPriority } from "node:os";
import { delimiter, join } from "node:path";
import type { Readable } from "node:stream";
import { VideoRagError } from "../spec/index.js";

export interface RunProcessOptions {
  /** Written to the program's stdin, which is then closed. Without it stdin is closed at once. */
  input?: Buffer;
  /** Aborting kills the program; the call then fails with INTERRUPTED. */
  signal?: AbortSignal;
  /** Kills the program and fails with TOOL_FAILED when it runs longer than this. */
  timeoutMs?: number;
  /** How to install the program, shown when it is missing, e.g. "apt-get install tesseract-ocr". */
  installHint?: string;
  /** Receives stdout as it arrives instead of collecting it, for output too large to hold at once. */
  onStdout?: (chunk: Buffer) => void;
  /** Resolve with the exit code instead of failing when the program exits nonzero (the caller classifies stderr). */
  allowFailure?: boolean;
  /** Merged over the parent's environment. */
  env?: Record<string, string>;
  cwd?: string;
}

export interface ProcessResult {
  /** Everything written to stdout; empty when `onStdout` was given. */
  stdout: Buffer;
  stderr: string;
  exitCode: number;
}

const knownInstallHints: Record<string, string> = {
  ffmpeg: "apt-get install ffmpeg",
  ffprobe: "apt-get install ffmpeg",
};

// ffmpeg's log for a damaged file can grow without bound; the tail is what explains a failure.
const maxStderrBytes = 32 * 1024 * 1024;

// ffmpeg ends most failures with a generic line; the line before it says what went wrong.
const genericFailureLine = /^(Conversion failed!?|Exiting normally.*)$/;

/** The last stderr line that says something, for error messages. */
export function lastMeaningfulLine(stderr: string): string {
  const lines = stderr
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "" && !genericFailureLine.test(line));
  return lines.at(-1) ?? "";
}

// Module state is per thread: a server's ingest thread lowers its programs' priority, its question threads do not.
let childNiceness = 0;

/**
 * Programs started from this thread from now on run at this niceness (0 normal, up to 19 lowest): background ingest
 * yields the cores to the programs answering questions.
 */
export function setChildProcessNiceness(niceness: number): void {
  childNiceness = clampNiceness(niceness);
}

const clampNiceness = (niceness: number): number => Math.max(0, Math.min(19, Math.round(niceness)));

/** The niceness of the work under way, where `withChildProcessNiceness` lowered it (carried across awaits). */
const loweredNiceness = new AsyncLocalStorage<number>();

/**
 * Runs `work` with every program it starts, and every program started by what it awaits, at this niceness or the
 * thread's, whichever is lower priority: background extraction yields the cores to a question's extraction, even one
 * running on another thread or in another process, while the thread's own questions keep normal priority.
 */
export function withChildProcessNiceness<T>(niceness: number, work: () => Promise<T>): Promise<T> {
  return loweredNiceness.run(Math.max(loweredNiceness.getStore() ?? 0, clampNiceness(niceness)), work);
}

let deathSignalLauncher: string | null | undefined;

/** util-linux's `setpriv`, when it can give a child a parent-death signal (Linux, util-linux ≥ 2.33); else null. */
function launcherWithDeathSignal(): string | null {
  if (deathSignalLauncher !== undefined) return deathSignalLauncher;
  deathSignalLauncher = null;
  if (process.platform !== "linux") return deathSignalLauncher;
  const setpriv = findProgram("setpriv");
  if (setpriv && spawnSync(setpriv, ["--pdeathsig", "SIGKILL", "--", "true"], { stdio: "ignore" }).status === 0) deathSignalLauncher = setpriv;
  return deathSignalLauncher;
}

// Programs found, by PATH and name: ffmpeg is started many times a video, and PATH rarely changes. A program not found
// is looked for again next time (it may have been installed meanwhile).
const foundPrograms = new Map<string, string>();

/** The absolute path of `program` on PATH (or as given, when it names a path), if it is there and executable. */
function findProgram(program: string): string | undefined {
  const cacheKey = `${process.env.PATH ?? ""}\0${program}`;
  const cached = foundPrograms.get(cacheKey);
  if (cached !== undefined) return cached;
  const candidates = program.includes("/") ? [program] : (process.env.PATH ?? "").split(delimiter).filter(Boolean).map((dir) => join(dir, program));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      foundPrograms.set(cacheKey, candidate);
      return candidate;
    } catch {
      // Not here: the next folder on PATH.
    }
  }
  return undefined;
}

/**
 * Starts a program that dies with this process. On Linux it starts through `setpriv --pdeathsig SIGKILL`, which
 * asks the kernel to kill it when the thread that started it ends, so even a SIGKILL of videorag, which no handler
 * sees, leaves no ffmpeg, tesseract or pocketsphinx running on its own. setpriv execs the program in place: the pid,
 * the pipes and a kill are the program's own. A program that is not installed fails with ENOENT, as a plain spawn does.
 */
export function spawnTied(program: string, args: string[], options: SpawnOptionsWithoutStdio): ChildProcessWithoutNullStreams;
export function spawnTied(
  program: string,
  args: string[],
  options: SpawnOptionsWithStdioTuple<StdioNull, StdioPipe, StdioPipe>,
): ChildProcessByStdio<null, Readable, Readable>;
export function spawnTied(program: string, args: string[], options: SpawnOptions): ChildProcess;
export function spawnTied(program: string, args: string[], options: SpawnOptions): ChildProcess {
  const launcher = launcherWithDeathSignal();
  const resolved = launcher ? findProgram(program) : undefined;
  const child = !launcher || !resolved ? spawn(program, args, options) : spawn(launcher, ["--pdeathsig", "SIGKILL", "--", resolved, ...args], options);
  // The thread's niceness, or the lower priority of the work under way (see withChildProcessNiceness).
  const niceness = Math.max(childNiceness, loweredNiceness.getStore() ?? 0);
  if (niceness !== 0 && child.pid !== undefined) {
    try {
      setPriority(child.pid, niceness);
    } catch {
      // Not permitted here: the program runs at normal priority.
    }
  }
  return child;
}

/** Runs `program` with `args` (no shell) and resolves with its output when it exits with 0. */
export function runProcess(program: string, args: string[], options: RunProcessOptions = {}): Promise<ProcessResult> {
  const { signal } = options;
  if (signal?.aborted) return Promise.reject(interrupted(program, signal));

  return new Promise<ProcessResult>((resolve, reject) => {
    const child = spawnTied(program, args, {
      cwd: options.cwd,
      env: options.env ? { ...process.env, ...options.env } : process.env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const stdoutChunks: Buffer[] = [];
    const stderrChunks: Buffer[] = [];
    let stderrBytes = 0;
    let settled = false;
    let timer: NodeJS.Timeout | undefined;

    const settle = (error: VideoRagError | undefined, result?: ProcessResult): void => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      if (error) reject(error);
      else if (result) resolve(result);
    };
    const kill = (): void => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    };
    const onAbort = (): void => {
      kill();
      settle(interrupted(program, signal));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    if (options.timeoutMs !== undefined) {
      timer = setTimeout(() => {
        kill();
        const seconds = Math.round((options.timeoutMs ?? 0) / 100) / 10;
        settle(new VideoRagError("TOOL_FAILED", `${program} took longer than ${seconds} s and was stopped`, { retryable: true }));
      }, options.timeoutMs);
    }

    child.stdout.on("data", (chunk: Buffer) => {
      if (options.onStdout) {
        try {
          options.onStdout(chunk);
        } catch (error) {
          kill();
          settle(toFailure(program, error));
        }
      } else {
        stdoutChunks.push(chunk);
      }
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderrChunks.push(chunk);
      stderrBytes += chunk.length;
      while (stderrBytes > maxStderrBytes && stderrChunks.length > 1) stderrBytes -= stderrChunks.shift()?.length ?? 0;
    });
    // A program that exits before reading all its input closes the pipe; its exit status tells what happened.
    child.stdin.on("error", () => undefined);
    child.stdin.end(options.input);

    child.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") {
        const hint = options.installHint ?? knownInstallHints[program];
        settle(new VideoRagError("TOOL_MISSING", `${program} is not installed${hint ? ` (${hint})` : ""}`, { cause: error }));
      } else {
        settle(new VideoRagError("TOOL_FAILED", `${program} could not be started: ${error.message}`, { cause: error }));
      }
    });
    child.on("close", (code, killedBy) => {
      const stderr = Buffer.concat(stderrChunks).toString("utf8");
      const exitCode = code ?? -1;
      if (exitCode === 0 || options.allowFailure) {
        settle(undefined, { stdout: Buffer.concat(stdoutChunks), stderr, exitCode });
        return;
      }
      const why = lastMeaningfulLine(stderr) || (killedBy ? `killed by ${killedBy}` : `exit status ${exitCode}`);
      settle(new VideoRagError("TOOL_FAILED", `${program} failed: ${why}`));
    });
  });
}

function interrupted(program: string, signal: AbortSignal | undefined): VideoRagError {
  return new VideoRagError("INTERRUPTED", `${program} was stopped: the work was cancelled`, { cause: signal?.reason });
}

function toFailure(program: string, error: unknown): VideoRagError {
  if (VideoRagError.isInstance(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new VideoRagError("TOOL_FAILED", `reading the output of ${program} failed: ${message}`, { cause: error });
}
