// Downloads manifest models into the models folder. Each file streams into a temporary file beside its final name, is
// checked against its pinned size and sha256, and only then renamed into place: an interrupted or corrupt download never
// leaves a file under the name the engine loads.

import { createHash, randomUUID } from "node:crypto";
import { mkdir, open, readFile, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { VideoRagError } from "../../spec/errors.js";
import { findModel, modelManifest, type ModelEntry, type ModelFile } from "./manifest.js";
import { checkFile, modelFilePath, type ManifestOption } from "./verify-models.js";

export interface PullOptions extends ManifestOption {
  /** Called as bytes arrive; `totalBytes` is undefined when neither the manifest nor the server says. */
  onProgress?: (file: string, doneBytes: number, totalBytes: number | undefined) => void;
  signal?: AbortSignal;
  /** Give up when no data arrives for this long; default 30 s. */
  stallTimeoutMs?: number;
  /** The fetch to use; defaults to the global one. */
  fetch?: typeof globalThis.fetch;
}

/** What happened to one file: fetched now, or already present and intact. */
export interface PulledFile {
  path: string;
  absolutePath: string;
  status: "downloaded" | "present";
}

export interface PullResult {
  name: string;
  files: PulledFile[];
}

/**
 * Makes the named models present in `dir`. Files already there and intact are kept; others are downloaded. Throws
 * MODEL_UNAVAILABLE (naming the folder to fill by hand and the fallback) when a file cannot be fetched or fails its check,
 * INTERRUPTED when `signal` aborts, ARGUMENT_INVALID for an unknown name.
 */
export async function pullModels(dir: string, names: readonly string[], options: PullOptions = {}): Promise<PullResult[]> {
  const manifest = options.manifest ?? modelManifest;
  const models = names.map((name) => findModel(name, manifest));
  const results: PullResult[] = [];
  for (const model of models) {
    const files: PulledFile[] = [];
    for (const file of model.files) {
      const check = await checkFile(dir, file, options.signal);
      if (check.status === "ok" || check.status === "unpinned") {
        files.push({ path: file.path, absolutePath: check.absolutePath, status: "present" });
        continue;
      }
      await downloadFile(dir, model, file, options);
      files.push({ path: file.path, absolutePath: check.absolutePath, status: "downloaded" });
    }
    results.push({ name: model.name, files });
  }
  return results;
}

async function downloadFile(dir: string, model: ModelEntry, file: ModelFile, options: PullOptions): Promise<void> {
  const { signal, onProgress } = options;
  const fetchFile = options.fetch ?? globalThis.fetch;
  const target = modelFilePath(dir, file);
  requireSecureUrl(dir, model, file);
  await mkdir(dirname(target), { recursive: true });
  // Same folder as the target, so the final rename is atomic; a leading dot keeps it out of casual listings.
  const temporary = join(dirname(target), `.${basename(target)}.${process.pid}.${randomUUID().slice(0, 8)}.part`);
  // A server that goes quiet (a firewall that drops packets, a stalled mirror) fails the download instead of hanging it.
  const stall = new AbortController();
  let stallTimer: NodeJS.Timeout | undefined;
  const stallTimeoutMs = options.stallTimeoutMs ?? 30_000;
  const armStall = (): void => {
    clearTimeout(stallTimer);
    stallTimer = setTimeout(() => stall.abort(new Error(`no data for ${stallTimeoutMs / 1000} s`)), stallTimeoutMs);
  };
  const requestSignal = signal ? AbortSignal.any([signal, stall.signal]) : stall.signal;
  try {
    let response: Response;
    try {
      armStall();
      response = await fetchFile(file.url, { signal: requestSignal, redirect: "follow" });
    } catch (error) {
      if (signal?.aborted) throw interrupted(model, signal);
      throw unavailable(dir, model, `cannot reach ${file.url} (${describe(stall.signal.aborted ? stall.signal.reason : error)})`, error);
    }
    if (!response.ok || !response.body) {
      await response.body?.cancel().catch(() => undefined);
      throw unavailable(dir, model, `${file.url} answered HTTP ${response.status}`, undefined, response.status >= 500);
    }
    const announced = Number(response.headers.get("content-length"));
    const totalBytes = file.convert === undefined && file.sizeBytes !== null ? file.sizeBytes : announced > 0 ? announced : undefined;

    const hash = createHash("sha256");
    let doneBytes = 0;
    const handle = await open(temporary, "w");
    try {
      onProgress?.(file.path, 0, totalBytes);
      for await (const chunk of response.body) {
        armStall();
        const bytes = chunk as Uint8Array;
        await handle.write(bytes);
        hash.update(bytes);
        doneBytes += bytes.length;
        onProgress?.(file.path, doneBytes, totalBytes);
      }
    } catch (error) {
      if (signal?.aborted) throw interrupted(model, signal);
      throw unavailable(dir, model, `the download of ${file.url} broke off after ${doneBytes} bytes (${describe(stall.signal.aborted ? stall.signal.reason : error)})`, error, true);
    } finally {
      await handle.close();
    }

    let sizeBytes = doneBytes;
    let sha256 = hash.digest("hex");
    if (file.convert === "imagenet-classes-js") {
      let converted: Buffer;
      try {
        converted = Buffer.from(imagenetClassesToLines(await readFile(temporary, "utf8")), "utf8");
      } catch (error) {
        throw unavailable(dir, model, `${file.url} is not the expected class list (${describe(error)})`, error);
      }
      await writeFile(temporary, converted);
      sizeBytes = converted.length;
      sha256 = createHash("sha256").update(converted).digest("hex");
    }
    if (file.sizeBytes !== null && sizeBytes !== file.sizeBytes) {
      throw unavailable(dir, model, `${file.url} gave ${sizeBytes} bytes for ${file.path}, expected ${file.sizeBytes}`);
    }
    if (file.sha256 !== null && sha256 !== file.sha256) {
      throw unavailable(dir, model, `${file.url} gave ${file.path} with sha256 ${sha256}, expected ${file.sha256}`);
    }
    await rename(temporary, target);
  } finally {
    clearTimeout(stallTimer);
    // After a successful rename there is nothing left to remove; after a failure this drops the partial file.
    await rm(temporary, { force: true });
  }
}

/**
 * The labels of @tensorflow-models/mobilenet's `imagenet_classes.js`, one a line in index order. The module is parsed as
 * text (never evaluated): each entry is `<index>: '<part>' + '<part>'`, with `\'` escapes.
 */
export function imagenetClassesToLines(source: string): string {
  const entry = /(\d+):\s*((?:'(?:[^'\\]|\\.)*'\s*\+?\s*)+)/g;
  const part = /'((?:[^'\\]|\\.)*)'/g;
  const labels: string[] = [];
  for (const match of source.matchAll(entry)) {
    const index = Number(match[1]);
    const text = [...(match[2] ?? "").matchAll(part)].map((piece) => (piece[1] ?? "").replace(/\\(.)/g, "$1")).join("");
    labels[index] = text;
  }
  if (labels.length === 0) throw new Error("no ImageNet class entries found");
  for (let index = 0; index < labels.length; index += 1) {
    if (!labels[index]) throw new Error(`ImageNet class ${index} is missing`);
  }
  return labels.map((label) => `${label}\n`).join("");
}

