// How a file path is handed to ffmpeg and ffprobe.

import { resolve } from "node:path";

/**
 * The path as an explicit `file:` URL: ffmpeg reads "-x.mp4" as an option and "name:with:colons.mp4" as a protocol,
 * and the prefix stops both.
 */
export function ffmpegPath(path: string): string {
  return `file:${resolve(path)}`;
}
