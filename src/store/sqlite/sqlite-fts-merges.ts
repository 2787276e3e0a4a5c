// Brings each lexical index into one segment after a batch of writes (`compactTextIndexes`). FTS5 writes each
// transaction's rows as a new segment and merges segments only now and then (its `automerge` merges a level's segments
// four at a time as pages are written), so an index written by many transactions (an ingest writes one or more a
// video) is left in a dozen segments, and a search reads each term's rows from every one through a merge of them. The
// 8,648 how-to transcripts' clip index was left in 11 segments: a search of 20 videos' clips took 1.29 ms, 0.82 ms with
// the index in one; the search-cost benchmark's hybrid search 6.8 ms of CPU, 5.9 ms, with the same results. A merge
// that leaves the largest segment with three quarters of the index does not help: a search still merges eleven
// segments' rows. FTS5's 'optimize' merges an index into one segment in about 7 µs a row (101,684 clips:
// 0.7 s), so it runs once a batch ends, not as rows are written. Writes that come one at a time with no batch to end
// (a question's clips written back) merge an index once it is in `scatteredFrom` segments: FTS5 leaves each such small
// write a segment of its own until there are 16 (its automerge waits on pages written), so that is once in three
// write-backs, 0.25 s each on 100,000 clips against the seconds a write-back's extraction takes. Small segments cost
// less than large ones: beside the clip index in one, 1, 3 and 7 one-row segments made a search of 20 videos' clips
// 4%, 9% and 29% slower.

import type Database from "better-sqlite3";

/** The lexical indexes of the SQLite store (see sqlite-schema.ts). */
export const lexicalTables = ["clip_fts", "video_fts", "entity_fts", "chapter_fts"] as const;

/** Segments from which an index written to by a write of its own (not a batch) is merged into one. */
export const scatteredFrom = 4;

/** The segments an index is in: every segment has a row in its `_idx` table (segid, term, leaf page) for its first leaf. */
export function segmentCount(db: Database.Database, table: string): number {
  return db.prepare(`SELECT count(DISTINCT segid) FROM ${table}_idx`).pluck().get() as number;
}

/**
 * Merges each index in `from` segments or more (at least two) into one; the indexes merged. A merge changes no search's
 * results.
 */
export function mergeSegments(db: Database.Database, from = 2, tables: readonly string[] = lexicalTables): string[] {
  const merged: string[] = [];
  for (const table of tables) {
    if (segmentCount(db, table) < Math.max(2, from)) continue;
    db.prepare(`INSERT INTO ${table} (${table}) VALUES ('optimize')`).run();
    merged.push(table);
  }
  return merged;
}
