// Loading Hugging Face models through transformers.js, shared by the CLIP, sentence and Whisper providers: files come from
// the models folder when present, are downloaded into that same folder (same layout) when allowed, and a model that is
// neither there nor downloadable becomes the MODEL_NOT_FOUND message `requireModel` gives.

import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { PretrainedModelOptions, ProgressInfo, Tensor } from "@huggingface/transformers";
import { VideoRagError } from "../../spec/errors.js";
import { findManifestModel, missingModelFiles, modelNotFound, modelsDir } from "../models/index.js";

type Transformers = typeof import("@huggingface/transformers");

/** Options every transformers.js provider takes. */
export interface TransformersProviderOptions {
  /** Hugging Face model id, e.g. "Xenova/clip-vit-base-patch32". */
  model?: string;
  /** The models folder; defaults to `modelsDir()` (VIDEORAG_MODELS_DIR, else ~/.cache/videorag/models). */
  modelsDir?: string;
  /** Fetch missing files from huggingface.co into the models folder. Default true; false never touches the network. */
  allowDownload?: boolean;
  /** Download progress per file; `file` is the path inside the models folder. */
  onProgress?: (file: string, doneBytes: number, totalBytes: number | undefined) => void;
}

/** Where and how one model loads; fixed when a provider is created, used on its first call. */
export interface ModelSource {
  model: string;
  dir: string;
  allowDownload: boolean;
  onProgress?: TransformersProviderOptions["onProgress"];
}

/** Resolves the options without touching the disk or the network. */
export function modelSource(options: TransformersProviderOptions, defaultModel: string): ModelSource {
  return {
    model: options.model ?? defaultModel,
    dir: modelsDir({ modelsDir: options.modelsDir }),
    allowDownload: options.allowDownload ?? true,
    onProgress: options.onProgress,
  };
}

let library: Promise<Transformers> | undefined;

/** transformers.js, imported on first use: it pulls in onnxruntime and sharp, which most runs never need. */
function importTransformers(): Promise<Transformers> {
  library ??= import("@huggingface/transformers").catch((error: unknown) => {
    library = undefined;
    throw new VideoRagError("MODEL_UNAVAILABLE", `cannot load @huggingface/transformers: ${describe(error)}`, { cause: error });
  });
  return library;
}

/**
 * Runs `load` with transformers.js options that read `source.model` from the models folder, or download it there.
 * Throws MODEL_NOT_FOUND (folder, files, pull command, fallback) when the model is missing and cannot be downloaded, and
 * MODEL_FAILED when files are present but do not load.
 */
export async function loadPretrained<T>(
  source: ModelSource,
  load: (transformers: Transformers, options: PretrainedModelOptions) => Promise<T>,
): Promise<T> {
  const { model, dir, allowDownload, onProgress } = source;
  const present = isPresent(source);
  if (!present && !allowDownload) throw notFound(source, "downloads are turned off");
  const transformers = await importTransformers();
  // transformers.js reads the local folder from this global at every file lookup, and its tokenizer probe ignores
  // per-call options, so the folder has to be set here. Every provider of one engine uses the same folder.
  transformers.env.localModelPath = dir;
  const options: PretrainedModelOptions = {
    // Downloads land in the models folder in the layout `localModelPath` reads, so the next run finds them offline.
    cache_dir: dir,
    // The same effect as `env.allowRemoteModels = false`, but for this load only. (Missing with downloads off threw above.)
    local_files_only: present,
    // The int8 files: 4x smaller than fp32, and what the manifest lists.
    dtype: "q8",
    progress_callback: (info: ProgressInfo) => {
      if (info.status === "progress" && onProgress) onProgress(`${model}/${info.file}`, info.loaded, info.total || undefined);
    },
  };
  try {
    return await load(transformers, options);
  } catch (error) {
    if (VideoRagError.isInstance(error)) throw error;
    if (!isPresent(source)) throw notFound(source, `downloading it failed (${describe(error)})`, error);
    throw new VideoRagError(
      "MODEL_FAILED",
      `model "${model}" is in ${dir} but did not load (${describe(error)}); \`videorag models verify ${model}\` checks its files`,
      { cause: error, subject: model },
    );
  }
}

/** A loader that runs once, shares its promise between concurrent callers, and tries again after a failure. */
export function lazy<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= load().catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
}

/** The rows of a [rows × dimensions] float tensor, each scaled to unit length. */
export function unitRows(tensor: Tensor, expectedDimensions: number, model: string): Float32Array[] {
  const [rows = 0, dimensions = 0] = tensor.dims;
  if (tensor.dims.length !== 2 || dimensions !== expectedDimensions) {
    throw new VideoRagError(
      "MODEL_OUTPUT_INVALID",
      `model "${model}" gave vectors of shape [${tensor.dims.join(", ")}], expected [n, ${expectedDimensions}]; set \`dimensions\` to match the model`,
      { subject: model },
    );
  }
  const data = tensor.data as Float32Array;
  const result: Float32Array[] = [];
  for (let row = 0; row < rows; row += 1) {
    const vector = Float32Array.from(data.subarray(row * dimensions, (row + 1) * dimensions));
    let sum = 0;
    for (const value of vector) sum += value * value;
    const norm = Math.sqrt(sum);
    if (norm > 0) for (let index = 0; index < vector.length; index += 1) vector[index] = (vector[index] ?? 0) / norm;
    result.push(vector);
  }
  return result;
}

export function throwIfAborted(signal: AbortSignal | undefined, what: string): void {
  if (signal?.aborted) throw new VideoRagError("INTERRUPTED", `${what} was stopped`, { cause: signal.reason });
}

// Manifest models are present when every listed file is; others when their folder has a config.json, the one file every
// transformers.js model has.
function isPresent({ model, dir }: ModelSource): boolean {
  const entry = findManifestModel(model);
  if (!entry) return existsSync(join(dir, ...model.split("/"), "config.json"));
  return missingModelFiles(dir, entry).length === 0;
}

function notFound({ model, dir }: ModelSource, reason: string, cause?: unknown): VideoRagError {
  const entry = findManifestModel(model);
  if (entry) return modelNotFound(entry, dir, missingModelFiles(dir, entry), { reason, cause });
  const folder = resolve(dir, ...model.split("/"));
  return new VideoRagError(
    "MODEL_NOT_FOUND",
    `model "${model}" is not in ${folder}, and ${reason}. Copy the model's files there by hand from https://huggingface.co/${model} ` +
      "(config.json, the tokenizer and preprocessor files, and onnx/*_quantized.onnx), or allow downloads.",
    { subject: model, cause },
  );
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
