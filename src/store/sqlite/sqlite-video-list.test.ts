// The SQLite store keeps the last list of videos while nothing in the file has changed (every question reads it): it
// must follow every change, this process's and another's, and never hand out a list a caller could alter.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { checkKeptVideoList } from "../conformance/index.js";
import { openSqliteStore } from "./sqlite-store.js";

const dir = mkdtempSync(join(tmpdir(), "videorag-video-list-"));
after(() => rmSync(dir, { recursive: true, force: true }));

test("the kept list of videos follows commits, removals and write-backs, from this connection and from another process's, and cannot be altered by its caller", async () => {
  const path = join(dir, "library.sqlite");
  const store = openSqliteStore(path);
  // Another connection, as another process (a worker) writes.
  const other = openSqliteStore(path);
  try {
    await checkKeptVideoList(store, other);
  } finally {
    await other.close();
    await store.close();
  }
});
