// The SQLite library schema and its migrations, versioned with `PRAGMA user_version`.

import type Database from "better-sqlite3";
import { VideoRagError, type Segment } from "../../spec/index.js";
import type { IndexedTextOptions } from "../../text/index.js";
import {
  deflateSegmentBlocks,
  encodeExcerpt,
  encodeFrames,
  encodeSegmentBlocks,
  excerptSource,
  packChunkText,
  SegmentText,
  transcriptRuns,
  type PieceSource,
} from "../packed-text.js";
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

/**
 * Version 7: each text once. Measured on the 8,648 how-to transcripts (`scripts/bench-transcripts.ts`; 37.9 MB of clip
 * transcript text, 38.3 MB of files), MB by table with its indexes:
 *
 *                        version 6   version 7
 *   segments                 119.5        25.6   (rows and two indexes → deflated blocks)
 *   relation sources          48.0         9.4   (descriptions quoted their chunk)
 *   entity sources            41.9         8.3
 *   chunks                    47.5         3.4   (their clips' text again, with times and labels)
 *   clips                     44.5         4.6   (their segments' text again)
 *   FTS: clips, videos, entities  46.5    46.5   (unchanged: BM25 and phrase queries need them as they are)
 *   entities                  13.8        12.8
 *   relations                  7.5         7.5
 *   videos and the rest        2.7         2.7
 *   file                     375.3       124.2   (9.9x → 3.3x the text; 116.4 when migrated, after its VACUUM)
 *
 * The transcript was there three times (segments, clips, chunks), the graph's sources quoted their chunks again, and
 * of the segments' 82 bytes a row half went to two indexes, a 'transcript' string and the row's own numbers. Now (see
 * ../packed-text.ts):
 * - segments are stored as blocks of 256 per video (`segment_blocks`), deflated, with the bounds of their times so a
 *   time window reads only the blocks it can touch;
 * - a clip's transcript is a run of its video's speech segments (`transcript_first`, `transcript_last`, positions in
 *   the order the segments were written), `transcript` then '';
 * - a chunk's text is pieces of the text of the segments in its time span (`packed_text`): a reference per clip, and
 *   the times and labels between them; `text` then '';
 * - a graph source's description is pieces of its chunk's text (`excerpt`), `description` then ''; the sources tables
 *   are WITHOUT ROWID on what was their unique index, which no longer has to be stored beside them;
 * - `entities_by_change` goes: since version 6 the next change sequence comes from `sequences`, and nothing reads
 *   entities by it except through the stale index.
 * Each packed form is checked by decoding it when written, and the text is stored as given when it does not come back
 * exactly, so every Store method returns what it did (checked method by method against version 6 on the whole
 * library). A write that moves a video's segments re-derives what was derived from them (see the store's writeBack).
 * What it costs, measured against version 6 on the same library with the two stores taking turns question by question:
 * reading a clip's or a chunk's text inflates its video's block (~8 µs; decoded blocks are kept, checked against the
 * stored bytes), so a graph search, which reads some forty videos, takes ~0.8 ms longer at p50 (6.8 → 7.5 ms) and a
 * hybrid one ~0.7 ms (14.5 → 15.2 ms); ranking videos and their moments (what `ask` waits for) and naive search are as
 * fast as before, and so is ingest. Describing every entity of this library takes ~17 s instead of ~7 s: a popular
 * entity's sources are in thousands of videos, each inflated to read its excerpt.
 * The text columns stay NOT NULL ('' when packed) because SQLite cannot drop a NOT NULL constraint in place and
 * rebuilding `chunks` would cascade-delete the sources that reference it. The freed pages are returned by a VACUUM
 * right after the migration (see `migrate`).
 */
