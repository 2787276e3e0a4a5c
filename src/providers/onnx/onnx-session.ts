// onnxruntime for the local image models: loaded on first use (the package is optional at run time), one session per
// model file created once and shared by every call, and its failures mapped to VideoRagError codes.

import { readFileSync, statSync } from "node:fs";
import { basename } from "node:path";
import type * as Ort from "onnxruntime-node";
import { VideoRagError } from "../../spec/index.js";

export type OnnxRuntime = typeof Ort;
export type OnnxSession = Ort.InferenceSession;

export interface OnnxSessionOptions {
  /** Threads one inference may use. Default: onnxruntime's choice (one per physical core). */
  intraOpThreads?: number;
}

const installHint = "npm install onnxruntime-node";

let runtime: Promise<OnnxRuntime> | undefined;

/**
 * onnxruntime-node 1.30 ships telemetry code that writes `.ses` and `mat-debug-<pid>.log` into the temp folder of every
 * process that opens a session; videorag runs offline and leaves no file outside the library. The native library reads
 * the real environment: a worker thread's `process.env` is its own copy, so the CLI also sets this before any thread.
 */
export function disableOnnxTelemetry(): void {
  process.env.ORT_DISABLE_TELEMETRY ??= "1";
}

/** The onnxruntime-node module; fails with MODEL_UNAVAILABLE where it is not installed or its native part will not load. */
export function loadOnnxRuntime(): Promise<OnnxRuntime> {
  disableOnnxTelemetry();
  runtime ??= import("onnxruntime-node").catch((error: unknown) => {
    runtime = undefined;
    const why = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new VideoRagError("MODEL_UNAVAILABLE", `onnxruntime-node could not be loaded (${installHint}): ${why}`, { cause: error });
  });
  return runtime;
}

/**
 * Returns a function resolving to one session for `modelPath`, created on the first call. A failed creation is not
 * kept, so a model downloaded after the first failure is picked up.
 */
export function lazySession(modelPath: string, options: OnnxSessionOptions = {}): () => Promise<OnnxSession> {
  let session: Promise<OnnxSession> | undefined;
  return () => {
    session ??= createSession(modelPath, options).catch((error: unknown) => {
      session = undefined;
      throw error;
    });
    return session;
  };
}

async function createSession(modelPath: string, options: OnnxSessionOptions): Promise<OnnxSession> {
  assertModelFile(modelPath);
  const ort = await loadOnnxRuntime();
  try {
    return await ort.InferenceSession.create(modelPath, {
      graphOptimizationLevel: "all",
      executionMode: "sequential",
      // Idle pool threads otherwise spin waiting for work, on the cores ffmpeg decodes the next frames on and the
      // event loop prepares tensors on. scripts/bench-detect.ts on 2 cores: 34-38x real time spinning, 45-47x not;
      // with other processes busy on them, 18x against 29-44x.
      extra: { session: { intra_op: { allow_spinning: "0" } } },
      ...(options.intraOpThreads !== undefined ? { intraOpNumThreads: options.intraOpThreads } : {}),
    });
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new VideoRagError("MODEL_FAILED", `onnxruntime cannot load the model: ${why}`, { cause: error, subject: modelPath });
  }
}

/** Runs one inference, mapping onnxruntime's errors to MODEL_FAILED. */
export async function runSession(
  session: OnnxSession,
  feeds: Record<string, Ort.Tensor>,
  modelPath: string,
): Promise<Record<string, Ort.Tensor>> {
  try {
    return await session.run(feeds);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new VideoRagError("MODEL_FAILED", `inference failed: ${why}`, { cause: error, subject: modelPath });
  }
}

/** Class names, one a line, in the model's output order; a missing file fails with MODEL_NOT_FOUND. */
export function readLabelFile(labelsPath: string): string[] {
  let text: string;
  try {
    text = readFileSync(labelsPath, "utf8");
  } catch (error) {
    throw new VideoRagError("MODEL_NOT_FOUND", `the label file ${labelsPath} cannot be read`, { cause: error, subject: labelsPath });
  }
  const labels = text.split(/\r?\n/).map((line) => line.trim());
  while (labels.at(-1) === "") labels.pop();
  return labels;
}

/** Fails with MODEL_NOT_FOUND, naming the path, unless `modelPath` is a readable file. */
function assertModelFile(modelPath: string): void {
  let isFile = false;
  try {
    isFile = statSync(modelPath).isFile();
  } catch (error) {
    throw new VideoRagError("MODEL_NOT_FOUND", `the model file ${modelPath} does not exist`, { cause: error, subject: modelPath });
  }
  if (!isFile) throw new VideoRagError("MODEL_NOT_FOUND", `the model path ${modelPath} is not a file`, { subject: modelPath });
}

/** Fails with INTERRUPTED once `signal` is aborted; called between images. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new VideoRagError("INTERRUPTED", "the model call was cancelled", { cause: signal.reason });
}

/** A provider id from the model's file name: "yolox-nano" for ".../yolox_nano.onnx". */
export function modelId(modelPath: string): string {
  return basename(modelPath).replace(/\.onnx$/i, "").replace(/_/g, "-").toLowerCase();
}
