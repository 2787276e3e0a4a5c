// The SQLite library schema and its migrations, versioned with `PRAGMA user_version`.

import type Database from "better-sqlite3";
import { VideoRagError } from "../../spec/index.js";
import { bytesVector, vectorBuckets } from "./vector-buckets.js";

/**
 * Both FTS5 tables are contentless with `contentless_delete=1`: the text already lives in `clips`, so storing it a second
 * time (a regular FTS5 table) would double the file, and an external-content table must be handed the old text again to
 * delete a row, which re-tokenises it. Measured on 8,648 transcripts (104k clips) the two build equally fast (6.2 s vs
 * 6.3 s) and are equally large (133 MB); contentless deletes are the simpler and cheaper ones.
 *
 * Each FTS table carries a `video` column holding one token per video (`k<key>`), so a search restricted to some videos
 * is an FTS5 AND with their tokens: the engine skips through the long posting lists instead of scoring every match.
 */
const schemaV1 = `
CREATE TABLE videos (
  key INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  status TEXT NOT NULL CHECK (status IN ('pending', 'ready')),
  path TEXT,
  title TEXT,
  kind TEXT CHECK (kind IN ('media', 'transcript')),
  duration_seconds REAL,
  size_bytes INTEGER,
  width INTEGER,
  height INTEGER,
  has_audio INTEGER,
  has_video INTEGER,
  times_estimated INTEGER,
  ingested_at TEXT,
  clip_count INTEGER,
  fingerprint TEXT
);
CREATE INDEX videos_by_status ON videos (status, ingested_at);

CREATE TABLE clips (
  key INTEGER PRIMARY KEY,
  video_key INTEGER NOT NULL REFERENCES videos (key) ON DELETE CASCADE,
  clip_index INTEGER NOT NULL,
  start_second REAL NOT NULL,
  end_second REAL NOT NULL,
  transcript TEXT NOT NULL,
  screen TEXT NOT NULL,
  visual TEXT NOT NULL,
  UNIQUE (video_key, clip_index)
);

CREATE TABLE segments (
  video_key INTEGER NOT NULL REFERENCES videos (key) ON DELETE CASCADE,
  start_second REAL NOT NULL,
  end_second REAL NOT NULL,
  text TEXT NOT NULL,
  source TEXT NOT NULL
);
CREATE INDEX segments_by_time ON segments (video_key, start_second);

CREATE TABLE frames (
  video_key INTEGER NOT NULL REFERENCES videos (key) ON DELETE CASCADE,
  time_second REAL NOT NULL,
  hash TEXT
);
CREATE INDEX frames_by_time ON frames (video_key, time_second);

CREATE TABLE stages (
  video_key INTEGER NOT NULL REFERENCES videos (key) ON DELETE CASCADE,
  stage TEXT NOT NULL,
  key TEXT NOT NULL,
  output TEXT NOT NULL,
  PRIMARY KEY (video_key, stage)
);

CREATE VIRTUAL TABLE clip_fts USING fts5 (
  transcript, screen, visual, video,
  tokenize = 'porter unicode61 remove_diacritics 2', content = '', contentless_delete = 1
);
CREATE VIRTUAL TABLE video_fts USING fts5 (
  transcript, screen, visual, video,
  tokenize = 'porter unicode61 remove_diacritics 2', content = '', contentless_delete = 1
);
`;

