// Receives a multipart upload straight to disk (never whole in memory), with a size limit over all its files and
// names that cannot leave the folder they are written to.

import { createWriteStream, mkdirSync, rmSync, type WriteStream } from "node:fs";
import { basename, join } from "node:path";
import busboy from "busboy";
import { VideoRagError } from "../spec/index.js";
import { formatBytes } from "./security-rules.js";

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

/**
 * Writes every file part of a multipart/form-data body into `dir`; on any failure (a broken body, a client that goes
 * away, a bad part header, the limit) the files are closed, the folder is removed and one VideoRagError is thrown.
 */
export async function receiveUpload(request: Request, dir: string, limitBytes: number): Promise<ReceivedUpload> {
  const contentType = request.headers.get("content-type") ?? "";
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > limitBytes) throw tooLarge(limitBytes);
  if (!request.body) throw new VideoRagError("ARGUMENT_INVALID", "the upload has no body");
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { "content-type": contentType },
      limits: { fileSize: limitBytes, files: 50, fields: 20, parts: 70, fieldSize: 64 * 1024, headerPairs: 20 },
      defParamCharset: "utf8",
    });
  } catch (error) {
    throw new VideoRagError("ARGUMENT_INVALID", "the upload is not multipart/form-data with a boundary", { cause: error });
  }
  mkdirSync(dir, { recursive: true });
  const files: ReceivedUpload["files"] = [];
  const fields: Record<string, string> = {};
  const open = new Set<WriteStream>();
  const writes: Promise<void>[] = [];
  const used = new Set<string>();
  let totalBytes = 0;
  let failure: VideoRagError | undefined;
  const fail = (error: VideoRagError): void => {
    failure ??= error;
  };

  // Every event the parser can end with settles this one promise, which is awaited on every path (an unawaited
  // rejection here once ended the whole server).
  const parsed = new Promise<void>((resolve) => {
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
      open.add(file);
      // Written by hand rather than piped: past the limit the rest of the part is read and dropped, so the parser
      // reaches the end of the body and the client gets its 413 instead of a stalled upload.
      writes.push(
        new Promise<void>((done) => {
          file.on("error", (error) => {
            fail(new VideoRagError("STORE_FAILED", `cannot write ${name}`, { cause: error }));
            stream.resume();
          });
          file.on("close", () => {
            open.delete(file);
            done();
          });
          stream.on("data", (chunk: Buffer) => {
            entry.sizeBytes += chunk.length;
            totalBytes += chunk.length;
            if (totalBytes > limitBytes) fail(tooLarge(limitBytes));
            if (failure) return;
            if (!file.write(chunk)) {
              stream.pause();
              file.once("drain", () => stream.resume());
            }
          });
          stream.on("limit", () => fail(tooLarge(limitBytes)));
          stream.on("end", () => file.end());
          stream.on("error", (error) => {
            fail(new VideoRagError("ARGUMENT_INVALID", `the upload broke off: ${error.message}`, { cause: error }));
            file.end();
          });
        }),
      );
    });
    parser.on("partsLimit", () => fail(new VideoRagError("ARGUMENT_INVALID", "the upload has too many parts")));
    parser.on("filesLimit", () => fail(new VideoRagError("ARGUMENT_INVALID", "the upload has more than 50 files")));
    parser.on("fieldsLimit", () => fail(new VideoRagError("ARGUMENT_INVALID", "the upload has more than 20 fields")));
    parser.on("close", () => resolve());
    parser.on("error", (error: Error) => {
      fail(new VideoRagError("ARGUMENT_INVALID", `the upload could not be read: ${error.message}`, { cause: error }));
      resolve();
    });
  });

  // Read by hand, not piped: a pipeline that fails cancels the body, which destroys the socket before the client
  // gets its 400 or 413. Left unread, the rest of a failed body is discarded by the HTTP server after the answer.
  // The raw bytes are counted too: part headers and a preamble are not file bytes, but they are bytes to read.
  const reader = request.body.getReader();
  let rawBytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rawBytes += value.length;
      if (rawBytes > limitBytes + rawOverheadBytes) fail(tooLarge(limitBytes));
      if (failure) break;
      if (!parser.write(value)) await drainedOrDone(parser);
    }
    if (!failure) parser.end();
  } catch (error) {
    // The client went away mid-body.
    fail(new VideoRagError("ARGUMENT_INVALID", `the upload broke off: ${error instanceof Error ? error.message : String(error)}`, { cause: error }));
  } finally {
    reader.releaseLock();
  }
  if (failure) parser.destroy();
  // A parser torn down by a broken body may never close: the pipeline's end is the last word then.
  if (!failure) await parsed;
  if (!failure) await Promise.all(writes);
  if (!failure && files.length === 0) fail(new VideoRagError("ARGUMENT_INVALID", "the upload holds no file (send them in fields named file)"));
  if (failure) {
    await Promise.all([...open].map((file) => new Promise<void>((closed) => file.destroy().once("close", () => closed()))));
    rmSync(dir, { recursive: true, force: true });
    throw failure;
  }
  return { files, fields };
}

/** Resolves when the parser takes more input, or will never again (it failed or closed). */
function drainedOrDone(parser: busboy.Busboy): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      parser.off("drain", done);
      parser.off("error", done);
      parser.off("close", done);
      resolve();
    };
    parser.on("drain", done);
    parser.on("error", done);
    parser.on("close", done);
  });
}

/** Room for part headers, fields and boundaries beyond the files' own bytes. */
const rawOverheadBytes = 2 ** 20;

function tooLarge(limitBytes: number): VideoRagError {
  return new VideoRagError("BODY_TOO_LARGE", `the upload is larger than the server's limit of ${formatBytes(limitBytes)}`);
}
