// Receives a multipart upload straight to disk (never whole in memory), with a size limit over all its files and
// names that cannot leave the folder they are written to.

import { createWriteStream, mkdirSync, rmSync } from "node:fs";
import { basename, join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import busboy from "busboy";
import { VideoRagError } from "../spec/index.js";

export interface ReceivedUpload {
  files: { name: string; path: string; sizeBytes: number }[];
  fields: Record<string, string>;
}

/**
 * A file name safe to write inside a folder: the last path component only, no control characters, no leading dots
 * (so no `..`, no hidden files), at most 200 characters; "upload" when nothing is left.
 */
export function safeFileName(name: string): string {
  const last = basename(name.replaceAll("\\", "/"));
  const cleaned = [...last]
    .map((character) => (character.charCodeAt(0) < 32 || character.charCodeAt(0) === 127 || '/:*?"<>|'.includes(character) ? "_" : character))
    .join("")
    .replace(/^[.\s]+/, "")
    .trim()
    .slice(-200);
  return cleaned || "upload";
}

/** Writes every file part of a multipart/form-data body into `dir`; on any failure the folder is removed. */
export async function receiveUpload(request: Request, dir: string, limitBytes: number): Promise<ReceivedUpload> {
  const contentType = request.headers.get("content-type") ?? "";
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > limitBytes) throw tooLarge(limitBytes);
  if (!request.body) throw new VideoRagError("ARGUMENT_INVALID", "the upload has no body");
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: { "content-type": contentType }, limits: { fileSize: limitBytes, files: 50, fields: 20 }, defParamCharset: "utf8" });
  } catch (error) {
    throw new VideoRagError("ARGUMENT_INVALID", "the upload is not multipart/form-data", { cause: error });
  }
  mkdirSync(dir, { recursive: true });
  const files: ReceivedUpload["files"] = [];
  const fields: Record<string, string> = {};
  const writes: Promise<void>[] = [];
  const used = new Set<string>();
  let totalBytes = 0;
  let failure: VideoRagError | undefined;

  const finished = new Promise<void>((resolve, reject) => {
    parser.on("field", (name, value) => {
      fields[name] = value;
    });
    parser.on("file", (_field, stream, info) => {
      let name = safeFileName(info.filename ?? "upload");
      // Two parts with one name keep both: the second gets a number before its extension.
      for (let copy = 2; used.has(name); copy++) name = name.replace(/(\.[^.]*)?$/, (extension) => `-${copy}${extension}`);
      used.add(name);
      const path = join(dir, name);
      const entry = { name, path, sizeBytes: 0 };
      files.push(entry);
      const file = createWriteStream(path);
      // Written by hand rather than piped: past the limit the rest of the part is read and dropped, so the parser
      // reaches the end of the body and the client gets its 413 instead of a stalled upload.
      writes.push(
        new Promise<void>((done) => {
          file.on("error", (error) => {
            failure ??= new VideoRagError("STORE_FAILED", `cannot write ${name}`, { cause: error });
            stream.resume();
          });
          file.on("close", () => done());
          stream.on("data", (chunk: Buffer) => {
            entry.sizeBytes += chunk.length;
            totalBytes += chunk.length;
            if (totalBytes > limitBytes) failure ??= tooLarge(limitBytes);
            if (failure) return;
            if (!file.write(chunk)) {
              stream.pause();
              file.once("drain", () => stream.resume());
            }
          });
          stream.on("limit", () => {
            failure ??= tooLarge(limitBytes);
          });
          stream.on("end", () => file.end());
          stream.on("error", (error) => {
            failure ??= new VideoRagError("ARGUMENT_INVALID", `the upload broke off: ${error.message}`, { cause: error });
            file.end();
          });
        }),
      );
    });
    parser.on("close", resolve);
    parser.on("error", reject);
  });

  try {
    await pipeline(Readable.fromWeb(request.body as import("node:stream/web").ReadableStream), parser);
    await finished;
    await Promise.all(writes);
  } catch (error) {
    failure ??= new VideoRagError("ARGUMENT_INVALID", `the upload could not be read: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  if (!failure && files.length === 0) failure = new VideoRagError("ARGUMENT_INVALID", "the upload holds no file (send them in fields named file)");
  if (failure) {
    rmSync(dir, { recursive: true, force: true });
    throw failure;
  }
  return { files, fields };
}

function tooLarge(limitBytes: number): VideoRagError {
  return new VideoRagError("BODY_TOO_LARGE", `the upload is larger than the server's limit of ${formatBytes(limitBytes)}`);
}

export function formatBytes(bytes: number): string {
  if (bytes >= 2 ** 30) return `${Number((bytes / 2 ** 30).toFixed(1))} GiB`;
  if (bytes >= 2 ** 20) return `${Number((bytes / 2 ** 20).toFixed(1))} MiB`;
  return `${bytes} bytes`;
}