/**
 * Version 2: vectors, in one plain table with the float32 bytes in a BLOB column, searched exactly by scanning a space
 * with sqlite-vec's `vec_distance_cosine`. Chosen over vec0 virtual tables (one per space and dimension), measured at
 * 100k × 384 with `scripts/bench-vectors.ts --compare` on a 2-core machine shared with other work: vec0 searches about
 * twice as fast (p50 of 20 queries, limit 20: 57–94 ms against 100–200 ms here, the same nearest neighbours) and its file
 * is a quarter smaller (160 MB against 207 MB); inserts are alike (2.4–2.9 s against 2.3–3.2 s). But
 * - a vec0 table can be neither written nor deleted from without the extension loaded, so a library opened where
 *   sqlite-vec is missing could not even remove a video; a plain table needs the extension only to search;
 * - vec0 has no upsert and no expression index, while here idempotency is one unique index and the filters (owner,
 *   videos) are plain SQL on the video index: a search restricted to 10 videos takes ~1.5 ms instead of a full scan;
 * - one table holds every dimension, with no DDL made up at run time.
 * 100k vectors are some 800 hours of 30-second clips; 100–200 ms at that size is within a question's budget. If it is
 * not one day, a vec0 index can be derived from this table without changing the file's source of truth.
 *
 * `time_second` is NULL for clip vectors, so the unique index reads it through `ifnull` (NULLs never collide in SQLite).
 * `vector_spaces` fixes each space's dimension; a space is dropped when its last vector goes, so it may come back with
 * another dimension.
 */
const schemaV2 = `
CREATE TABLE vector_spaces (
  key INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  dimensions INTEGER NOT NULL CHECK (dimensions > 0)
);

CREATE TABLE vectors (
  key INTEGER PRIMARY KEY,
  space_key INTEGER NOT NULL REFERENCES vector_spaces (key),
  video_key INTEGER NOT NULL REFERENCES videos (key) ON DELETE CASCADE,
  owner TEXT NOT NULL CHECK (owner IN ('clip', 'frame')),
  clip_index INTEGER NOT NULL,
  time_second REAL,
  vector BLOB NOT NULL
);
CREATE UNIQUE INDEX vectors_by_video ON vectors (video_key, space_key, owner, clip_index, ifnull(time_second, -1));
CREATE INDEX vectors_by_space ON vectors (space_key);
`;

/**
 * Version 3: the knowledge graph. Chunks belong to a video; entities and relations belong to the library, and each
 * remembers which chunks stated it in a `*_sources` table. Removing a video deletes its sources by the video index and then
 * only the entities and relations those sources named that are left with none, so removal costs what the video brought,
 * not the size of the graph (8,648 videos give some 300k source rows).
 *
 * - Sources reference their chunk by (video_key, chunk_index), so a source can never name a chunk that is not there, and
 *   the same index finds a video's sources. Their second index leads with the entity (or relation) and is unique: one
 *   row per chunk, and covering for "in how many videos" counts.
 * - `entities.key` is AUTOINCREMENT: a key is never reused, so a description synthesised for an entity that was removed
 *   meanwhile cannot land on a new entity that happened to get its key.
 * - `change_sequence` orders stale entities by their last change. It is a counter (the largest among stale entities plus
 *   one), not a clock, so a clock set back cannot reorder the backlog; the partial index holds stale entities only.
 * - Names merged by vector into another entity are kept in `entity_aliases`, so the next video that writes that name finds
 *   the entity by name, without a vector search. The alias's written name is kept for the entity's FTS row. An alias
 *   lives as long as its entity, even when the video that brought it goes: the merge was decided once.
 * - Merging by vector is an exact scan of the (space, type) range with sqlite-vec, so its cost grows with the entities
 *   of that type: measured on a 2-core machine at about 3 µs per stored 384-d vector for each name no entity has yet.
 * - `entity_vectors` carries the entity's type, so the merge search scans one (space, type) range by index; a vector per
 *   space, so changing the embedder adds vectors instead of mixing dimensions.
 * - Relations are undirected: stored once per pair with `source_key < target_key`.
 * - `entity_fts` is contentless like the clip indexes (rowid = entity key): its text is the entity's name and aliases and
 *   its synthesised description, rewritten whole (delete, then insert) whenever one of them changes.
 */