function schemaV7(db: Database.Database): void {
  db.exec(`
CREATE TABLE segment_blocks (
  video_key INTEGER NOT NULL REFERENCES videos (key) ON DELETE CASCADE,
  block_index INTEGER NOT NULL,
  min_start_second REAL NOT NULL,
  max_start_second REAL NOT NULL,
  max_end_second REAL NOT NULL,
  segments BLOB NOT NULL,
  PRIMARY KEY (video_key, block_index)
);
ALTER TABLE clips ADD COLUMN transcript_first INTEGER;
ALTER TABLE clips ADD COLUMN transcript_last INTEGER;
ALTER TABLE chunks ADD COLUMN packed_text BLOB;

CREATE TABLE entity_sources_v7 (
  entity_key INTEGER NOT NULL REFERENCES entities (key) ON DELETE CASCADE,
  video_key INTEGER NOT NULL,
  chunk_index INTEGER NOT NULL,
  description TEXT NOT NULL,
  excerpt BLOB,
  PRIMARY KEY (entity_key, video_key, chunk_index),
  FOREIGN KEY (video_key, chunk_index) REFERENCES chunks (video_key, chunk_index) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE TABLE relation_sources_v7 (
  relation_key INTEGER NOT NULL REFERENCES relations (key) ON DELETE CASCADE,
  video_key INTEGER NOT NULL,
  chunk_index INTEGER NOT NULL,
  description TEXT NOT NULL,
  excerpt BLOB,
  strength REAL NOT NULL,
  PRIMARY KEY (relation_key, video_key, chunk_index),
  FOREIGN KEY (video_key, chunk_index) REFERENCES chunks (video_key, chunk_index) ON DELETE CASCADE
) WITHOUT ROWID;
DROP INDEX entities_by_change;
`);
  const insertBlock = db.prepare(`INSERT INTO segment_blocks (video_key, block_index, min_start_second, max_start_second,
    max_end_second, segments) VALUES (?, ?, ?, ?, ?, ?)`);
  const videoSegments = db.prepare(`SELECT start_second, end_second, text, source, clip_index FROM segments
    WHERE video_key = ? ORDER BY rowid`);
  const videoClips = db.prepare(`SELECT key, clip_index, transcript, screen, visual FROM clips WHERE video_key = ?
    ORDER BY clip_index`);
  const setRun = db.prepare(`UPDATE clips SET transcript = '', transcript_first = ?, transcript_last = ? WHERE key = ?`);
  const videoChunks = db.prepare(`SELECT key, chunk_index, start_second, end_second, text FROM chunks WHERE video_key = ?`);
  const setPacked = db.prepare(`UPDATE chunks SET text = '', packed_text = ? WHERE key = ?`);
  const entitySources = db.prepare(`SELECT entity_key, chunk_index, description FROM entity_sources WHERE video_key = ?`);
  const relationSources = db.prepare(`SELECT relation_key, chunk_index, description, strength FROM relation_sources
    WHERE video_key = ?`);
  const insertEntitySource = db.prepare(`INSERT INTO entity_sources_v7 (entity_key, video_key, chunk_index, description,
    excerpt) VALUES (?, ?, ?, ?, ?)`);
  const insertRelationSource = db.prepare(`INSERT INTO relation_sources_v7 (relation_key, video_key, chunk_index,
    description, excerpt, strength) VALUES (?, ?, ?, ?, ?, ?)`);
  const videoKeys = db.prepare(`SELECT key FROM videos`).pluck().all() as number[];
  for (const videoKey of videoKeys) {
    const segments = (
      videoSegments.all(videoKey) as { start_second: number; end_second: number; text: string; source: string; clip_index: number | null }[]
    ).map(
      (row): Segment => ({
        startSecond: row.start_second,
        endSecond: row.end_second,
        text: row.text,
        source: row.source as Segment["source"],
        ...(row.clip_index === null ? {} : { clipIndex: row.clip_index }),
      }),
    );
    for (const block of encodeSegmentBlocks(segments, deflateSegmentBlocks)) {
      insertBlock.run(videoKey, block.blockIndex, block.minStartSecond, block.maxStartSecond, block.maxEndSecond, block.data);
    }
    const clips = videoClips.all(videoKey) as { key: number; clip_index: number; transcript: string; screen: string; visual: string }[];
    transcriptRuns(clips.map((clip) => clip.transcript), segments).forEach((run, index) => {
      if (run) setRun.run(run.first, run.last, (clips[index] as { key: number }).key);
    });
    const chunkTexts = new Map<number, PieceSource>();
    const segmentText = new SegmentText(segments);
    type ChunkRow = { key: number; chunk_index: number; start_second: number; end_second: number; text: string };
    for (const chunk of videoChunks.all(videoKey) as ChunkRow[]) {
      const packed = packChunkText(chunk.text, segmentText, chunk.start_second, chunk.end_second);
      if (packed) setPacked.run(packed, chunk.key);
      chunkTexts.set(chunk.chunk_index, excerptSource(chunk.text));
    }
    const excerpt = (chunkIndex: number, description: string): [string, Buffer | null] => {
      const source = chunkTexts.get(chunkIndex);
      const encoded = source ? encodeExcerpt(description, source) : undefined;
      return encoded ? ["", encoded] : [description, null];
    };
    for (const row of entitySources.all(videoKey) as { entity_key: number; chunk_index: number; description: string }[]) {
      insertEntitySource.run(row.entity_key, videoKey, row.chunk_index, ...excerpt(row.chunk_index, row.description));
    }
    for (const row of relationSources.all(videoKey) as { relation_key: number; chunk_index: number; description: string; strength: number }[]) {
      insertRelationSource.run(row.relation_key, videoKey, row.chunk_index, ...excerpt(row.chunk_index, row.description), row.strength);
    }
  }
  db.exec(`
DROP TABLE segments;
DROP TABLE entity_sources;
DROP TABLE relation_sources;
ALTER TABLE entity_sources_v7 RENAME TO entity_sources;
ALTER TABLE relation_sources_v7 RENAME TO relation_sources;
CREATE INDEX entity_sources_by_video ON entity_sources (video_key, chunk_index);
CREATE INDEX relation_sources_by_video ON relation_sources (video_key, chunk_index);
`);
}

