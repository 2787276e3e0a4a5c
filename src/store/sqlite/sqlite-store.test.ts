// The SQLite store: the shared conformance suite, plus what only a file on disk shows — persistence, schema versions,
// and a second process writing at the same time.

import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import Database from "better-sqlite3";
import { VideoRagError } from "../../spec/index.js";
import { runStoreConformance, sampleVideo } from "../store-conformance.js";
import { openSqliteStore } from "./sqlite-store.js";

const dir = mkdtempSync(join(tmpdir(), "videorag-store-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let fileCount = 0;
const freshPath = (): string => join(dir, `library-${++fileCount}.sqlite`);

runStoreConformance("sqlite", () => openSqliteStore(freshPath()));

test("a library survives closing and reopening", () => {
  const path = freshPath();
  const first = openSqliteStore(path);
  first.commitVideo(sampleVideo("kept", ["a lasting sentence"]));
  first.close();
  const second = openSqliteStore(path);
  assert.equal(second.getVideo("kept")?.clipCount, 1);
  assert.equal(second.searchClips({ terms: [{ text: "lasting", weight: 1 }], limit: 5 })[0]?.videoId, "kept");
  second.close();
});

test("the schema version is recorded, and a file from a newer version is refused with STORE_FAILED", () => {
  const path = freshPath();
  openSqliteStore(path).close();
  const raw = new Database(path);
  assert.equal(raw.pragma("user_version", { simple: true }), 1);
  raw.pragma("user_version = 99");
  raw.close();
  assert.throws(() => openSqliteStore(path), (error: unknown) => {
    assert.ok(VideoRagError.isInstance(error));
    assert.equal(error.code, "STORE_FAILED");
    assert.match(error.message, /newer/);
    return true;
  });
});

test("a path that cannot be opened fails with STORE_FAILED naming it", () => {
  const path = join(dir, "no-such-folder", "library.sqlite");
  assert.throws(() => openSqliteStore(path), (error: unknown) => {
    assert.ok(VideoRagError.isInstance(error));
    assert.equal(error.code, "STORE_FAILED");
    assert.equal(error.subject, path);
    return true;
  });
});

test("a closed store fails with STORE_FAILED instead of a raw driver error", () => {
  const store = openSqliteStore(freshPath());
  store.close();
  assert.throws(() => store.listVideos(), (error: unknown) => VideoRagError.isInstance(error) && error.code === "STORE_FAILED");
});

/** Starts another process that holds the library's write lock for `holdMs`, resolving once it holds it. */
async function holdWriteLock(path: string, holdMs: number): Promise<ChildProcess> {
  const script = `
    const Database = require("better-sqlite3");
    const db = new Database(${JSON.stringify(path)});
    db.exec("BEGIN IMMEDIATE");
    process.stdout.write("locked\\n");
    setTimeout(() => { db.exec("COMMIT"); db.close(); }, ${holdMs});
  `;
  const child = spawn(process.execPath, ["-e", script], { cwd: process.cwd(), stdio: ["ignore", "pipe", "inherit"] });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (data: Buffer) => {
      if (data.toString().includes("locked")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`lock holder exited early with ${code}`)));
  });
  return child;
}

test("a write waits for another process's write to finish instead of failing at once", async () => {
  const path = freshPath();
  const store = openSqliteStore(path, { busyTimeoutMs: 5000 });
  const holder = await holdWriteLock(path, 400);
  const started = performance.now();
  store.commitVideo(sampleVideo("patient", ["waited for the lock"]));
  const waitedMs = performance.now() - started;
  assert.ok(waitedMs >= 250, `the commit should have waited for the other writer, took ${waitedMs.toFixed(0)} ms`);
  assert.equal(store.getVideo("patient")?.clipCount, 1);
  store.close();
  holder.kill();
});

test("a write that outwaits the busy timeout fails with a retryable STORE_LOCKED", async () => {
  const path = freshPath();
  const store = openSqliteStore(path, { busyTimeoutMs: 300 });
  const holder = await holdWriteLock(path, 10_000);
  const started = performance.now();
  try {
    assert.throws(() => store.commitVideo(sampleVideo("blocked", ["never written"])), (error: unknown) => {
      assert.ok(VideoRagError.isInstance(error));
      assert.equal(error.code, "STORE_LOCKED");
      assert.equal(error.retryable, true);
      return true;
    });
    assert.ok(performance.now() - started >= 250, "it waited for the busy timeout first");
    assert.deepEqual(store.listVideos(), [], "readers still work while another process writes");
  } finally {
    holder.kill();
    store.close();
  }
});
