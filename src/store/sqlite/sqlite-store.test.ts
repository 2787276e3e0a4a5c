// The SQLite store: the shared conformance suite, plus what only a file on disk shows — persistence, schema versions,
// and a second process writing at the same time.

import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import Database from "better-sqlite3";
import { VideoRagError, type Chunk, type ClipDocument, type Segment } from "../../spec/index.js";
import { chapterQueries, churnChapters, runStoreConformance, sampleVideo, withGraph } from "../conformance/index.js";
import { lexicalTables, scatteredFrom, segmentCount } from "./sqlite-fts-merges.js";
import { migrate, schemaVersion } from "./sqlite-schema.js";
import { openSqliteStore, rebuildLexicalIndexes } from "./sqlite-store.js";

const dir = mkdtempSync(join(tmpdir(), "videorag-store-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let fileCount = 0;
const freshPath = (): string => join(dir, `library-${++fileCount}.sqlite`);

runStoreConformance("sqlite", () => openSqliteStore(freshPath()));

test("compacting leaves each lexical index, written by a transaction a video, in one segment; write-backs keep it in few", async () => {
  const path = freshPath();
  const store = openSqliteStore(path);
  try {
    for (let video = 0; video < 12; video++) await store.commitVideo(sampleVideo(`v${video}`, [`words of video ${video}`, "shared words"]));
    const raw = new Database(path, { readonly: true });
    try {
      assert.ok(segmentCount(raw, "clip_fts") > 1, "FTS5 alone leaves a segment a transaction, merged four at a time");
      await store.compactTextIndexes();
      for (const table of lexicalTables) assert.ok(segmentCount(raw, table) <= 1, table);
      // Clips written back one at a time, as questions extract them: the clip index never reaches `scatteredFrom`
      // segments, and the last words written are found.
      let most = 0;
      for (let turn = 0; turn < 60; turn++) {
        const [clip] = await store.getClips([{ videoId: `v${turn % 12}`, clipIndex: 0 }]);
        await store.writeBack({ videoId: `v${turn % 12}`, documents: [{ ...(clip as ClipDocument), transcript: `written back turn${turn}` }], replaces: [], segments: [], vectors: [], stages: [] });
        most = Math.max(most, segmentCount(raw, "clip_fts"));
      }
      assert.equal(most, scatteredFrom - 1, "merged as it reaches scatteredFrom");
      assert.deepEqual((await store.searchClips({ terms: [{ text: "turn59", weight: 1 }], limit: 5 })).map((match) => match.videoId), ["v11"]);
    } finally {
      raw.close();
    }
  } finally {
    await store.close();
  }
});

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

/** A file at an earlier schema version, made by the migrations up to it, for a test to fill as that version would. */
function fileAtVersion(version: number): { path: string; raw: Database.Database } {
  const path = freshPath();
  const raw = new Database(path);
  migrate(raw, path, version);
  assert.equal(raw.pragma("user_version", { simple: true }), version);
  return { path, raw };
}

test("a library written with schema 3 files its entity vectors into buckets when it opens", async () => {
  const { names, near } = nearPairs(20, 16, 0.02);
  const { path, raw } = fileAtVersion(3);
  const insertEntity = raw.prepare(`INSERT INTO entities (name_key, name, type) VALUES (?, ?, 'person') RETURNING key`).pluck();
  const insertVector = raw.prepare(`INSERT INTO entity_vectors (entity_key, space, type, vector) VALUES (?, 'entity:m', 'person', ?)`);
  names.forEach((vector, index) => {
    const key = insertEntity.get(`person${index}`, `person${index}`);
    insertVector.run(key, Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength));
  });
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
  const { path, raw } = fileAtVersion(5);
  const before = 7;
  raw.prepare(`INSERT INTO entities (name_key, name, type, change_sequence) VALUES ('person0', 'person0', 'person', ?)`).run(before);
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

test("a library written with schema 6 opens with each text stored once, and returns every text as before", async () => {
  const { path, raw } = fileAtVersion(6);
  raw.prepare(`INSERT INTO videos (key, id, status, path, title, kind, duration_seconds, size_bytes, has_audio, has_video,
      times_estimated, ingested_at, clip_count, fingerprint)
    VALUES (1, 'old', 'ready', '/t/old.txt', 'old', 'transcript', 90, 100, 0, 0, 1, '2024-01-01T00:00:00.000Z', 3, 'sha')`).run();
  const segments: Segment[] = [
    { startSecond: 0, endSecond: 12.5, text: "Popeye eats spinach.", source: "transcript" },
    { startSecond: 0, endSecond: 90, text: "SPINACH CO", source: "screen", clipIndex: 0 },
    { startSecond: 12.5, endSecond: 25, text: "He grows strong.", source: "transcript" },
    { startSecond: 25, endSecond: 40, text: "Olive Oyl waits by the pier.", source: "transcript" },
    { startSecond: 61, endSecond: 70, text: "Bluto  arrives\nlate.", source: "speech", clipIndex: 2 },
  ];
  const insertSegment = raw.prepare(`INSERT INTO segments (video_key, start_second, end_second, text, source, clip_index)
    VALUES (1, ?, ?, ?, ?, ?)`);
  for (const segment of segments) {
    insertSegment.run(segment.startSecond, segment.endSecond, segment.text, segment.source, segment.clipIndex ?? null);
  }
  const clips: ClipDocument[] = [
    { videoId: "old", index: 0, startSecond: 0, endSecond: 30, transcript: "Popeye eats spinach.\nHe grows strong.", screen: "SPINACH CO", visual: "" },
    { videoId: "old", index: 1, startSecond: 30, endSecond: 60, transcript: "Olive Oyl waits by the pier.", screen: "", visual: "" },
    // Said in no segment: kept as it is.
    { videoId: "old", index: 2, startSecond: 60, endSecond: 90, transcript: "Bluto came by boat.", screen: "", visual: "boat" },
  ];
  for (const clip of clips) {
    raw.prepare(`INSERT INTO clips (key, video_key, clip_index, start_second, end_second, transcript, screen, visual)
      VALUES (?, 1, ?, ?, ?, ?, ?, ?)`).run(clip.index + 1, clip.index, clip.startSecond, clip.endSecond, clip.transcript, clip.screen, clip.visual);
    raw.prepare(`INSERT INTO clip_fts (rowid, transcript, screen, visual, video) VALUES (?, ?, ?, ?, 'k1')`)
      .run(clip.index + 1, clip.transcript, clip.screen, clip.visual);
  }
  const chunks: Chunk[] = [
    {
      videoId: "old", index: 0, clipStart: 0, clipEnd: 1, startSecond: 0, endSecond: 60, tokenCount: 20,
      text: "[0:00–0:30]\nSaid: Popeye eats spinach. He grows strong.\nOn screen: SPINACH CO\n\n[0:30–1:00]\nSaid: Olive Oyl waits by the pier.",
    },
    {
      videoId: "old", index: 1, clipStart: 2, clipEnd: 2, startSecond: 60, endSecond: 90, tokenCount: 9,
      text: "[1:00–1:30]\nSeen: boat\nSaid: Bluto came by boat.",
    },
  ];
  for (const chunk of chunks) {
    raw.prepare(`INSERT INTO chunks (video_key, chunk_index, clip_start, clip_end, start_second, end_second, text, token_count)
      VALUES (1, ?, ?, ?, ?, ?, ?, ?)`).run(chunk.index, chunk.clipStart, chunk.clipEnd, chunk.startSecond, chunk.endSecond, chunk.text, chunk.tokenCount);
  }
  raw.exec(`INSERT INTO entities (key, name_key, name, type) VALUES (1, 'popeye', 'Popeye', 'person'),
    (2, 'olive oyl', 'Olive Oyl', 'person'), (3, 'bluto', 'Bluto', 'person');
    INSERT INTO relations (key, source_key, target_key) VALUES (1, 1, 2);`);
  const sources = {
    popeye: "Popeye eats spinach. He grows strong.",
    olive: "…Olive Oyl waits by the pier.",
    // Quoted from nowhere, and short: kept as it is.
    bluto: "a brute",
    // Across two clips of the chunk: two pieces of its text.
    together: "mentioned together: Popeye eats spinach. He grows strong. Olive Oyl waits by the pier.",
  };
  raw.prepare(`INSERT INTO entity_sources (entity_key, video_key, chunk_index, description) VALUES (1, 1, 0, ?), (2, 1, 0, ?), (3, 1, 1, ?)`)
    .run(sources.popeye, sources.olive, sources.bluto);
  raw.prepare(`INSERT INTO relation_sources (relation_key, video_key, chunk_index, description, strength) VALUES (1, 1, 0, ?, 2)`).run(sources.together);
  // Frames as rows, out of order, with a time no whole number of milliseconds gives and a hash in capitals.
  const frames = [
    { timeSecond: 12.5 },
    { timeSecond: 0, hash: "00ff00ff00ff00ff" },
    { timeSecond: 1 / 3, hash: "ABCDEF0123456789" },
  ];
  for (const frame of frames) raw.prepare(`INSERT INTO frames (video_key, time_second, hash) VALUES (1, ?, ?)`).run(frame.timeSecond, frame.hash ?? null);
  raw.close();

  const store = openSqliteStore(path);
  try {
    assert.deepEqual(await store.getSegments("old", 0, 1000), segments);
    assert.deepEqual(await store.getSegments("old", 30, 60), [segments[1], segments[3]]);
    assert.deepEqual(await store.getClips(clips.map((clip) => ({ videoId: "old", clipIndex: clip.index }))), clips);
    assert.deepEqual(await store.getChunks(chunks.map((chunk) => ({ videoId: "old", chunkIndex: chunk.index }))), chunks);
    const described = async (name: string) => (await store.getEntity(name))?.sources.map((source) => source.description);
    assert.deepEqual(
      [await described("popeye"), await described("olive oyl"), await described("bluto")],
      [[sources.popeye], [sources.olive], [sources.bluto]],
    );
    const relations = await store.relationsAmong([1, 2]);
    assert.deepEqual(relations.map((relation) => [relation.description, relation.sources[0]?.description]), [[sources.together, sources.together]]);
    assert.equal((await store.searchClips({ terms: [{ text: "spinach", weight: 1 }], limit: 5 }))[0]?.clipIndex, 0);
    assert.equal((await store.searchVideos({ terms: [{ text: "pier", weight: 1 }], limit: 5 }))[0]?.videoId, "old");
    assert.deepEqual(await store.getFrames("old", 0, 1000), [frames[1], frames[2], frames[0]]);
    assert.deepEqual(await store.getFrames("old", 0.2, 12.5), [frames[2]]);
  } finally {
    await store.close();
  }
  const migrated = new Database(path);
  try {
    assert.equal(migrated.pragma("user_version", { simple: true }), schemaVersion);
    assert.equal(migrated.prepare(`SELECT count(*) FROM sqlite_master WHERE name IN ('segments', 'frames')`).pluck().get(), 0);
    assert.deepEqual(migrated.prepare(`SELECT transcript, transcript_first, transcript_last FROM clips ORDER BY clip_index`).raw().all(), [
      ["", 0, 2],
      ["", 3, 3],
      ["Bluto came by boat.", null, null],
    ]);
    // Chunk 1 quotes a clip that no segment holds, so it keeps its text.
    assert.deepEqual(migrated.prepare(`SELECT text = '', packed_text IS NOT NULL FROM chunks ORDER BY chunk_index`).raw().all(), [
      [1, 1],
      [0, 0],
    ]);
    assert.deepEqual(migrated.prepare(`SELECT description FROM entity_sources WHERE excerpt IS NULL`).pluck().all(), [sources.bluto]);
    assert.equal(migrated.prepare(`SELECT count(*) FROM relation_sources WHERE excerpt IS NOT NULL`).pluck().get(), 1);
    assert.equal(migrated.pragma("freelist_count", { simple: true }), 0, "the freed pages went back with a VACUUM");
    assert.equal(migrated.pragma("integrity_check", { simple: true }), "ok");
    assert.deepEqual(migrated.pragma("foreign_key_check"), []);
  } finally {
    migrated.close();
  }
});

test("a write-back that moves a video's segments or changes its clips keeps every text as last written", async () => {
  const store = openSqliteStore(freshPath());
  const content = withGraph(
    sampleVideo("v", ["popeye eats spinach\num", "olive oyl waits", "bluto arrives"]),
    [
      {
        entities: [["Popeye", "person", "popeye eats spinach"], ["Olive Oyl", "person", "olive oyl waits"]],
        relations: [["Popeye", "Olive Oyl", "popeye eats spinach olive oyl waits", 1]],
        clips: [0, 1],
      },
      { entities: [["Bluto", "person", "bluto arrives"]], clips: [2, 2] },
    ],
  );
  // The filler is a segment of its own, owned by clip 0, ahead of the other clips' segments.
  content.segments = [
    { startSecond: 1, endSecond: 20, text: "popeye eats spinach", source: "subtitle" },
    { startSecond: 20, endSecond: 29, text: "um", source: "speech", clipIndex: 0 },
    { startSecond: 31, endSecond: 59, text: "olive oyl waits", source: "subtitle" },
    { startSecond: 61, endSecond: 89, text: "bluto arrives", source: "subtitle" },
  ];
  const everything = async () => ({
    clips: await store.getClips([0, 1, 2].map((clipIndex) => ({ videoId: "v", clipIndex }))),
    chunks: await store.getChunks([0, 1].map((chunkIndex) => ({ videoId: "v", chunkIndex }))),
    popeye: (await store.getEntity("popeye"))?.sources.map((source) => source.description),
    relations: (await store.relationsOf((await store.getEntity("popeye"))?.key ?? 0)).map((relation) => relation.description),
  });
  try {
    await store.commitVideo(content);
    const written = await everything();
    assert.deepEqual(written.clips.map((clip) => clip.transcript), ["popeye eats spinach\num", "olive oyl waits", "bluto arrives"]);
    assert.deepEqual(written.chunks.map((chunk) => chunk.text), ["popeye eats spinach\num olive oyl waits", "bluto arrives"]);
    assert.deepEqual([written.popeye, written.relations], [["popeye eats spinach"], ["popeye eats spinach olive oyl waits"]]);

    // The filler goes, the documents do not change: every later segment moves up one place.
    await store.writeBack({ videoId: "v", documents: [], replaces: [{ clipIndex: 0, sources: ["speech"] }], segments: [], vectors: [], stages: [] });
    assert.deepEqual(await everything(), written);
    assert.deepEqual((await store.getSegments("v", 0, 90)).map((segment) => segment.text), ["popeye eats spinach", "olive oyl waits", "bluto arrives"]);

    // A new reading of clip 2: its segment and document change, so chunk 1 is packed against new clip text.
    const [, , clip2] = written.clips;
    await store.writeBack({
      videoId: "v",
      documents: [{ ...(clip2 as ClipDocument), transcript: "bluto arrives\nlate" }],
      replaces: [],
      segments: [{ startSecond: 85, endSecond: 89, text: "late", source: "speech", clipIndex: 2 }],
      vectors: [],
      stages: [],
    });
    const rewritten = await everything();
    assert.deepEqual(rewritten, { ...written, clips: [written.clips[0], written.clips[1], { ...clip2, transcript: "bluto arrives\nlate" }] });
  } finally {
    await store.close();
  }
});

test("segments come back exactly as SQLite columns gave them, across blocks and time windows", async () => {
  const store = openSqliteStore(freshPath());
  try {
    // Back-to-back lines as plain-text transcripts are timed, more than fit one block, and a few odd values.
    const segments: Segment[] = [];
    let second = 0;
    for (let line = 0; line < 600; line++) {
      const durationSeconds = (3 + (line % 7)) / 2.5;
      segments.push({ startSecond: second, endSecond: second + durationSeconds, text: `line ${line} of the talk`, source: "transcript" });
      second += durationSeconds;
    }
    segments.push({ startSecond: -0, endSecond: Number.POSITIVE_INFINITY, text: "a lone \ud83d surrogate", source: "screen", clipIndex: 0.5 });
    const clips = Array.from({ length: Math.ceil(second / 30) }, (_, index): ClipDocument => {
      const said = segments.filter((segment) => segment.source === "transcript" && Math.floor((segment.startSecond + segment.endSecond) / 60) === index);
      const transcript = said.map((segment) => segment.text).join("\n");
      return { videoId: "v", index, startSecond: index * 30, endSecond: index * 30 + 30, transcript, screen: "", visual: "" };
    });
    await store.commitVideo({ ...sampleVideo("v", ["x"]), clips, segments });
    // A REAL column gives -0 back as 0, and text that is not UTF-16 comes back with U+FFFD.
    const stored = segments.map((segment) =>
      segment.source === "screen" ? { ...segment, startSecond: 0, text: "a lone \ufffd surrogate" } : segment,
    );
    const window = (start: number, end: number) =>
      stored
        .map((segment, position) => ({ segment, position }))
        .filter(({ segment }) => segment.startSecond < end && (segment.endSecond > start || segment.startSecond >= start))
        .sort((a, b) => a.segment.startSecond - b.segment.startSecond || a.position - b.position)
        .map(({ segment }) => segment);
    for (const [start, end] of [[0, Number.POSITIVE_INFINITY], [0, 30], [590, 660], [1000, 1030], [second - 1, second + 1]] as const) {
      assert.deepEqual(await store.getSegments("v", start, end), window(start, end), `${start}–${end}`);
    }
    assert.ok(Object.is((await store.getSegments("v", 0, 1))[0]?.startSecond, 0));
    assert.deepEqual(await store.getClips(clips.map((clip) => ({ videoId: "v", clipIndex: clip.index }))), clips);
  } finally {
    await store.close();
  }
});

test("the lexical indexes forget exactly: after re-ingest, write-back, descriptions and removal, every score is a rebuilt index's", async () => {
  const path = freshPath();
  const store = openSqliteStore(path);
  const video = (id: string, texts: string[], names: [string, string][]) =>
    withGraph(sampleVideo(id, texts, { screen: texts.map((text, index) => (index === 0 ? `slide ${text}` : "")) }), [
      { entities: names.map(([name, quote]) => [name, "person", quote]), relations: [], clips: [0, texts.length - 1] },
    ]);
  const queries = ["popeye spinach", "olive oyl", "bluto sailor", "sea boat", "slide"].map((text) => ({
    terms: text.split(" ").map((word) => ({ text: word, weight: 1 })),
    limit: 50,
  }));
  const scores = async (opened: typeof store) => {
    const round = (value: number) => Math.round(value * 1e9) / 1e9;
    const result: unknown[] = [];
    for (const query of queries) {
      result.push((await opened.searchClips(query)).map((match) => [match.videoId, match.clipIndex, round(match.score)]));
      result.push((await opened.searchVideos(query)).map((match) => [match.videoId, round(match.score)]));
      result.push((await opened.searchEntities(query)).map((match) => [match.name, round(match.score)]));
    }
    return result;
  };
  try {
    await store.commitVideo(video("a", ["popeye eats spinach", "olive oyl waits on the boat"], [["Popeye", "popeye eats spinach"]]));
    await store.commitVideo(video("b", ["bluto the sailor", "the sea is rough", "popeye sails"], [["Bluto", "bluto the sailor"], ["Popeye", "popeye sails"]]));
    await store.commitVideo(video("c", ["olive oyl sings", "spinach again and again"], [["Olive Oyl", "olive oyl sings"]]));
    const before = await scores(store);
    // Ingested again with other words; a clip of b read anew; entities described; c removed.
    await store.commitVideo(video("a", ["popeye naps", "a boat on the sea", "spinach at last"], [["Popeye", "popeye naps"]]));
    const [clip] = await store.getClips([{ videoId: "b", clipIndex: 1 }]);
    await store.writeBack({ videoId: "b", documents: [{ ...(clip as ClipDocument), transcript: "the sea is calm, olive oyl rows" }], replaces: [], segments: [], vectors: [], stages: [] });
    const stale = await store.staleEntities(10);
    assert.ok(stale.length > 0);
    await store.setEntityDescriptions(stale.map((entity) => ({ key: entity.key, description: `${entity.name} of the sea and spinach` })));
    assert.equal(await store.removeVideo("c"), true);
    const after = await scores(store);
    assert.notDeepEqual(after, before);
    await store.close();

    // The same file with its indexes emptied and rebuilt from the text it keeps, as the schema 9 migration does.
    const rebuilt = join(dir, `rebuilt-${fileCount}.sqlite`);
    const raw = new Database(path);
    await raw.backup(rebuilt);
    raw.close();
    const copy = new Database(rebuilt);
    for (const table of ["clip_fts", "video_fts", "entity_fts"]) copy.prepare(`INSERT INTO ${table} (${table}) VALUES ('delete-all')`).run();
    rebuildLexicalIndexes(copy);
    copy.close();
    const reopened = openSqliteStore(rebuilt);
    try {
      assert.deepEqual(await scores(reopened), after);
    } finally {
      await reopened.close();
    }
  } finally {
    await store.close();
  }
});

test("chapter scores after write-backs, re-commits and removals are those of a fresh library holding what is left", async () => {
  const churned = openSqliteStore(freshPath());
  const fresh = openSqliteStore(freshPath());
  try {
    await churnChapters(churned);
    await churnChapters(fresh, true);
    assert.deepEqual(await churned.listChapters(), await fresh.listChapters());
    for (const query of chapterQueries) {
      const scores = async (store: typeof fresh) =>
        (await store.searchChapters(query)).map((match) => `${match.videoId}#${match.chapterIndex} ${match.score.toPrecision(12)}`);
      const expected = await scores(fresh);
      assert.ok(expected.length > 0, JSON.stringify(query));
      assert.deepEqual(await scores(churned), expected, JSON.stringify(query));
    }
  } finally {
    await churned.close();
    await fresh.close();
  }
});

test("FTS5's row count and column totals are read from its averages record, multi-byte and nine-byte varints included", async () => {
  const { ftsAverages } = await import("./sqlite-text-index.js");
  // Row count 3, then totals 0, 300 (two bytes), and 511 written in nine bytes (the last carrying eight bits).
  const record = Buffer.from([0x03, 0x00, 0x82, 0x2c, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x81, 0xff]);
  assert.deepEqual(ftsAverages(record), { rows: 3, columnTotals: [0, 300, 511] });
  const db = new Database(":memory:");
  db.exec(`CREATE VIRTUAL TABLE t USING fts5 (a, b, c, content = '')`);
  db.prepare(`INSERT INTO t (rowid, a, b, c) VALUES (?, ?, ?, ?)`).run(1, "one two three", "", "four");
  db.prepare(`INSERT INTO t (rowid, a, b, c) VALUES (?, ?, ?, ?)`).run(2, "five", "", "");
  db.prepare(`INSERT INTO t (t, rowid, a, b, c) VALUES ('delete', ?, ?, ?, ?)`).run(1, "one two three", "", "four");
  const block = db.prepare(`SELECT block FROM t_data WHERE id = 1`).pluck().get() as Buffer;
  assert.deepEqual(ftsAverages(block), { rows: 1, columnTotals: [1, 0, 0] }, "what the delete took away is no longer counted");
  db.close();
});

test("a search of the whole index is its terms' lists summed, weights multiplying, best first, ties by row", async () => {
  const { topSums } = await import("./sqlite-text-index.js");
  const list = (rows: number[], scores: number[]) => ({ rows: Int32Array.from(rows), scores: Float64Array.from(scores) });
  const lists = [list([1, 4, 7, 9], [1, 2, 3, 0.5]), list([2, 4, 9], [2, 1, 2.5])];
  assert.deepEqual(topSums(lists, [1, 1], 10), [[4, 3], [7, 3], [9, 3], [2, 2], [1, 1]]);
  // Rows 2 and 4 tie at 4 for the second place: the lower row first, as FTS5 orders them.
  assert.deepEqual(topSums(lists, [1, 2], 2), [[9, 5.5], [2, 4]]);
  assert.deepEqual(topSums(lists, [1, 1], 0), []);
  assert.deepEqual(topSums([], [], 5), []);
});

test("how many clips hold a word, and its scores, are read again after this connection's writes and after another connection's commits", async () => {
  const path = freshPath();
  const store = openSqliteStore(path);
  const other = openSqliteStore(path);
  try {
    // "make" in 950 of 2,000 clips: under half, so it is searched and adds to the pancake clips' scores.
    const texts = (count: number, from: number, withMake: (index: number) => boolean): string[] =>
      Array.from({ length: count }, (_, index) => `${withMake(index) ? "make" : "stir"} it ${from + index}${from + index < 20 ? " pancake" : ""}`);
    await store.commitVideo(sampleVideo("a", texts(2_000, 0, (index) => index < 950)));
    const best = async (words: string): Promise<string> => {
      const [match] = await store.searchClips({ terms: words.split(" ").map((text) => ({ text, weight: 1 })), limit: 10 });
      return `${match?.clipIndex} ${match?.score.toFixed(9)}`;
    };
    assert.notEqual(await best("make pancake"), await best("pancake"), "under half the clips: make counts");
    // Another process commits 200 clips with make: 1,150 of 2,200, over half: make is left out.
    await other.commitVideo(sampleVideo("b", texts(200, 2_000, () => true)));
    assert.equal(await best("make pancake"), await best("pancake"), "over half once the other connection committed");
    // The pancake clips' scores moved with the other connection's rows (more clips, a rarer word): as a fresh connection reads them.
    const fresh = openSqliteStore(path);
    try {
      const [match] = await fresh.searchClips({ terms: [{ text: "pancake", weight: 1 }], limit: 10 });
      assert.equal(await best("pancake"), `${match?.clipIndex} ${match?.score.toFixed(9)}`);
    } finally {
      await fresh.close();
    }
    // This connection removes them again: under half, counted again.
    await store.removeVideo("b");
    assert.notEqual(await best("make pancake"), await best("pancake"), "under half again after this connection's removal");
  } finally {
    await other.close();
    await store.close();
  }
});