const schemaV3 = `
CREATE TABLE chunks (
  key INTEGER PRIMARY KEY,
  video_key INTEGER NOT NULL REFERENCES videos (key) ON DELETE CASCADE,
  chunk_index INTEGER NOT NULL,
  clip_start INTEGER NOT NULL,
  clip_end INTEGER NOT NULL,
  start_second REAL NOT NULL,
  end_second REAL NOT NULL,
  text TEXT NOT NULL,
  token_count INTEGER NOT NULL,
  UNIQUE (video_key, chunk_index)
);

CREATE TABLE entities (
  key INTEGER PRIMARY KEY AUTOINCREMENT,
  name_key TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  type TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  stale INTEGER NOT NULL DEFAULT 1,
  change_sequence INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX entities_stale ON entities (change_sequence) WHERE stale = 1;

CREATE TABLE entity_aliases (
  name_key TEXT PRIMARY KEY,
  entity_key INTEGER NOT NULL REFERENCES entities (key) ON DELETE CASCADE,
  name TEXT NOT NULL
);
CREATE INDEX entity_aliases_by_entity ON entity_aliases (entity_key);

CREATE TABLE entity_sources (
  entity_key INTEGER NOT NULL REFERENCES entities (key) ON DELETE CASCADE,
  video_key INTEGER NOT NULL,
  chunk_index INTEGER NOT NULL,
  description TEXT NOT NULL,
  FOREIGN KEY (video_key, chunk_index) REFERENCES chunks (video_key, chunk_index) ON DELETE CASCADE
);
CREATE UNIQUE INDEX entity_sources_by_entity ON entity_sources (entity_key, video_key, chunk_index);
CREATE INDEX entity_sources_by_video ON entity_sources (video_key, chunk_index);

CREATE TABLE entity_vectors (
  entity_key INTEGER NOT NULL REFERENCES entities (key) ON DELETE CASCADE,
  space TEXT NOT NULL,
  type TEXT NOT NULL,
  vector BLOB NOT NULL,
  PRIMARY KEY (entity_key, space)
);
CREATE INDEX entity_vectors_by_type ON entity_vectors (space, type);

CREATE TABLE relations (
  key INTEGER PRIMARY KEY,
  source_key INTEGER NOT NULL REFERENCES entities (key) ON DELETE CASCADE,
  target_key INTEGER NOT NULL REFERENCES entities (key) ON DELETE CASCADE,
  CHECK (source_key < target_key),
  UNIQUE (source_key, target_key)
);
CREATE INDEX relations_by_target ON relations (target_key);

CREATE TABLE relation_sources (
  relation_key INTEGER NOT NULL REFERENCES relations (key) ON DELETE CASCADE,
  video_key INTEGER NOT NULL,
  chunk_index INTEGER NOT NULL,
  description TEXT NOT NULL,
  strength REAL NOT NULL,
  FOREIGN KEY (video_key, chunk_index) REFERENCES chunks (video_key, chunk_index) ON DELETE CASCADE
);
CREATE UNIQUE INDEX relation_sources_by_relation ON relation_sources (relation_key, video_key, chunk_index);
CREATE INDEX relation_sources_by_video ON relation_sources (video_key, chunk_index);

CREATE VIRTUAL TABLE entity_fts USING fts5 (
  name, description,
  tokenize = 'porter unicode61 remove_diacritics 2', content = '', contentless_delete = 1
);
`;

/**
 * Version 4:
 * - entities' change sequence only grows (the next one is the largest so far plus one, found through this index), so a
 *   description written from sources read at one change can be refused once they changed again;
 * - each entity vector is filed in locality-sensitive buckets (see vector-buckets.ts), so merging a new name by meaning
 *   reads the vectors sharing a bucket with it instead of every vector of its type. Vectors already stored are filed.
 */
