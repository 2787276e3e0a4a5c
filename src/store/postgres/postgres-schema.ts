// The Postgres library schema and its migrations, versioned in `videorag_schema` like SQLite's `user_version`.

import type { PoolClient } from "pg";
import { VideoRagError } from "../../spec/index.js";

/**
 * Version 1: the tables of SQLite's schema 6, with Postgres's own tools where they fit.
 * - Keys are identity columns, never reused, so a description synthesised for a removed entity cannot land on a new one.
 * - Change sequences come from a real sequence (`entity_change`), safe between writers on several machines.
 * - Vectors are pgvector `vector` values of any dimension in one table; each space gets a partial HNSW index on its
 *   vectors cast to the space's dimension when it is created (see postgres-vectors.ts), dropped with the space.
 * - BM25 is computed in SQL from term statistics (see lexical-index.ts): every document (clip, whole video, entity) keeps
 *   its distinct terms as integer ids with their counts per field packed in one integer, in `lexical_docs`, found
 *   through a GIN index on the ids; `lexical_terms` / `lexical_totals` hold the ids, document frequencies and lengths,
 *   kept in step inside each transaction. Terms come from FTS5's own tokenizer, so both stores see the same words.
 *   Ids instead of the words halve the documents and their index (measured on the 8,648 transcripts).
 * - Text is kept once, in clips and segments as in SQLite; nothing is stored twice for the lexical index.
 * - A video's segments are one row of parallel arrays in the order they were written (compressed by TOAST), not a row
 *   each: they are read a video at a time, and a row per line of transcript cost 130 of the 554 MB of the 8,648-transcript
 *   library in per-row overhead and indexes. (Schema 3 packs them in blocks.)
 */