/**
 * Version 8: the entity index keeps its text. FTS5 tables with `contentless_delete=1` never take a deleted row out of
 * bm25's row count and token totals (SQLite 3.49.2: two rows, one deleted, still counts two), and every entity's row is
 * deleted and written again when it is described or gains an alias, so its statistics drifted: after describing 3,973
 * entities `entity_fts` counted 7,946 rows, and entity search ranked by them. A regular FTS5 table deletes exactly, for
 * the price of keeping the names and descriptions twice (about 8 MB on the 8,648-transcript library). The clip and video
 * indexes keep their rows until a video is removed, re-ingested or written back; they stay contentless (see README).
 */
const schemaV8 = `
DROP TABLE entity_fts;
CREATE VIRTUAL TABLE entity_fts USING fts5 (
  name, description,
  tokenize = 'porter unicode61 remove_diacritics 2'
);
INSERT INTO entity_fts (rowid, name, description)
  SELECT e.key, CASE WHEN a.aliases IS NULL THEN e.name ELSE e.name || char(10) || a.aliases END, e.description
  FROM entities e LEFT JOIN (SELECT entity_key, group_concat(name, char(10)) AS aliases FROM entity_aliases GROUP BY entity_key) a
    ON a.entity_key = e.key;
`;

/**
 * Version 9: the three lexical indexes are contentless and forget a row exactly. `contentless_delete=1` never took a
 * deleted row out of bm25's row count and token totals (see version 8), so the clip and video indexes drifted each time
 * a video was removed, re-ingested or written back, and version 8 kept a second copy of every entity's names and
 * description (10.6 MB of the 131.5 MB how-to library) to avoid it for entities. A plain contentless table is told a
 * row's words when it is deleted (FTS5's 'delete' command), which keeps every statistic exact; the store reads the
 * words back from what it kept (clip text, the video's clips, the entity's names and description) before it changes
 * them. The indexes are rebuilt from that text here, which also repairs the drift of a library written before.
 *
 * Kept frames become one value per video (`frame_lists`, see `encodeFrames`): they are only ever read a video and a
 * time window at a time, and a row each (with its index) was 16% of a synthetic library (`npm run bench scale`).
 */
function schemaV9(db: Database.Database, hooks: MigrationHooks): void {
  db.exec(`
DROP TABLE clip_fts;
DROP TABLE video_fts;
DROP TABLE entity_fts;
CREATE VIRTUAL TABLE clip_fts USING fts5 (
  transcript, screen, visual, video,
  tokenize = 'porter unicode61 remove_diacritics 2', content = ''
);
CREATE VIRTUAL TABLE video_fts USING fts5 (
  transcript, screen, visual, video,
  tokenize = 'porter unicode61 remove_diacritics 2', content = ''
);
CREATE VIRTUAL TABLE entity_fts USING fts5 (
  name, description,
  tokenize = 'porter unicode61 remove_diacritics 2', content = ''
);
CREATE TABLE frame_lists (
  video_key INTEGER PRIMARY KEY REFERENCES videos (key) ON DELETE CASCADE,
  frames BLOB NOT NULL
);
`);
  hooks.rebuildLexicalIndexes(db);
  const insertFrames = db.prepare(`INSERT INTO frame_lists (video_key, frames) VALUES (?, ?)`);
  const videoFrames = db.prepare(`SELECT time_second, hash FROM frames WHERE video_key = ? ORDER BY time_second`);
  for (const videoKey of db.prepare(`SELECT DISTINCT video_key FROM frames`).pluck().all() as number[]) {
    const rows = videoFrames.all(videoKey) as { time_second: number; hash: string | null }[];
    insertFrames.run(videoKey, encodeFrames(rows.map((row) => ({ timeSecond: row.time_second, ...(row.hash === null ? {} : { hash: row.hash }) }))));
  }
  db.exec(`DROP TABLE frames`);
}

