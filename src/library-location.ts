// Where a library lives: a folder holding one SQLite file (the default), or a PostgreSQL database given by URL, for a
// library shared by several machines. Either way a local folder holds what is per machine: scratch, caches, server jobs.

import { createHash } from "node:crypto";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { isPostgresUrl, redactUrl } from "./store/postgres/postgres-url.js";

export type LibraryLocation =
  | { kind: "sqlite"; /** The library folder. */ folder: string; /** How the library is named to users and queue jobs. */ name: string }
  | { kind: "postgres"; url: string; /** This machine's folder for the library's scratch and caches. */ folder: string; name: string };

/**
 * Reads a `--library` value (or the configuration's): a `postgres://` URL is a Postgres library, named by the URL
 * without its password; anything else is a folder. A Postgres library's local folder is `VIDEORAG_STATE_DIR`, or one
 * per database under `~/.cache/videorag`.
 */
export function libraryLocation(location: string): LibraryLocation {
  if (!isPostgresUrl(location)) {
    const folder = resolve(location);
    return { kind: "sqlite", folder, name: folder };
  }
  const name = redactUrl(location);
  const folder = process.env.VIDEORAG_STATE_DIR
    ? resolve(process.env.VIDEORAG_STATE_DIR)
    : join(homedir(), ".cache", "videorag", `postgres-${createHash("sha256").update(name).digest("hex").slice(0, 16)}`);
  return { kind: "postgres", url: location, folder, name };
}
