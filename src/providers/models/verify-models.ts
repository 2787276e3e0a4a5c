// What of the manifest is on disk: a quick listing (existence and size) and a full check (sha256 of every byte).

import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { VideoRagError } from "../../spec/errors.js";
import { findModel, modelManifest, type ModelEntry, type ModelFile, type ModelKind } from "./manifest.js";

/** Whether all, some or none of a model's files are in the folder. */
export type ModelStatus = "present" | "partial" | "missing";

/** One model as `videorag models list` shows it. */
export interface ModelListing {
  name: string;
  kind: ModelKind;
  status: ModelStatus;
  /** Bytes of the model's files found on disk. */
  sizeBytes: number;
  /** Bytes of all its files, when every size is pinned; otherwise null. */
  expectedSizeBytes: number | null;
  /** Manifest paths that are absent or of the wrong size. */
  missingFiles: string[];
  fallback: string;
}

/** The outcome of checking one file. "unpinned": present, but the manifest has no hash to check it against. */
export type FileCheckStatus = "ok" | "missing" | "size-mismatch" | "sha256-mismatch" | "unpinned";

export interface FileCheck {
  /** Manifest path, relative to the models folder. */
  path: string;
  absolutePath: string;
  status: FileCheckStatus;
  /** Size on disk; null when missing. */
  sizeBytes: number | null;
  expectedSizeBytes: number | null;
  /** sha256 of the file on disk; null when missing or when the size already failed. */
  sha256: string | null;
  expectedSha256: string | null;
  /** One line for people, e.g. "present, not pinned". */
  detail: string;
}

/** The check of one model. `ok` is true when no file is missing or damaged (unpinned files count as ok). */
export interface ModelVerification {
  name: string;
  kind: ModelKind;
  ok: boolean;
  files: FileCheck[];
}

export interface ManifestOption {
  /** The models to consider; defaults to the built-in manifest. Tests pass their own. */
  manifest?: readonly ModelEntry[];
}

/** Absolute path of a manifest file inside `dir`. */
export function modelFilePath(dir: string, file: ModelFile): string {
  return resolve(dir, ...file.path.split("/"));
}

/** Size of a regular file, or null when there is none. */
async function fileSize(path: string): Promise<number | null> {
  try {
    const info = await stat(path);
    return info.isFile() ? info.size : null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ENOTDIR") return null;
    throw new VideoRagError("INPUT_NOT_FOUND", `cannot read ${path}`, { cause: error, subject: path });
  }
}

/** Lowercase hex sha256 of a file, streamed so that large weights never sit in memory whole. */
export async function sha256File(path: string, signal?: AbortSignal): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path, { signal })) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** Every manifest model with what of it is in `dir`, judged by existence and pinned sizes. */
export async function listModels(dir: string, options: ManifestOption = {}): Promise<ModelListing[]> {
  const manifest = options.manifest ?? modelManifest;
  return Promise.all(
    manifest.map(async (model) => {
      let sizeBytes = 0;
      const missingFiles: string[] = [];
      for (const file of model.files) {
        const size = await fileSize(modelFilePath(dir, file));
        if (size !== null) sizeBytes += size;
        if (size === null || (file.sizeBytes !== null && size !== file.sizeBytes)) missingFiles.push(file.path);
      }
      const status: ModelStatus =
        missingFiles.length === 0 ? "present" : missingFiles.length === model.files.length ? "missing" : "partial";
      const pinned = model.files.every((file) => file.sizeBytes !== null);
      const expectedSizeBytes = pinned ? model.files.reduce((sum, file) => sum + (file.sizeBytes ?? 0), 0) : null;
      return { name: model.name, kind: model.kind, status, sizeBytes, expectedSizeBytes, missingFiles, fallback: model.fallback };
    }),
  );
}

/** Checks size and sha256 of every file of the named models (all models when `names` is omitted). */
export async function verifyModels(
  dir: string,
  names?: readonly string[],
  options: ManifestOption & { signal?: AbortSignal } = {},
): Promise<ModelVerification[]> {
  const manifest = options.manifest ?? modelManifest;
  const models = names ? names.map((name) => findModel(name, manifest)) : manifest;
  const results: ModelVerification[] = [];
  for (const model of models) {
    const files: FileCheck[] = [];
    for (const file of model.files) files.push(await checkFile(dir, file, options.signal));
    const ok = files.every((check) => check.status === "ok" || check.status === "unpinned");
    results.push({ name: model.name, kind: model.kind, ok, files });
  }
  return results;
}

/** Full check of one file. Exported for the downloader, which re-checks files it finds already present. */
export async function checkFile(dir: string, file: ModelFile, signal?: AbortSignal): Promise<FileCheck> {
  const absolutePath = modelFilePath(dir, file);
  const base = { path: file.path, absolutePath, expectedSizeBytes: file.sizeBytes, expectedSha256: file.sha256 };
  const sizeBytes = await fileSize(absolutePath);
  if (sizeBytes === null) return { ...base, status: "missing", sizeBytes, sha256: null, detail: "missing" };
  if (file.sizeBytes !== null && sizeBytes !== file.sizeBytes) {
    const detail = `size ${sizeBytes} bytes, expected ${file.sizeBytes}`;
    return { ...base, status: "size-mismatch", sizeBytes, sha256: null, detail };
  }
  const sha256 = await sha256File(absolutePath, signal);
  if (file.sha256 === null) return { ...base, status: "unpinned", sizeBytes, sha256, detail: "present, not pinned" };
  if (sha256 !== file.sha256) {
    const detail = `sha256 ${sha256}, expected ${file.sha256}`;
    return { ...base, status: "sha256-mismatch", sizeBytes, sha256, detail };
  }
  return { ...base, status: "ok", sizeBytes, sha256, detail: "ok" };
}
