// Turns what the user named (files, folders, simple globs) into the list of files to ingest.

import { readdir, stat } from "node:fs/promises";
import { basename, dirname, extname, join, resolve } from "node:path";
import { realPathWithin } from "../media/index.js";

const mediaExtensions = new Set([
  ".mp4", ".m4v", ".mkv", ".webm", ".mov", ".avi", ".mpg", ".mpeg", ".wmv", ".flv", ".ts", ".mts", ".m2ts", ".ogv", ".3gp",
  ".wav", ".mp3", ".m4a", ".flac", ".ogg", ".opus", ".aac",
]);
/** Files that travel with videos and are read with them, so a folder listing them is not an error. */
const companionExtensions = new Set([".srt", ".vtt", ".ass", ".ssa", ".sub", ".idx", ".sup", ".nfo", ".align"]);

export function isMediaPath(path: string): boolean {
  return mediaExtensions.has(extname(path).toLowerCase());
}

export interface ExpandedInput {
  path: string;
  /** Why the file is not ingested (found in a folder but not a media file). */
  skip?: string;
}

function globToRegExp(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*").replace(/\?/g, "[^/]");
  return new RegExp(`^${escaped}$`);
}

async function walk(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.startsWith(".")) continue;
    const path = join(directory, entry.name);
    if (entry.isDirectory()) files.push(...(await walk(path)));
    else files.push(path);
  }
  return files;
}

/**
 * Files named directly are always tried (a text file named .mp4 should fail loudly); inside folders only media
 * files are taken, and other files are reported as skipped. Missing paths are kept so the caller reports them.
 */
export async function expandInputs(inputs: string[], options: { confineTo?: string[] } = {}): Promise<ExpandedInput[]> {
  const expanded: ExpandedInput[] = [];
  const seen = new Set<string>();
  const push = (item: ExpandedInput): void => {
    if (seen.has(item.path)) return;
    seen.add(item.path);
    expanded.push(item);
  };
  const roots = options.confineTo;
  // Confined, a file is read by its real path, and only when that lies inside a root: a symbolic link found while
  // walking a folder cannot lead out of it.
  const add = async (item: ExpandedInput): Promise<void> => {
    if (!roots || item.skip) return push(item);
    const real = await realPathWithin(item.path, roots);
    if (real === undefined) return push(item);
    if (real === "outside") return push({ path: item.path, skip: "outside the media roots (after symbolic links)" });
    push({ path: real });
  };
  for (const input of inputs) {
    const absolute = resolve(input);
    if (/[*?]/.test(basename(absolute)) && !/[*?]/.test(dirname(absolute))) {
      const matcher = globToRegExp(basename(absolute));
      const names = await readdir(dirname(absolute)).catch(() => [] as string[]);
      for (const name of names.filter((candidate) => matcher.test(candidate)).sort()) await add({ path: join(dirname(absolute), name) });
      continue;
    }
    const info = await stat(absolute).catch(() => undefined);
    if (info?.isDirectory()) {
      for (const file of await walk(absolute)) {
        const extension = extname(file).toLowerCase();
        if (isMediaPath(file)) await add({ path: file });
        else if (!companionExtensions.has(extension)) await add({ path: file, skip: "not a video or audio file" });
      }
    } else {
      await add({ path: absolute });
    }
  }
  return expanded;
}

