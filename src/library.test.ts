// End-to-end through the library API on real media from ../shared: what a user sees after ingest, search and ask.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { formatCitation } from "./answer/index.js";
import { subtitledLibraryCases } from "./library.case.js";
import { openLibrary } from "./library.js";
import type { Store } from "./spec/index.js";
import { openSqliteStore } from "./store/index.js";
import { needsShared, sharedPath } from "./test-support/shared.js";

const scratch = mkdtempSync(join(tmpdir(), "videorag-library-test-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

subtitledLibraryCases("sqlite", (name, options) => openLibrary({ ...options, path: join(scratch, name) }));

describe("a library with an injected store", { skip: needsShared }, () => {
  test("ingest and ask go through the store given, and the default library.sqlite is never made", async () => {
    const storePath = join(scratch, "elsewhere.sqlite");
    const library = await openLibrary({ path: join(scratch, "injected"), store: openSqliteStore(storePath) });
    try {
      const report = await library.ingest([sharedPath("media/subtitled/friday.mp4")]);
      assert.equal(report.failed, 0, JSON.stringify(report.results));
      const answer = await library.ask("who is in a bad humor?");
      const first = answer.citations[0];
      assert.ok(first, answer.text);
      assert.equal(formatCitation(first), "[friday.mp4 0:03–0:04]");
    } finally {
      await library.close();
    }
    assert.equal(existsSync(join(scratch, "injected", "library.sqlite")), false);
    const reopened = openSqliteStore(storePath);
    try {
      assert.deepEqual((await reopened.listVideos()).map((video) => video.title), ["friday.mp4"]);
    } finally {
      await reopened.close();
    }
  });
});

test("a store that lacks the Store's methods is refused with CONFIG_INVALID", async () => {
  const notAStore = { listVideos: async () => [] } as unknown as Store;
  await assert.rejects(openLibrary({ path: join(scratch, "not-a-store"), store: notAStore }), (error: unknown) => {
    const { code, message } = error as { code?: string; message?: string };
    assert.equal(code, "CONFIG_INVALID");
    assert.match(message ?? "", /^store: expected a Store/);
    return true;
  });
  assert.equal(existsSync(join(scratch, "not-a-store")), false, "nothing is made for refused options");
});

describe("bad input in a batch", { skip: needsShared }, () => {
  test("each bad file fails with its own code, the good ones are ingested, nothing half-written remains", async () => {
    const folder = join(scratch, "mixed");
    const { mkdirSync } = await import("node:fs");
    mkdirSync(folder, { recursive: true });
    copyFileSync(sharedPath("media/subtitled/friday.mp4"), join(folder, "friday.mp4"));
    copyFileSync(sharedPath("media/subtitled/friday.vtt"), join(folder, "friday.vtt"));
    writeFileSync(join(folder, "empty.mp4"), "");
    writeFileSync(join(folder, "notes.mp4"), "these are my meeting notes, not a video\n".repeat(20));
    const sintel = readFileSync(sharedPath("media/speech/sintel_trailer-720p.mp4"));
    writeFileSync(join(folder, "truncated.mp4"), sintel.subarray(0, Math.floor(sintel.length / 3)));
    writeFileSync(join(folder, "readme.txt"), "not media");
    const locked = join(folder, "locked.mp4");
    copyFileSync(sharedPath("media/subtitled/friday.mp4"), locked);
    chmodSync(locked, 0o000);

    const library = await openLibrary({ path: join(scratch, "mixed-library"), speech: false });
    try {
      const report = await library.ingest([folder, join(folder, "missing.mp4")]);
      const byName = new Map(report.results.map((result) => [result.path.split("/").pop(), result]));
      assert.equal(byName.get("friday.mp4")?.status, "ingested");
      assert.equal(byName.get("empty.mp4")?.error?.code, "INPUT_EMPTY");
      assert.equal(byName.get("notes.mp4")?.error?.code, "INPUT_NOT_MEDIA");
      assert.equal(byName.get("truncated.mp4")?.error?.code, "INPUT_CORRUPT");
      assert.equal(byName.get("missing.mp4")?.error?.code, "INPUT_NOT_FOUND");
      assert.equal(byName.get("readme.txt")?.status, "skipped");
      // root reads any file, so an unreadable file only fails for ordinary users
      if (process.getuid?.() !== 0) assert.equal(byName.get("locked.mp4")?.error?.code, "INPUT_NOT_FOUND");
      assert.ok(report.failed >= 4);
      assert.deepEqual((await library.list()).map((video) => video.title), ["friday.mp4"]);
    } finally {
      chmodSync(locked, 0o600);
      await library.close();
    }
  });
});

test("two processes on one library keep their own scratch: opening the library again deletes nothing of a live one's", async () => {
  const path = join(scratch, "shared-scratch");
  const first = await openLibrary({ path });
  // Another process (the server, say) with a live pid and a file in flight.
  const other = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"]);
  try {
    const theirs = join(path, "tmp", String(other.pid));
    mkdirSync(theirs, { recursive: true });
    writeFileSync(join(theirs, "upload.part"), "in flight");
    const gone = join(path, "tmp", "999999999");
    mkdirSync(gone, { recursive: true });
    const second = await openLibrary({ path });
    assert.equal(readFileSync(join(theirs, "upload.part"), "utf8"), "in flight", "a live process's scratch stays");
    assert.equal(existsSync(gone), false, "a gone process's scratch is cleared");
    assert.ok(existsSync(join(path, "tmp", String(process.pid))));
    await second.close();
  } finally {
    other.kill();
    await first.close();
  }
});
