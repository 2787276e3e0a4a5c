// Content-derived identity: the same bytes give the same id wherever the file lives or whatever it is called.

import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";

/** Full sha256 hex of a file, streamed so hours of video need no memory. */
export async function hashFile(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** The video id shown to users: a 16-hex prefix of the content hash (collisions need ~4 billion videos). */
export function videoIdFromHash(sha256: string): string {
  return sha256.slice(0, 16);
}
