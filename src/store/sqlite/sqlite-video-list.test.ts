// The SQLite store keeps the last list of videos while nothing in the file has changed (every question reads it): it
// must follow every change, this process's and another's, and never hand out a list a caller could alter.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { sampleVideo } from "../conformance/index.js";
import { openSqliteStore } from "./sqlite-store.js";

const dir = mkdtempSync(join(tmpdir(), "videorag-video-list-"));
after(() => rmSync(dir, { recursive: true, force: true }));

test("the kept list of videos follows commits, removals and write-backs, from this connection and from another process's", async () => {
  const path = join(dir, "library.sqlite");
  const store = openSqliteStore(path);
  const other = openSqliteStore(path);
  const ids = async () => (await store.listVideos()).map((video) => video.id).sort();
  try {
    await store.commitVideo(sampleVideo("bread", ["kneading the dough"]));
    assert.deepEqual(await ids(), ["bread"]);
    assert.deepEqual(await ids(), ["bread"], "read again, unchanged");
    // Another connection, as another process (a worker) writes.
    await other.commitVideo(sampleVideo("soup", ["chopping the onions"]));
    assert.deepEqual(await ids(), ["bread", "soup"]);
    await other.removeVideo("bread");
    assert.deepEqual(await ids(), ["soup"]);
    // A write-back that names the video's language for the first time changes the listed video.
    await store.writeBack({ videoId: "soup", documents: [], replaces: [], segments: [], vectors: [], stages: [], language: "de" });
    assert.equal((await store.listVideos())[0]?.language, "de");
    await store.removeVideo("soup");
    assert.deepEqual(await ids(), []);
  } finally {
    await other.close();
    await store.close();
  }
});

test("a listed video cannot be altered by its caller, and the list itself is the caller's own", async () => {
  const store = openSqliteStore(join(dir, "frozen.sqlite"));
  try {
    await store.commitVideo(sampleVideo("bread", ["kneading the dough"]));
    const list = await store.listVideos();
    assert.throws(() => Object.assign(list[0] as object, { title: "changed" }), TypeError);
    list.pop();
    assert.equal((await store.listVideos()).length, 1);
  } finally {
    await store.close();
  }
});
