// Cache keys for model outputs: sha256 over a stable serialisation of model id, kind and input, so equal inputs give
// equal keys whatever their key order, and bytes (images, audio) are hashed as bytes instead of expanded as JSON.

import { createHash, type Hash } from "node:crypto";
import { createReadStream } from "node:fs";
import { VideoRagError } from "../../spec/index.js";

/** The cache key of one model output: sha256 hex of model id, kind (the method called) and input with its options. */
export function cacheKey(modelId: string, kind: string, input: unknown): string {
  const hash = createHash("sha256");
  feed(hash, [modelId, kind, input]);
  return hash.digest("hex");
}

// Every value is written with a type tag and, where it has one, a length, so two different inputs cannot serialise to
// the same stream (["ab"] vs ["a", "b"]).
function feed(hash: Hash, value: unknown): void {
  if (value === null) hash.update("n");
  else if (value === undefined) hash.update("u");
  else if (typeof value === "string") hash.update(`s${Buffer.byteLength(value)}:`).update(value);
  else if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") {
    hash.update(`${typeof value}:${String(value)};`);
  } else if (ArrayBuffer.isView(value)) {
    // Buffers, Uint8Arrays and other typed arrays alike: their bytes are the content.
    hash.update(`y${value.byteLength}:`).update(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
  } else if (Array.isArray(value)) {
    hash.update(`a${value.length}:`);
    for (const item of value) feed(hash, item);
  } else if (typeof value === "object") {
    // Absent and undefined properties mean the same option, so both leave the key unchanged.
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    hash.update(`o${entries.length}:`);
    for (const [name, item] of entries) {
      feed(hash, name);
      feed(hash, item);
    }
  } else {
    throw new TypeError(`cacheKey cannot hash a ${typeof value}`);
  }
}

/** sha256 hex of a file's bytes, read as a stream so long audio is never held in memory. */
export async function hashFile(path: string): Promise<string> {
  const hash = createHash("sha256");
  try {
    for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  } catch (error) {
    throw new VideoRagError("INPUT_NOT_FOUND", `cannot read ${path}`, { subject: path, cause: error });
  }
  return hash.digest("hex");
}