const schemaV1 = `
CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE videos (
  key bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id text NOT NULL UNIQUE,
  status text NOT NULL CHECK (status IN ('pending', 'ready')),
  path text,
  title text,
  kind text CHECK (kind IN ('media', 'transcript')),
  duration_seconds double precision,
  size_bytes bigint,
  width integer,
  height integer,
  has_audio boolean,
  has_video boolean,
  times_estimated boolean,
  ingested_at text,
  clip_count integer,
  fingerprint text
);
CREATE INDEX videos_by_status ON videos (status, ingested_at);

CREATE TABLE clips (
  key bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  video_key bigint NOT NULL REFERENCES videos (key) ON DELETE CASCADE,
  clip_index integer NOT NULL,
  start_second double precision NOT NULL,
  end_second double precision NOT NULL,
  transcript text NOT NULL,
  screen text NOT NULL,
  visual text NOT NULL,
  speech_seconds double precision,
  speech_regions text,
  screen_changes integer NOT NULL DEFAULT 0,
  asked integer NOT NULL DEFAULT 0,
  UNIQUE (video_key, clip_index)
);

CREATE TABLE segments (
  video_key bigint PRIMARY KEY REFERENCES videos (key) ON DELETE CASCADE,
  start_seconds double precision[] NOT NULL,
  end_seconds double precision[] NOT NULL,
  texts text[] NOT NULL,
  sources text[] NOT NULL,
  clip_indexes integer[] NOT NULL
);

CREATE TABLE frames (
  video_key bigint NOT NULL REFERENCES videos (key) ON DELETE CASCADE,
  time_second double precision NOT NULL,
  hash text
);
CREATE INDEX frames_by_time ON frames (video_key, time_second);

CREATE TABLE stages (
  position bigint GENERATED ALWAYS AS IDENTITY,
  video_key bigint NOT NULL REFERENCES videos (key) ON DELETE CASCADE,
  stage text NOT NULL,
  key text NOT NULL,
  output text NOT NULL,
  PRIMARY KEY (video_key, stage)
);

CREATE TABLE clip_stages (
  video_key bigint NOT NULL REFERENCES videos (key) ON DELETE CASCADE,
  clip_index integer NOT NULL,
  stage text NOT NULL,
  key text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'done', 'failed')),
  error text,
  PRIMARY KEY (video_key, clip_index, stage)
);
CREATE INDEX clip_stages_by_status ON clip_stages (status, video_key, clip_index);
CREATE INDEX clip_stages_by_stage ON clip_stages (stage, key);

CREATE TABLE lexical_terms (
  index smallint NOT NULL,
  term text NOT NULL,
  id integer GENERATED ALWAYS AS IDENTITY UNIQUE,
  documents integer[] NOT NULL,
  PRIMARY KEY (index, term)
);

CREATE TABLE lexical_docs (
  index smallint NOT NULL,
  key bigint NOT NULL,
  video_key bigint,
  terms integer[] NOT NULL,
  counts integer[] NOT NULL,
  length integer NOT NULL,
  PRIMARY KEY (index, key)
);
CREATE INDEX lexical_docs_clip_terms ON lexical_docs USING gin (terms) WHERE index = 0;
CREATE INDEX lexical_docs_video_terms ON lexical_docs USING gin (terms) WHERE index = 1;
CREATE INDEX lexical_docs_entity_terms ON lexical_docs USING gin (terms) WHERE index = 2;
-- A clip search restricted to a few candidate videos (the usual one) starts from their clips, not from every clip
-- holding a common word.
CREATE INDEX lexical_docs_clips_by_video ON lexical_docs (video_key) WHERE index = 0;

CREATE TABLE lexical_totals (
  index smallint PRIMARY KEY,
  documents bigint NOT NULL,
  tokens bigint NOT NULL
);
INSERT INTO lexical_totals (index, documents, tokens) VALUES (0, 0, 0), (1, 0, 0), (2, 0, 0);

CREATE TABLE vector_spaces (
  key integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name text NOT NULL UNIQUE,
  dimensions integer NOT NULL CHECK (dimensions > 0)
);

CREATE TABLE vectors (
  key bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  space_key integer NOT NULL REFERENCES vector_spaces (key),
  video_key bigint NOT NULL REFERENCES videos (key) ON DELETE CASCADE,
  owner text NOT NULL CHECK (owner IN ('clip', 'frame')),
  clip_index integer NOT NULL,
  time_second double precision,
  embedding vector NOT NULL
);
CREATE UNIQUE INDEX vectors_by_video ON vectors (video_key, space_key, owner, clip_index, (coalesce(time_second, -1)));
CREATE INDEX vectors_by_space ON vectors (space_key);

CREATE TABLE chunks (
  video_key bigint NOT NULL REFERENCES videos (key) ON DELETE CASCADE,
  chunk_index integer NOT NULL,
  clip_start integer NOT NULL,
  clip_end integer NOT NULL,
  start_second double precision NOT NULL,
  end_second double precision NOT NULL,
  text text NOT NULL,
  token_count integer NOT NULL,
  PRIMARY KEY (video_key, chunk_index)
);

CREATE SEQUENCE entity_change;

CREATE TABLE entities (
  key bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name_key text NOT NULL UNIQUE,
  name text NOT NULL,
  type text NOT NULL,
  description text NOT NULL DEFAULT '',
  stale boolean NOT NULL DEFAULT true,
  change_sequence bigint NOT NULL DEFAULT 0
);
CREATE INDEX entities_stale ON entities (change_sequence, key) WHERE stale;

CREATE TABLE entity_aliases (
  name_key text PRIMARY KEY,
  entity_key bigint NOT NULL REFERENCES entities (key) ON DELETE CASCADE,
  name text NOT NULL
);
CREATE INDEX entity_aliases_by_entity ON entity_aliases (entity_key);

CREATE TABLE entity_sources (
  entity_key bigint NOT NULL REFERENCES entities (key) ON DELETE CASCADE,
  video_key bigint NOT NULL,
  chunk_index integer NOT NULL,
  description text NOT NULL,
  PRIMARY KEY (entity_key, video_key, chunk_index),
  FOREIGN KEY (video_key, chunk_index) REFERENCES chunks (video_key, chunk_index) ON DELETE CASCADE
);
CREATE INDEX entity_sources_by_video ON entity_sources (video_key, chunk_index);

CREATE TABLE entity_vectors (
  entity_key bigint NOT NULL REFERENCES entities (key) ON DELETE CASCADE,
  space text NOT NULL,
  type text NOT NULL,
  embedding vector NOT NULL,
  PRIMARY KEY (entity_key, space)
);
CREATE INDEX entity_vectors_by_type ON entity_vectors (space, type);

CREATE TABLE relations (
  key bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  source_key bigint NOT NULL REFERENCES entities (key) ON DELETE CASCADE,
  target_key bigint NOT NULL REFERENCES entities (key) ON DELETE CASCADE,
  CHECK (source_key < target_key),
  UNIQUE (source_key, target_key)
);
CREATE INDEX relations_by_target ON relations (target_key);

CREATE TABLE relation_sources (
  relation_key bigint NOT NULL REFERENCES relations (key) ON DELETE CASCADE,
  video_key bigint NOT NULL,
  chunk_index integer NOT NULL,
  description text NOT NULL,
  strength double precision NOT NULL,
  PRIMARY KEY (relation_key, video_key, chunk_index),
  FOREIGN KEY (video_key, chunk_index) REFERENCES chunks (video_key, chunk_index) ON DELETE CASCADE
);
CREATE INDEX relation_sources_by_video ON relation_sources (video_key, chunk_index);
`;

