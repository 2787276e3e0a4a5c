// Locates ../shared (real media, models, datasets) for tests; tests skip with this reason when it is absent.
import { existsSync } from "node:fs";
import { resolve } from "node:path";

const candidates = [process.env.VIDEORAG_SHARED_DIR, resolve(process.cwd(), "../shared")].filter(
  (path): path is string => Boolean(path),
);

/** Absolute path of the shared folder, or undefined in a user's clone. */
export const sharedDir: string | undefined = candidates.find((path) => existsSync(resolve(path, "media")));

/** A `skip` option for node:test: false when ../shared exists, otherwise the reason printed. */
export const needsShared: string | false = sharedDir
  ? false
  : "../shared (real media, models and datasets) is not beside this checkout";

/** Path inside ../shared; only call when `needsShared` is false. */
export function sharedPath(...parts: string[]): string {
  if (!sharedDir) throw new Error(String(needsShared));
  return resolve(sharedDir, ...parts);
}