/**
 * Version 10: chapters, a video's stretches about one topic (topic segmentation of its text), each a BM25 document of its
 * own. `chapter_fts` is contentless like the other lexical indexes (version 9): a chapter's title, summary and text are
 * kept in `chapters`, from which a row is forgotten exactly. Its tokenizer is the clip index's, so a query's words stem
 * alike in both, and it carries the same `video` column of one token per video, so a search restricted to some videos
 * is an FTS5 AND, as for clips. A library from before gets the empty tables: its videos have no chapters until written.
 */
const schemaV10 = `
CREATE TABLE chapters (
  key INTEGER PRIMARY KEY,
  video_key INTEGER NOT NULL REFERENCES videos (key) ON DELETE CASCADE,
  chapter_index INTEGER NOT NULL,
  start_second REAL NOT NULL,
  end_second REAL NOT NULL,
  title TEXT NOT NULL,
  summary TEXT NOT NULL,
  text TEXT NOT NULL,
  made_by TEXT NOT NULL,
  UNIQUE (video_key, chapter_index)
);
CREATE VIRTUAL TABLE chapter_fts USING fts5 (
  title, summary, text, video,
  tokenize = 'porter unicode61 remove_diacritics 2', content = ''
);
`;

/**
 * Version 11: who speaks. A segment block may carry its segments' speakers (see `speakerColumns` in ../packed-text.ts);
 * blocks without them are written as before, so a library from before reads as it is. Beside the blocks:
 * - `segment_speakers`, the distinct speaker labels of each video's segments, written whenever its segments are, so a
 *   search by label (`findSpeakers`) reads an index instead of decoding every block of the library;
 * - `speaker_names`, the names a user gave to a video's labels: kept apart from the segments so that naming re-indexes
 *   nothing, and kept when the video is committed again from the same source.
 * Both are found by `*_key`, the text folded as `speakerKey` folds it (SQLite's lower() folds ASCII only). A library from
 * before has no speakers: nothing to build.
 */
const schemaV11 = `
CREATE TABLE segment_speakers (
  video_key INTEGER NOT NULL REFERENCES videos (key) ON DELETE CASCADE,
  label TEXT NOT NULL,
  label_key TEXT NOT NULL,
  PRIMARY KEY (video_key, label)
) WITHOUT ROWID;
CREATE INDEX segment_speakers_by_key ON segment_speakers (label_key);
CREATE TABLE speaker_names (
  video_key INTEGER NOT NULL REFERENCES videos (key) ON DELETE CASCADE,
  label TEXT NOT NULL,
  name TEXT NOT NULL,
  name_key TEXT NOT NULL,
  PRIMARY KEY (video_key, label)
) WITHOUT ROWID;
CREATE INDEX speaker_names_by_key ON speaker_names (name_key);
`;

/**
 * Version 12: the voices a diarizer found in each video (`speaker_voices`, one row a label): their turns, so speech
 * recognised later is labelled without diarizing again, and a voice vector where the diarizer gives one, so the same
 * voice is sought across videos. Kept with the names when a video is committed again from the same source.
 */
const schemaV12 = `
CREATE TABLE speaker_voices (
  video_key INTEGER NOT NULL REFERENCES videos (key) ON DELETE CASCADE,
  label TEXT NOT NULL,
  diarized_by TEXT NOT NULL,
  turns TEXT NOT NULL,
  vector BLOB,
  PRIMARY KEY (video_key, label)
) WITHOUT ROWID;
`;

/**
 * Version 13: the language a video speaks or shows (ISO 639-1), null where nothing could tell it (every video from
 * before: nothing to build).
 */
const schemaV13 = `ALTER TABLE videos ADD COLUMN language TEXT;`;

