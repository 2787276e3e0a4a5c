// The one place that turns "a model's files are not here" into a message a user can act on: which folder, which files,
// the command that fetches them, and what the engine does meanwhile.

import { statSync } from "node:fs";
import { resolve } from "node:path";
import { VideoRagError } from "../../spec/errors.js";
import { findModel, type ModelEntry, type ModelFile } from "./manifest.js";
import { modelFilePath, type ManifestOption } from "./verify-models.js";

/**
 * Absolute paths of the named model's files in `dir`, in manifest order (for the ONNX models: the weights, then the
 * labels). Throws MODEL_NOT_FOUND naming the folder, the missing files, `videorag models pull <name>` and the fallback
 * when any file is absent or has the wrong size, and ARGUMENT_INVALID for a name the manifest does not know.
 * Synchronous and cheap (one stat a file, no hashing: `verifyModels` hashes, on demand), so provider choice can call it.
 */
export function requireModel(dir: string, name: string, options: ManifestOption = {}): string[] {
  const model = findModel(name, options.manifest);
  const missing = missingModelFiles(dir, model);
  if (missing.length > 0) throw modelNotFound(model, dir, missing);
  return model.files.map((file) => modelFilePath(dir, file));
}

/** Manifest paths of the model's files that are absent from `dir` or have the wrong size; empty when all look present. */
export function missingModelFiles(dir: string, model: ModelEntry): string[] {
  return model.files.filter((file) => !looksPresent(dir, file)).map((file) => file.path);
}

/**
 * MODEL_NOT_FOUND for a model whose files (`missing`, manifest paths) are not in `dir`. `reason` says why they could not
 * be fetched either, e.g. "downloading it failed (fetch failed)".
 */
export function modelNotFound(
  model: ModelEntry,
  dir: string,
  missing: readonly string[],
  options: { reason?: string; cause?: unknown } = {},
): VideoRagError {
  const files = missing.length === model.files.length ? "none of its files are there" : `missing ${missing.join(", ")}`;
  const reason = options.reason ? `, and ${options.reason}` : "";
  const message =
    `model "${model.name}" (${model.kind}) is not in ${resolve(dir)}: ${files}${reason}. ` +
    `Run \`videorag models pull ${model.name}\`, or copy its files into that folder by hand; they come from ${model.source}. ` +
    `Until then: ${model.fallback}.`;
  return new VideoRagError("MODEL_NOT_FOUND", message, { subject: model.name, cause: options.cause });
}

function looksPresent(dir: string, file: ModelFile): boolean {
  const info = statSync(modelFilePath(dir, file), { throwIfNoEntry: false });
  return info !== undefined && info.isFile() && (file.sizeBytes === null || info.size === file.sizeBytes);
}
