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
import { runStoreConformance, sampleVideo, withGraph } from "../store-conformance.case.js";
import { schemaVersion } from "./sqlite-schema.js";
import { openSqliteStore } from "./sqlite-store.js";

const dir = mkdtempSync(join(tmpdir(), "videorag-store-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let fileCount = 0;
const freshPath = (): string => join(dir, `library-${++fileCount}.sqlite`);

runStoreConformance("sqlite", () => openSqliteStore(freshPath()));

test("a library survives closing and reopening", async () => {
  const path = freshPath();
  const first = openSqliteStore(path);
  await first.commitVideo(sampleVideo("kept", ["a lasting sentence"]));
  await first.close();
  const second = openSqliteStore(path);
  assert.equal((await second.getVideo("kept"))?.clipCount, 1);
  assert.equal((await second.searchClips({ terms: [{ text: "lasting", weight: 1 }], limit: 5 }))[0]?.videoId, "kept");
  await second.close();
});

test("the schema version is recorded, and a file from a newer version is refused with STORE_FAILED", async () => {
  const path = freshPath();
  await openSqliteStore(path).close();
  const raw = new Database(path);
  assert.equal(raw.pragma("user_version", { simple: true }), schemaVersion);
  raw.pragma("user_version = 99");
  raw.close();
  assert.throws(() => openSqliteStore(path), (error: unknown) => {
    assert.ok(VideoRagError.isInstance(error));
    assert.equal(error.code, "STORE_FAILED");
    assert.match(error.message, /newer/);
    return true;
  });
});

/** The version 1 schema exactly as the first release wrote it; frozen here, so a changed migration cannot hide. */
const schemaV1 = `
CREATE TABLE videos (key INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE,
  status TEXT NOT NULL CHECK (status IN ('pending', 'ready')), path TEXT, title TEXT,
  kind TEXT CHECK (kind IN ('media', 'transcript')), duration_seconds REAL, size_bytes INTEGER, width INTEGER,
  height INTEGER, has_audio INTEGER, has_video INTEGER, times_estimated INTEGER, ingested_at TEXT, clip_count INTEGER,
  fingerprint TEXT);
CREATE INDEX videos_by_status ON videos (status, ingested_at);
CREATE TABLE clips (key INTEGER PRIMARY KEY, video_key INTEGER NOT NULL REFERENCES videos (key) ON DELETE CASCADE,
  clip_index INTEGER NOT NULL, start_second REAL NOT NULL, end_second REAL NOT NULL, transcript TEXT NOT NULL,
  screen TEXT NOT NULL, visual TEXT NOT NULL, UNIQUE (video_key, clip_index));
CREATE TABLE segments (video_key INTEGER NOT NULL REFERENCES videos (key) ON DELETE CASCADE,
  start_second REAL NOT NULL, end_second REAL NOT NULL, text TEXT NOT NULL, source TEXT NOT NULL);
CREATE INDEX segments_by_time ON segments (video_key, start_second);
CREATE TABLE frames (video_key INTEGER NOT NULL REFERENCES videos (key) ON DELETE CASCADE,
  time_second REAL NOT NULL, hash TEXT);
CREATE INDEX frames_by_time ON frames (video_key, time_second);
CREATE TABLE stages (video_key INTEGER NOT NULL REFERENCES videos (key) ON DELETE CASCADE, stage TEXT NOT NULL,
  key TEXT NOT NULL, output TEXT NOT NULL, PRIMARY KEY (video_key, stage));
CREATE VIRTUAL TABLE clip_fts USING fts5 (transcript, screen, visual, video,
  tokenize = 'porter unicode61 remove_diacritics 2', content = '', contentless_delete = 1);
CREATE VIRTUAL TABLE video_fts USING fts5 (transcript, screen, visual, video,
  tokenize = 'porter unicode61 remove_diacritics 2', content = '', contentless_delete = 1);
`;

test("a library written with schema 1 opens, keeps its videos and gains vectors", async () => {
  const path = freshPath();
  const old = new Database(path);
  old.exec(schemaV1);
  old.prepare(`INSERT INTO videos (key, id, status, path, title, kind, duration_seconds, size_bytes, has_audio, has_video,
      times_estimated, ingested_at, clip_count, fingerprint)
    VALUES (1, 'old', 'ready', '/videos/old.mp4', 'Old', 'media', 30, 1000, 1, 1, 0, '2024-01-01T00:00:00.000Z', 1, 'sha')`).run();
  old.prepare(`INSERT INTO clips (key, video_key, clip_index, start_second, end_second, transcript, screen, visual)
    VALUES (1, 1, 0, 0, 30, 'an heirloom sentence', '', '')`).run();
  old.prepare(`INSERT INTO clip_fts (rowid, transcript, screen, visual, video) VALUES (1, 'an heirloom sentence', '', '', 'k1')`).run();
  old.pragma("user_version = 1");
  old.close();

  const store = openSqliteStore(path);
  assert.equal((await store.getVideo("old"))?.title, "Old");
  assert.equal((await store.searchClips({ terms: [{ text: "heirloom", weight: 1 }], limit: 5 }))[0]?.videoId, "old");
  assert.deepEqual(await store.vectorSpaces(), []);
  const vector = new Float32Array([0.6, 0.8]);
  await store.addVectors("old", [{ space: "text:m", owner: "clip", videoId: "old", clipIndex: 0, vector }]);
  const [match] = await store.searchVectors({ space: "text:m", vector, limit: 5 });
  assert.deepEqual(match, { videoId: "old", clipIndex: 0, distance: 0 });
  assert.equal(await store.removeVideo("old"), true, "the new vectors table cascades with the old videos table");
  await store.close();
  const raw = new Database(path);
  assert.equal(raw.pragma("user_version", { simple: true }), schemaVersion);
  raw.close();
});

/** The version 2 additions exactly as that release wrote them. */
const schemaV2 = `
CREATE TABLE vector_spaces (key INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,
  dimensions INTEGER NOT NULL CHECK (dimensions > 0));
CREATE TABLE vectors (key INTEGER PRIMARY KEY, space_key INTEGER NOT NULL REFERENCES vector_spaces (key),
  video_key INTEGER NOT NULL REFERENCES videos (key) ON DELETE CASCADE,
  owner TEXT NOT NULL CHECK (owner IN ('clip', 'frame')), clip_index INTEGER NOT NULL, time_second REAL,
  vector BLOB NOT NULL);
CREATE UNIQUE INDEX vectors_by_video ON vectors (video_key, space_key, owner, clip_index, ifnull(time_second, -1));
CREATE INDEX vectors_by_space ON vectors (space_key);
`;

test("a library written with schema 2 opens, keeps its videos and vectors, and gains the graph", async () => {
  const path = freshPath();
  const old = new Database(path);
  old.exec(schemaV1 + schemaV2);
  old.prepare(`INSERT INTO videos (key, id, status, path, title, kind, duration_seconds, size_bytes, has_audio, has_video,
      times_estimated, ingested_at, clip_count, fingerprint)
    VALUES (1, 'old', 'ready', '/videos/old.mp4', 'Old', 'media', 30, 1000, 1, 1, 0, '2024-01-01T00:00:00.000Z', 1, 'sha')`).run();
  old.prepare(`INSERT INTO clips (key, video_key, clip_index, start_second, end_second, transcript, screen, visual)
    VALUES (1, 1, 0, 0, 30, 'popeye the sailor', '', '')`).run();
  old.prepare(`INSERT INTO clip_fts (rowid, transcript, screen, visual, video) VALUES (1, 'popeye the sailor', '', '', 'k1')`).run();
  old.prepare(`INSERT INTO vector_spaces (key, name, dimensions) VALUES (1, 'text:m', 2)`).run();
  old.prepare(`INSERT INTO vectors (space_key, video_key, owner, clip_index, vector) VALUES (1, 1, 'clip', 0, ?)`)
    .run(Buffer.from(new Float32Array([0.6, 0.8]).buffer));
  old.pragma("user_version = 2");
  old.close();

  const store = openSqliteStore(path);
  assert.equal((await store.getVideo("old"))?.title, "Old");
  assert.equal((await store.searchClips({ terms: [{ text: "sailor", weight: 1 }], limit: 5 }))[0]?.videoId, "old");
  const [match] = await store.searchVectors({ space: "text:m", vector: new Float32Array([0.6, 0.8]), limit: 5 });
  assert.equal(match?.videoId, "old");
  assert.deepEqual(await store.graphStats(), { chunks: 0, entities: 0, relations: 0, crossVideoEntities: 0 });
  const popeye = (id: string) => withGraph(sampleVideo(id, ["popeye the sailor"]), [{ entities: [["Popeye", "person", id]] }]);
  await store.commitVideo(popeye("new"));
  await store.commitVideo(popeye("old"));
  assert.deepEqual((await store.getEntity("popeye"))?.sources.map((source) => source.videoId), ["new", "old"]);
  assert.equal((await store.graphStats()).crossVideoEntities, 1);
  assert.equal(await store.removeVideo("old"), true, "the graph's tables cascade with the old videos table");
  assert.deepEqual((await store.getEntity("popeye"))?.sources.map((source) => source.videoId), ["new"]);
  await store.close();
  const raw = new Database(path);
  assert.equal(raw.pragma("user_version", { simple: true }), schemaVersion);
  raw.close();
});

test("without sqlite-vec, entity vectors are kept and names merge by name only; once it loads, by vector too", async () => {
  const path = freshPath();
  const graphOf = (id: string, name: string, values: number[]) =>
    withGraph(sampleVideo(id, [`${name} speaks`]), [{ entities: [[name, "person", ""]] }], {
      entityVectors: [{ nameKey: name.toLowerCase(), vector: new Float32Array(values) }],
      entityVectorSpace: "entity:m",
    });
  const without = openSqliteStore(path, {
    loadVectorExtension: () => {
      throw new Error("Cannot find module 'sqlite-vec'");
    },
  });
  await without.commitVideo(graphOf("a", "Bob Smith", [1, 0, 0]));
  await without.commitVideo(graphOf("b", "Robert Smith", [0.999, 0.04, 0]));
  await without.commitVideo(graphOf("c", "Bob Smith", [1, 0, 0]));
  assert.deepEqual((await without.getEntity("bob smith"))?.sources.map((source) => source.videoId), ["a", "c"]);
  assert.notEqual((await without.getEntity("robert smith"))?.key, (await without.getEntity("bob smith"))?.key);
  await without.close();

  const withVectors = openSqliteStore(path);
  await withVectors.commitVideo(graphOf("d", "Bobby Smith", [1, 0.001, 0]));
  assert.equal((await withVectors.getEntity("bobby smith"))?.key, (await withVectors.getEntity("bob smith"))?.key, "merged by the kept vector");
  assert.equal((await withVectors.graphStats()).entities, 2);
  await withVectors.close();
});

/** Unit vectors near one another: each of `count` random directions, and a copy turned slightly off it. */
function nearPairs(count: number, dimensions: number, offDistance: number): { names: Float32Array[]; near: Float32Array[] } {
  let state = 7;
  const next = (): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296 - 0.5;
  };
  const unit = (values: Float32Array): Float32Array => {
    const norm = Math.hypot(...values);
    return values.map((value) => value / norm);
  };
  const names = Array.from({ length: count }, () => unit(Float32Array.from({ length: dimensions }, next)));
  const near = names.map((name) => {
    const noise = unit(Float32Array.from({ length: dimensions }, next));
    // cos(angle) = 1 − offDistance between the name and its near copy.
    const angle = Math.acos(1 - offDistance);
    return unit(name.map((value, index) => Math.cos(angle) * value + Math.sin(angle) * (noise[index] as number)));
  });
  return { names, near };
}

const namedGraph = (id: string, names: string[], vectors: Float32Array[]) =>
  withGraph(sampleVideo(id, [`${id} words`]), [{ entities: names.map((name): [string, string, string] => [name, "person", ""]) }], {
    entityVectors: names.map((name, index) => ({ nameKey: name, vector: vectors[index] as Float32Array })),
    entityVectorSpace: "entity:m",
  });

test("past the exact-scan limit, a name merges with its near entity through the vector buckets", async () => {
  const store = openSqliteStore(freshPath(), { exactMergeScanLimit: 0 });
  try {
    const { names, near } = nearPairs(200, 64, 0.03);
    const originals = names.map((_, index) => `person${index}`);
    await store.commitVideo(namedGraph("a", originals, names));
    const renamed = near.map((_, index) => `someone${index}`);
    await store.commitVideo(namedGraph("b", renamed, near));
    const merged: string[] = [];
    for (const [index, name] of renamed.entries()) {
      if ((await store.getEntity(name))?.key === (await store.getEntity(originals[index] as string))?.key) merged.push(name);
    }
    assert.ok(merged.length >= 196, `${merged.length} of 200 near names merged`);
    assert.equal((await store.graphStats()).entities, 200 + 200 - merged.length, "no name merged with the wrong entity");
    // A direction far from every stored one stays its own entity.
    await store.commitVideo(namedGraph("c", ["stranger"], [nearPairs(1, 64, 0.03).near[0]?.map((value, index) => (index % 2 ? value : -value)) as Float32Array]));
    assert.equal((await store.getEntity("stranger"))?.sources.length, 1);
    assert.notEqual((await store.getEntity("stranger"))?.key, undefined);
  } finally {
    await store.close();
  }
});

test("a library written with schema 3 files its entity vectors into buckets when it opens", async () => {
  const path = freshPath();
  const { names, near } = nearPairs(20, 16, 0.02);
  const first = openSqliteStore(path);
  await first.commitVideo(namedGraph("a", names.map((_, index) => `person${index}`), names));
  await first.close();
  const raw = new Database(path);
  raw.exec(`DROP TABLE entity_vector_buckets; DROP INDEX entities_by_change;`);
  // And what version 5 added, so the migration runs from a true version 3.
  raw.exec(`DROP TABLE clip_stages; DROP INDEX segments_by_clip; ALTER TABLE segments DROP COLUMN clip_index;
    ALTER TABLE clips DROP COLUMN speech_seconds; ALTER TABLE clips DROP COLUMN speech_regions;
    ALTER TABLE clips DROP COLUMN screen_changes; ALTER TABLE clips DROP COLUMN asked;`);
  // And version 6's counter.
  raw.exec(`DROP TABLE sequences;`);
  raw.pragma("user_version = 3");
  raw.close();

  const store = openSqliteStore(path, { exactMergeScanLimit: 0 });
  try {
    await store.commitVideo(namedGraph("b", near.map((_, index) => `someone${index}`), near));
    assert.equal((await store.graphStats()).entities, 20, "every near name found its entity through the filed buckets");
  } finally {
    await store.close();
  }
});

test("vectors are stored as float32 bytes and survive reopening", async () => {
  const path = freshPath();
  const first = openSqliteStore(path);
  const vector = new Float32Array([0.1, -2.5, 3e-7, 1]);
  await first.commitVideo({
    ...sampleVideo("v", ["words"]),
    vectors: [{ space: "text:m", owner: "frame", videoId: "v", clipIndex: 0, timeSecond: 12.5, vector }],
  });
  await first.close();
  const raw = new Database(path, { readonly: true });
  const stored = raw.prepare(`SELECT vector FROM vectors`).pluck().get() as Buffer;
  raw.close();
  assert.equal(stored.length, 16);
  assert.deepEqual(new Float32Array(stored.buffer.slice(stored.byteOffset, stored.byteOffset + stored.length)), vector);
  const second = openSqliteStore(path);
  const [match, ...rest] = await second.searchVectors({ space: "text:m", vector, limit: 5 });
  assert.deepEqual({ ...match, distance: undefined }, { videoId: "v", clipIndex: 0, timeSecond: 12.5, distance: undefined });
  assert.ok((match?.distance ?? 1) < 1e-6);
  assert.deepEqual(rest, []);
  assert.deepEqual(await second.vectorSpaces(), [{ space: "text:m", dimensions: 4, count: 1 }]);
  await second.close();
});

test("without sqlite-vec the library opens and works, and only vector search fails, naming the package", async () => {
  const store = openSqliteStore(freshPath(), {
    loadVectorExtension: () => {
      throw new Error("Cannot find module 'sqlite-vec'");
    },
  });
  try {
    const vector = new Float32Array([1, 0]);
    await store.commitVideo({
      ...sampleVideo("v", ["plain words"]),
      vectors: [{ space: "text:m", owner: "clip", videoId: "v", clipIndex: 0, vector }],
    });
    assert.equal((await store.searchClips({ terms: [{ text: "plain", weight: 1 }], limit: 5 }))[0]?.videoId, "v");
    assert.equal(await store.vectorCount("v"), 1, "vectors are kept, to be searched once the package is installed");
    await assert.rejects(() => store.searchVectors({ space: "text:m", vector, limit: 5 }), (error: unknown) => {
      assert.ok(VideoRagError.isInstance(error));
      assert.equal(error.code, "STORE_FAILED");
      assert.match(error.message, /sqlite-vec/);
      return true;
    });
    assert.equal(await store.removeVideo("v"), true);
    assert.equal(await store.vectorCount(), 0);
  } finally {
    await store.close();
  }
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

test("a closed store fails with STORE_FAILED instead of a raw driver error", async () => {
  const store = openSqliteStore(freshPath());
  await store.close();
  await assert.rejects(() => store.listVideos(), (error: unknown) => VideoRagError.isInstance(error) && error.code === "STORE_FAILED");
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
  await store.commitVideo(sampleVideo("patient", ["waited for the lock"]));
  const waitedMs = performance.now() - started;
  assert.ok(waitedMs >= 250, `the commit should have waited for the other writer, took ${waitedMs.toFixed(0)} ms`);
  assert.equal((await store.getVideo("patient"))?.clipCount, 1);
  await store.close();
  holder.kill();
});

test("a write that outwaits the busy timeout fails with a retryable STORE_LOCKED", async () => {
  const path = freshPath();
  const store = openSqliteStore(path, { busyTimeoutMs: 300 });
  const holder = await holdWriteLock(path, 10_000);
  const started = performance.now();
  try {
    await assert.rejects(() => store.commitVideo(sampleVideo("blocked", ["never written"])), (error: unknown) => {
      assert.ok(VideoRagError.isInstance(error));
      assert.equal(error.code, "STORE_LOCKED");
      assert.equal(error.retryable, true);
      return true;
    });
    assert.ok(performance.now() - started >= 250, "it waited for the busy timeout first");
    assert.deepEqual(await store.listVideos(), [], "readers still work while another process writes");
  } finally {
    holder.kill();
    await store.close();
  }
});

test("a schema 5 library continues its change sequence from the largest it holds", async () => {
  const path = freshPath();
  const first = openSqliteStore(path);
  await first.commitVideo(namedGraph("a", ["person0"], [new Float32Array(16).fill(0.5)]));
  const before = (await first.getEntity("person0"))?.changeSequence ?? Number.NaN;
  await first.close();
  const raw = new Database(path);
  raw.exec(`DROP TABLE sequences;`);
  raw.pragma("user_version = 5");
  raw.close();
  const store = openSqliteStore(path);
  try {
    await store.commitVideo(namedGraph("b", ["person1"], [new Float32Array(16).fill(-0.5)]));
    const after = (await store.getEntity("person1"))?.changeSequence ?? Number.NaN;
    assert.ok(after > before, `${after} after ${before}`);
  } finally {
    await store.close();
  }
});
