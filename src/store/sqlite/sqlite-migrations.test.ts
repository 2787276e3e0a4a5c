// SQLite libraries written by earlier schemas (9 on), opened by this one: what each migration keeps of them and what
// they gain. The earlier schemas' migrations are tested beside the store's other file-level behaviour
// (sqlite-store.test.ts).

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import Database from "better-sqlite3";
import { chapterVideos, lexicalScores, query as lexicalQuery, sampleVideo, unspacedLibrary } from "../conformance/index.js";
import { schemaVersion } from "./sqlite-schema.js";
import { openSqliteStore, rebuildLexicalIndexes } from "./sqlite-store.js";

const dir = mkdtempSync(join(tmpdir(), "videorag-migrations-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let fileCount = 0;
const freshPath = (): string => join(dir, `library-${++fileCount}.sqlite`);

test("a library written with schema 9 opens with chapters: its videos stay, and chapters are written and searched", async () => {
  const path = freshPath();
  const store = openSqliteStore(path);
  await store.commitVideo(sampleVideo("old", ["kneading the dough", "baking the loaf"]));
  await store.close();
  const raw = new Database(path);
  raw.exec(`DROP TABLE chapters; DROP TABLE chapter_fts; DROP TABLE segment_speakers; DROP TABLE speaker_names; DROP TABLE speaker_voices; ALTER TABLE videos DROP COLUMN language; PRAGMA user_version = 9`);
  raw.close();
  const migrated = openSqliteStore(path);
  try {
    assert.equal((await migrated.getVideo("old"))?.clipCount, 2);
    assert.deepEqual(await migrated.getChapters("old"), []);
    assert.equal((await migrated.searchClips({ terms: [{ text: "bake", weight: 1 }], limit: 5 }))[0]?.clipIndex, 1);
    const { bread } = chapterVideos();
    await migrated.commitVideo(bread);
    assert.deepEqual(await migrated.getChapters("bread"), bread.chapters);
    assert.equal((await migrated.searchChapters({ terms: [{ text: "baking", weight: 1 }], limit: 5 }))[0]?.chapterIndex, 1);
  } finally {
    await migrated.close();
  }
  const reopened = new Database(path);
  assert.equal(reopened.pragma("user_version", { simple: true }), schemaVersion);
  reopened.close();
});

test("a library written with schema 10 opens with speakers: its blocks read as written, and new segments carry who speaks", async () => {
  const path = freshPath();
  const store = openSqliteStore(path);
  const old = sampleVideo("old", ["kneading the dough", "baking the loaf"]);
  await store.commitVideo(old);
  await store.close();
  const raw = new Database(path);
  raw.exec(`DROP TABLE segment_speakers; DROP TABLE speaker_names; DROP TABLE speaker_voices; ALTER TABLE videos DROP COLUMN language; PRAGMA user_version = 10`);
  const blocks = raw.prepare(`SELECT segments FROM segment_blocks`).pluck().all() as Buffer[];
  raw.close();
  assert.deepEqual(blocks.map((block) => block[0]), [1], "a deflated block in the format of before");
  const migrated = openSqliteStore(path);
  try {
    assert.deepEqual(await migrated.getSegments("old", 0, 60), old.segments);
    assert.deepEqual(await migrated.speakerNames("old"), {});
    assert.deepEqual(await migrated.findSpeakers("Speaker 1"), []);
    await migrated.writeBack({
      videoId: "old",
      documents: [],
      replaces: [],
      segments: [{ startSecond: 40, endSecond: 44, text: "golden crust", source: "speech", speaker: "Speaker 1", clipIndex: 1 }],
      vectors: [],
      stages: [],
    });
    await migrated.setSpeakerName("old", "Speaker 1", "Dana");
    assert.deepEqual(await migrated.findSpeakers("dana"), [{ videoId: "old", label: "Speaker 1", name: "Dana" }]);
    assert.deepEqual((await migrated.getSegments("old", 30, 60)).map((segment) => segment.speaker), [undefined, "Speaker 1"]);
  } finally {
    await migrated.close();
  }
  const reopened = new Database(path);
  assert.equal(reopened.pragma("user_version", { simple: true }), schemaVersion);
  reopened.close();
});

test("a library written with schema 11 opens with room for voices: its names stay, and voices are kept", async () => {
  const path = freshPath();
  const store = openSqliteStore(path);
  const old = sampleVideo("old", ["kneading the dough", "baking the loaf"]);
  await store.commitVideo({ ...old, segments: old.segments.map((segment) => ({ ...segment, speaker: "Speaker 1" })) });
  await store.setSpeakerName("old", "Speaker 1", "Dana");
  await store.close();
  const raw = new Database(path);
  raw.exec(`DROP TABLE speaker_voices; ALTER TABLE videos DROP COLUMN language; PRAGMA user_version = 11`);
  raw.close();
  const migrated = openSqliteStore(path);
  try {
    assert.deepEqual(await migrated.speakerNames("old"), { "Speaker 1": "Dana" });
    assert.equal(await migrated.speakerVoices("old"), undefined);
    await migrated.setSpeakerVoices("old", { key: "k", voices: [{ label: "Speaker 1", turns: [[0, 60]] }] });
    assert.deepEqual(await migrated.speakerVoices("old"), { key: "k", voices: [{ label: "Speaker 1", turns: [[0, 60]] }] });
  } finally {
    await migrated.close();
  }
  const reopened = new Database(path);
  assert.equal(reopened.pragma("user_version", { simple: true }), schemaVersion);
  reopened.close();
});

test("a library written with schema 12 opens with a language per video: none for its videos, the given one for new ones", async () => {
  const path = freshPath();
  const store = openSqliteStore(path);
  await store.commitVideo(sampleVideo("old", ["kneading the dough"]));
  await store.close();
  const raw = new Database(path);
  raw.exec(`ALTER TABLE videos DROP COLUMN language; PRAGMA user_version = 12`);
  raw.close();
  const migrated = openSqliteStore(path);
  try {
    assert.equal((await migrated.getVideo("old"))?.language, undefined);
    const german = sampleVideo("neu", ["den Teig kneten"]);
    await migrated.commitVideo({ ...german, video: { ...german.video, language: "de" } });
    assert.equal((await migrated.getVideo("neu"))?.language, "de");
  } finally {
    await migrated.close();
  }
});

test("a library written with schema 13 is indexed again when it opens, so a Chinese word inside a line is found", async () => {
  const path = freshPath();
  const store = openSqliteStore(path);
  await store.commitVideo(sampleVideo("zh", ["我们明天去东京旅行", "kneading the dough"]));
  await store.close();
  // What schema 13 held for it is not rebuilt here; its indexes are emptied, which the migration must fill again.
  const raw = new Database(path);
  for (const table of ["clip_fts", "video_fts", "entity_fts", "chapter_fts"]) raw.exec(`INSERT INTO ${table} (${table}) VALUES ('delete-all')`);
  raw.exec(`PRAGMA user_version = 13`);
  raw.close();
  const migrated = openSqliteStore(path);
  try {
    assert.deepEqual((await migrated.searchClips(lexicalQuery("东京"))).map((match) => match.clipIndex), [0]);
    assert.deepEqual((await migrated.searchClips(lexicalQuery("dough"))).map((match) => match.clipIndex), [1]);
  } finally {
    await migrated.close();
  }
});

test("a library written with schema 14 opens with a language per segment: its blocks read as written, and new segments carry theirs", async () => {
  const path = freshPath();
  const store = openSqliteStore(path);
  const old = sampleVideo("old", ["kneading the dough", "baking the loaf"]);
  await store.commitVideo(old);
  await store.close();
  const raw = new Database(path);
  raw.exec(`PRAGMA user_version = 14`);
  const blocks = raw.prepare(`SELECT segments FROM segment_blocks`).pluck().all() as Buffer[];
  raw.close();
  assert.deepEqual(blocks.map((block) => block[0]), [1], "a deflated block in the format of schema 14");
  const migrated = openSqliteStore(path);
  try {
    assert.deepEqual(await migrated.getSegments("old", 0, 60), old.segments);
    await migrated.writeBack({
      videoId: "old",
      documents: [],
      replaces: [],
      segments: [{ startSecond: 40, endSecond: 44, text: "eine goldene Kruste", source: "speech", language: "de", clipIndex: 1 }],
      vectors: [],
      stages: [],
    });
    assert.deepEqual((await migrated.getSegments("old", 30, 60)).map((segment) => segment.language), [undefined, "de"]);
  } finally {
    await migrated.close();
  }
  const reopened = new Database(path);
  assert.equal(reopened.pragma("user_version", { simple: true }), schemaVersion);
  assert.deepEqual((reopened.prepare(`SELECT segments FROM segment_blocks`).pluck().all() as Buffer[]).map((block) => block[0]), [5], "the block now says its languages follow");
  reopened.close();
});

for (const version of [13, 15]) {
  test(`a library written with schema ${version} finds a Thai word inside a line when it opens: every score equals a library built now`, async () => {
    const path = freshPath();
    const { videos, searches } = unspacedLibrary();
    const store = openSqliteStore(path);
    for (const video of videos) await store.commitVideo(video);
    await store.close();
    // Schema 15 indexed Thai runs whole (as 14 did); schema 13's indexes are emptied, for its migration to fill again.
    const raw = new Database(path);
    raw.transaction(() => {
      for (const table of ["clip_fts", "video_fts", "entity_fts", "chapter_fts"]) raw.exec(`INSERT INTO ${table} (${table}) VALUES ('delete-all')`);
      if (version === 15) rebuildLexicalIndexes(raw, { spacelessAsRuns: true });
    })();
    raw.pragma(`user_version = ${version}`);
    raw.close();
    const migrated = openSqliteStore(path);
    const fresh = openSqliteStore(":memory:");
    try {
      for (const video of videos) await fresh.commitVideo(video);
      for (const words of searches) assert.deepEqual(await lexicalScores(migrated, words), await lexicalScores(fresh, words), words);
      assert.deepEqual((await migrated.searchClips(lexicalQuery("ข้าวผัด"))).map((match) => `${match.videoId}:${match.clipIndex}`), ["th:1", "th:0"]);
      assert.equal((await migrated.searchChapters(lexicalQuery("ร้าน")))[0]?.videoId, "th");
      assert.equal((await migrated.searchEntities(lexicalQuery("ร้าน")))[0]?.name, "ร้านข้าวผัด");
    } finally {
      await migrated.close();
      await fresh.close();
    }
  });
}