/**
 * Version 14: runs of Chinese, Japanese and Korean characters are indexed as their overlapping character pairs
 * (src/text/indexed-text.ts), so a word inside a line is found. The four lexical indexes are emptied and built again
 * from the text the store keeps (every other text is indexed as before: English ranks exactly as it did), as version
 * 14 wrote it: Thai, Lao, Khmer and Burmese runs whole, which version 16 then forgets.
 */
function schemaV14(db: Database.Database, hooks: MigrationHooks): void {
  for (const table of ["clip_fts", "video_fts", "entity_fts", "chapter_fts"]) db.exec(`INSERT INTO ${table} (${table}) VALUES ('delete-all')`);
  hooks.rebuildLexicalIndexes(db, { spacelessAsRuns: true });
}

/**
 * Version 15: the language of each segment. A segment block may carry its segments' languages (see `languageColumns`
 * in ../packed-text.ts); blocks without them are written as before, so a library from before reads as it is, its
 * segments without a language (its videos keep theirs). Nothing to build: the version is what keeps an older videorag,
 * which would refuse such a block, from opening the file.
 */
const schemaV15 = ``;

/**
 * Version 16: runs of Thai, Lao, Khmer and Burmese are indexed as the words Intl.Segmenter finds in them, their marks
 * kept in the word (src/text/indexed-text.ts), so a word inside a line is found. Only the rows holding such text are
 * forgotten as version 15 indexed them and indexed again; the others keep their tokens (English ranks exactly as it did).
 */
function schemaV16(db: Database.Database, hooks: MigrationHooks): void {
  hooks.reindexSpaceless(db);
}

/** What a migration needs from the store: indexing text again reads packed text, which the store decodes. */
export interface MigrationHooks {
  /** Fills the emptied lexical indexes, text written as `form` says (as now, unless a later version indexes again). */
  rebuildLexicalIndexes(db: Database.Database, form?: IndexedTextOptions): void;
  reindexSpaceless(db: Database.Database): void;
}

/** Migrations by the version they lead to; index 0 creates version 1. */
const migrations: (string | ((db: Database.Database, hooks: MigrationHooks) => void))[] = [
  schemaV1, schemaV2, schemaV3, schemaV4, schemaV5, schemaV6, schemaV7, schemaV8, schemaV9, schemaV10, schemaV11, schemaV12, schemaV13, schemaV14,
  schemaV15, schemaV16,
];

export const schemaVersion = migrations.length;

const noHooks: MigrationHooks = {
  rebuildLexicalIndexes() {
    throw new Error("migrating to schema 9 needs the store's rebuildLexicalIndexes");
  },
  reindexSpaceless() {
    throw new Error("migrating to schema 16 needs the store's reindexSpaceless");
  },
};

/**
 * Brings the file to the current schema (tests: to an earlier `version`, to build a file as that version wrote it),
 * inside one write transaction so two processes opening a new file agree.
 */
export function migrate(db: Database.Database, path: string, version = schemaVersion, hooks: MigrationHooks = noHooks): void {
  const current = db.pragma("user_version", { simple: true }) as number;
  if (current > schemaVersion) {
    throw new VideoRagError(
      "STORE_FAILED",
      `the library was written by a newer videorag (schema ${current}, this one knows ${schemaVersion})`,
      { subject: path },
    );
  }
  if (current >= version) return;
  const repacked = db.transaction(() => {
    // Re-read inside the lock: another process may have migrated while this one waited.
    const locked = db.pragma("user_version", { simple: true }) as number;
    for (let next = locked; next < version; next++) {
      const migration = migrations[next] ?? "";
      if (typeof migration === "string") db.exec(migration);
      else migration(db, hooks);
    }
    db.pragma(`user_version = ${Math.max(locked, version)}`);
    // A new file has nothing to give back; one from before version 7 has most of its pages free now.
    return locked > 0 && locked < 7 && version >= 7;
  }).immediate();
  if (repacked) vacuumAfterRepacking(db);
}

/**
 * Gives the pages version 7 freed back to the file system (about two thirds of a library): the point of that version
 * is a smaller file, and SQLite would otherwise only reuse them as the library grows. VACUUM cannot run while another
 * connection reads, and it may not have the disk space for its copy; then the library stays as it is, whole and
 * correct, and its free pages are reused.
 */
function vacuumAfterRepacking(db: Database.Database): void {
  try {
    db.exec("VACUUM");
  } catch {
    // Not worth failing the open for; see above.
  }
}