/**
 * Version 2: each term's posting list (`lexical_postings`, see lexical-index.ts) instead of GIN indexes on the documents'
 * term ids. A search scores the lists of its terms without reading a document row: at 10,000 hours a common word's
 * documents took 2 s to find and read through the GIN index. The blocks are already packed, so TOAST does not try to
 * compress them. `lexical_terms.writes` counts the writes to each list, which decide when its small blocks are merged.
 * The lists are built from the documents' term ids in the migration.
 */
const schemaV2 = `
DROP INDEX IF EXISTS lexical_docs_clip_terms;
DROP INDEX IF EXISTS lexical_docs_video_terms;
DROP INDEX IF EXISTS lexical_docs_entity_terms;
DROP INDEX IF EXISTS lexical_docs_clips_by_video;

CREATE TABLE lexical_postings (
  index smallint NOT NULL,
  term integer NOT NULL,
  first_key bigint NOT NULL,
  last_key bigint NOT NULL,
  postings integer NOT NULL,
  data bytea NOT NULL,
  PRIMARY KEY (index, term, first_key)
);
ALTER TABLE lexical_postings ALTER COLUMN data SET STORAGE EXTERNAL;
ALTER TABLE lexical_terms ADD COLUMN writes integer NOT NULL DEFAULT 0;
`;

/**
 * Version 3, SQLite's packing of segments and frames (packed-text.ts):
 * - A video's segments in segment blocks (256 segments a block, deflated), each with the bounds of its times, instead
 *   of a row of parallel arrays. Reading a moment's segments decodes the blocks that may hold it, in the client; cutting
 *   the arrays in the server unpacked every segment of the video (a few milliseconds for the twenty videos of a search).
 * - A video's kept frames as one value (`frame_lists`), not a row each: they are read a video at a time, and the rows
 *   were 72 of the 781 MB of the synthetic 1,000-hour library.
 * Both are packed in the migration, which then drops the old tables.
 */
const schemaV3 = `
CREATE TABLE segment_blocks (
  video_key bigint NOT NULL REFERENCES videos (key) ON DELETE CASCADE,
  block_index integer NOT NULL,
  min_start_second double precision NOT NULL,
  max_start_second double precision NOT NULL,
  max_end_second double precision NOT NULL,
  data bytea NOT NULL,
  PRIMARY KEY (video_key, block_index)
);
ALTER TABLE segment_blocks ALTER COLUMN data SET STORAGE EXTERNAL;

CREATE TABLE frame_lists (
  video_key bigint PRIMARY KEY REFERENCES videos (key) ON DELETE CASCADE,
  frames bytea NOT NULL
);
`;

/**
 * Version 4, text kept once as SQLite's schema 7 keeps it (packed-text.ts), and no term list per document:
 * - A clip's transcript is '' and the run of its video's segments it was joined from (`transcript_first`,
 *   `transcript_last`), where joining that run gives it back; a chunk's text is '' and its pieces of the segments' text
 *   (`packed_text`, with the blocks those name); a graph source's description is '' and its excerpt of its chunk's text.
 *   Each stays plain text where packing would not be shorter or would not give it back. At 10,000 hours the transcripts
 *   were 471 MB of the clips, the chunk texts 341 MB, the source descriptions 672 MB.
 * - `lexical_docs` goes (931 MB of the 5,256 MiB 10,000-hour library): a document is removed by tokenizing its stored
 *   text again (see lexical-index.ts).
 * - `lexical_postings` is vacuumed sooner: merges delete blocks as fast as they write them, and at the default 20%
 *   its dead blocks were as many as its live ones halfway through a large build.
 * The migration packs what is stored, a few hundred videos at a time.
 */