function schemaV4(db: Database.Database): void {
  db.exec(`
CREATE INDEX entities_by_change ON entities (change_sequence);

CREATE TABLE entity_vector_buckets (
  space TEXT NOT NULL,
  type TEXT NOT NULL,
  bucket INTEGER NOT NULL,
  entity_key INTEGER NOT NULL REFERENCES entities (key) ON DELETE CASCADE,
  PRIMARY KEY (space, type, bucket, entity_key)
) WITHOUT ROWID;
CREATE INDEX entity_vector_buckets_by_entity ON entity_vector_buckets (entity_key);
`);
  const file = db.prepare(`INSERT OR IGNORE INTO entity_vector_buckets (space, type, bucket, entity_key) VALUES (?, ?, ?, ?)`);
  const stored = db.prepare(`SELECT entity_key, space, type, vector FROM entity_vectors`).raw().all() as [number, string, string, Buffer][];
  for (const [entityKey, space, type, bytes] of stored) {
    for (const bucket of vectorBuckets(bytesVector(bytes))) file.run(space, type, bucket, entityKey);
  }
}

/**
 * Version 5: incremental extraction.
 * - Deferred stages are recorded per clip in `clip_stages` with the key of the settings they ran (or will run) under;
 *   a changed key is a pending stage again. The status index serves the planner's "what is left" and `status`.
 * - A segment remembers the clip whose extraction wrote it, so re-running a stage on a clip replaces exactly its text.
 *   Rows from before this version have none: they belong to the whole video.
 * - Clips carry the light index's signals (seconds of speech, picture changes) and how often questions asked for them.
 */
const schemaV5 = `
ALTER TABLE segments ADD COLUMN clip_index INTEGER;
CREATE INDEX segments_by_clip ON segments (video_key, clip_index, source);
ALTER TABLE clips ADD COLUMN speech_seconds REAL;
ALTER TABLE clips ADD COLUMN speech_regions TEXT;
ALTER TABLE clips ADD COLUMN screen_changes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE clips ADD COLUMN asked INTEGER NOT NULL DEFAULT 0;
CREATE TABLE clip_stages (
  video_key INTEGER NOT NULL REFERENCES videos (key) ON DELETE CASCADE,
  clip_index INTEGER NOT NULL,
  stage TEXT NOT NULL,
  key TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'done', 'failed')),
  error TEXT,
  PRIMARY KEY (video_key, clip_index, stage)
) WITHOUT ROWID;
CREATE INDEX clip_stages_by_status ON clip_stages (status, video_key, clip_index);
CREATE INDEX clip_stages_by_stage ON clip_stages (stage, key);
`;

/**
 * Version 6: change sequences come from a counter that only grows. Taken as max + 1, the sequence went back when the
 * entity holding the largest one was removed, and a description read before could then pass as current.
 */
const schemaV6 = `
CREATE TABLE sequences (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO sequences (name, value) SELECT 'entity-change', coalesce(max(change_sequence), 0) FROM entities;
`;

/** Migrations by the version they lead to; index 0 creates version 1. */
const migrations: (string | ((db: Database.Database) => void))[] = [schemaV1, schemaV2, schemaV3, schemaV4, schemaV5, schemaV6];

export const schemaVersion = migrations.length;

/** Brings the file to the current schema, inside one write transaction so two processes opening a new file agree. */
export function migrate(db: Database.Database, path: string): void {
  const current = db.pragma("user_version", { simple: true }) as number;
  if (current > schemaVersion) {
    throw new VideoRagError(
      "STORE_FAILED",
      `the library was written by a newer videorag (schema ${current}, this one knows ${schemaVersion})`,
      { subject: path },
    );
  }
  if (current === schemaVersion) return;
  db.transaction(() => {
    // Re-read inside the lock: another process may have migrated while this one waited.
    const locked = db.pragma("user_version", { simple: true }) as number;
    for (let version = locked; version < schemaVersion; version++) {
      const migration = migrations[version] ?? "";
      if (typeof migration === "string") db.exec(migration);
      else migration(db);
    }
    db.pragma(`user_version = ${schemaVersion}`);
  }).immediate();
}
