// Path confinement: whether a path lies inside a folder, and the real (symbolic-link-free) path of a file only when
// it does. The server's media roots and the files ingest finds through them are checked with these.

import { realpath } from "node:fs/promises";
import { isAbsolute, relative } from "node:path";

/** True when `path` is `root` or lies below it (both absolute, compared as given). */
export function isInside(path: string, root: string): boolean {
  const within = relative(root, path);
  return within === "" || (!within.startsWith("..") && !isAbsolute(within));
}

/**
 * The real path of `path` when it resolves, after every symbolic link, inside one of `roots` (real paths themselves);
 * "outside" when it resolves elsewhere; undefined when it does not exist.
 */
export async function realPathWithin(path: string, roots: string[]): Promise<string | "outside" | undefined> {
  const real = await realpath(path).catch(() => undefined);
  if (real === undefined) return undefined;
  return roots.some((root) => isInside(real, root)) ? real : "outside";
}