const schemaV4 = `
ALTER TABLE clips ADD COLUMN transcript_first integer, ADD COLUMN transcript_last integer;
ALTER TABLE chunks ADD COLUMN packed_text bytea, ADD COLUMN packed_first_block integer, ADD COLUMN packed_last_block integer;
ALTER TABLE entity_sources ADD COLUMN excerpt bytea;
ALTER TABLE relation_sources ADD COLUMN excerpt bytea;
DROP TABLE lexical_docs;
ALTER TABLE lexical_postings SET (autovacuum_vacuum_scale_factor = 0.02);
`;

/**
 * Version 5: chapters, a video's stretches about one topic, as SQLite's schema 10 keeps them: a row each with its title,
 * summary and text, and a fourth lexical index (3) of those three fields, which the posting lists hold like the others
 * (see lexical-index.ts), so chapters rank as on SQLite. A library from before has no chapters: nothing to build.
 */
const schemaV5 = `
CREATE TABLE chapters (
  key bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  video_key bigint NOT NULL REFERENCES videos (key) ON DELETE CASCADE,
  chapter_index integer NOT NULL,
  start_second double precision NOT NULL,
  end_second double precision NOT NULL,
  title text NOT NULL,
  summary text NOT NULL,
  text text NOT NULL,
  made_by text NOT NULL,
  UNIQUE (video_key, chapter_index)
);
INSERT INTO lexical_totals (index, documents, tokens) VALUES (3, 0, 0) ON CONFLICT (index) DO NOTHING;
`;

/**
 * Version 6: who speaks, as SQLite's schema 11 keeps it. Segment blocks may carry their segments' speakers (blocks
 * without them are written as before); `segment_speakers` holds each video's distinct labels, written with its
 * segments, and `speaker_names` the names a user gave them, both found by their text folded as `speakerKey` folds it
 * (lower() folds by the database's locale). A library from before has no speakers: nothing to build.
 */
const schemaV6 = `
CREATE TABLE segment_speakers (
  video_key bigint NOT NULL REFERENCES videos (key) ON DELETE CASCADE,
  label text NOT NULL,
  label_key text NOT NULL,
  PRIMARY KEY (video_key, label)
);
CREATE INDEX segment_speakers_by_key ON segment_speakers (label_key);
CREATE TABLE speaker_names (
  video_key bigint NOT NULL REFERENCES videos (key) ON DELETE CASCADE,
  label text NOT NULL,
  name text NOT NULL,
  name_key text NOT NULL,
  PRIMARY KEY (video_key, label)
);
CREATE INDEX speaker_names_by_key ON speaker_names (name_key);
`;

/** Version 7: the voices a diarizer found in each video, as SQLite's schema 12 keeps them. */
const schemaV7 = `
CREATE TABLE speaker_voices (
  video_key bigint NOT NULL REFERENCES videos (key) ON DELETE CASCADE,
  label text NOT NULL,
  diarized_by text NOT NULL,
  turns text NOT NULL,
  vector bytea,
  PRIMARY KEY (video_key, label)
);
`;

/** Version 8: the language a video speaks or shows, as SQLite's schema 13 keeps it. */
const schemaV8 = `ALTER TABLE videos ADD COLUMN language text;`;

/**
 * Version 9: runs of Chinese, Japanese and Korean characters are indexed as their overlapping character pairs, as
 * SQLite's schema 14 indexes them; the documents holding such text are forgotten as they were indexed and indexed again.
 */
const schemaV9 = `SELECT 1;`;

/**
 * Version 10: the language of each segment, in its block, as SQLite's schema 15 keeps it. Nothing to build: the blocks
 * of before read as they are; the version keeps an older videorag from reading blocks it would refuse.
 */
const schemaV10 = `SELECT 1;`;