// Model files run as code in onnxruntime: fetch them over HTTPS only. Plain HTTP is allowed to this machine itself, which
// is where mirrors for air-gapped networks and tests live.
function requireSecureUrl(dir: string, model: ModelEntry, file: ModelFile): void {
  let url: URL;
  try {
    url = new URL(file.url);
  } catch (error) {
    throw unavailable(dir, model, `${file.url} is not a valid URL`, error);
  }
  const loopback = url.hostname === "127.0.0.1" || url.hostname === "localhost" || url.hostname === "[::1]";
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) {
    throw unavailable(dir, model, `${file.url} is not an HTTPS address`);
  }
}

function unavailable(dir: string, model: ModelEntry, reason: string, cause?: unknown, retryable = false): VideoRagError {
  const folder = resolve(dir);
  const message =
    `cannot download model "${model.name}": ${reason}. ` +
    `To install it without network, copy its files into ${folder} by hand (${model.files.map((file) => file.path).join(", ")}); they come from ${model.source}. ` +
    `Until then: ${model.fallback}.`;
  return new VideoRagError("MODEL_UNAVAILABLE", message, { subject: folder, cause, retryable });
}

function interrupted(model: ModelEntry, signal: AbortSignal): VideoRagError {
  return new VideoRagError("INTERRUPTED", `the download of model "${model.name}" was stopped`, { cause: signal.reason, subject: model.name });
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    // undici hides the useful part ("ECONNREFUSED", "ENOTFOUND") in `cause`.
    const cause = (error as Error & { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
  }
  return String(error);
}