/**
 * Version 11: runs of Thai, Lao, Khmer and Burmese are indexed as the words Intl.Segmenter finds, as SQLite's schema
 * 16 indexes them; the documents holding such text are forgotten as they were indexed and indexed again.
 */
const schemaV11 = `SELECT 1;`;

/**
 * Version 12: a version of the list of videos, which every transaction that changes a video row moves on as it commits,
 * so a store can keep the list it read (every question reads it) and read only this number to know it still holds. A
 * deferred trigger holds the version's row only while a transaction commits, not while it writes a video's text. Written
 * to run again over itself, as the tests' libraries made older by lowering their schema number do.
 */
const schemaV12 = `
CREATE TABLE IF NOT EXISTS video_list_version (version bigint NOT NULL);
INSERT INTO video_list_version (version) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM video_list_version);
CREATE OR REPLACE FUNCTION video_list_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE video_list_version SET version = version + 1;
  RETURN NULL;
END
$$;
DROP TRIGGER IF EXISTS video_list_changed ON videos;
CREATE CONSTRAINT TRIGGER video_list_changed AFTER INSERT OR UPDATE OR DELETE ON videos
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION video_list_changed();
`;

/** What a migration needs from the store's code. */
export interface MigrationHooks {
  /** Fills schema 2's posting lists from the documents schema 1 kept. */
  buildPostingLists(client: PoolClient): Promise<void>;
  /** Packs the segments and frames of schema 2 as schema 3 keeps them, then drops their tables. */
  packSegmentsAndFrames(client: PoolClient): Promise<void>;
  /** Packs schema 3's clip transcripts, chunk texts and source descriptions as schema 4 keeps them. */
  packText(client: PoolClient): Promise<void>;
  /** Indexes again, as character pairs, every document whose text holds Chinese, Japanese or Korean (schema 9). */
  reindexCjk(client: PoolClient): Promise<void>;
  /** Indexes again, as their words, every document whose text holds Thai, Lao, Khmer or Burmese (schema 11). */
  reindexSpaceless(client: PoolClient): Promise<void>;
}

/** Migrations by the version they lead to; index 0 creates version 1. A step is SQL, or SQL and then code. */
const migrations: (string | { sql: string; then: (client: PoolClient, hooks: MigrationHooks) => Promise<void> })[] = [
  schemaV1,
  { sql: schemaV2, then: (client, hooks) => hooks.buildPostingLists(client) },
  { sql: schemaV3, then: (client, hooks) => hooks.packSegmentsAndFrames(client) },
  { sql: schemaV4, then: (client, hooks) => hooks.packText(client) },
  schemaV5,
  schemaV6,
  schemaV7,
  schemaV8,
  { sql: schemaV9, then: (client, hooks) => hooks.reindexCjk(client) },
  schemaV10,
  { sql: schemaV11, then: (client, hooks) => hooks.reindexSpaceless(client) },
  schemaV12,
];

export const postgresSchemaVersion = migrations.length;

/**
 * Brings the database to the current schema inside one transaction, under an advisory lock so two processes opening a
 * new library at once agree. A database written by a newer videorag is refused.
 */
export async function migratePostgres(client: PoolClient, where: string, hooks: MigrationHooks): Promise<void> {
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock(hashtext('videorag schema'))");
    await client.query("CREATE TABLE IF NOT EXISTS videorag_schema (version integer NOT NULL)");
    const { rows } = await client.query<{ version: number }>("SELECT version FROM videorag_schema");
    const current = rows[0]?.version ?? 0;
    if (current > postgresSchemaVersion) {
      throw new VideoRagError(
        "STORE_FAILED",
        `the library at ${where} was written by a newer videorag (schema ${current}, this one knows ${postgresSchemaVersion})`,
        { subject: where },
      );
    }
    for (const step of migrations.slice(current)) {
      await client.query(typeof step === "string" ? step : step.sql);
      if (typeof step !== "string") await step.then(client, hooks);
    }
    if (rows.length === 0) await client.query("INSERT INTO videorag_schema (version) VALUES ($1)", [postgresSchemaVersion]);
    else await client.query("UPDATE videorag_schema SET version = $1", [postgresSchemaVersion]);
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}
