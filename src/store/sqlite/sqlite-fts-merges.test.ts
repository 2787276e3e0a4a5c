import assert from "node:assert/strict";
import { test } from "node:test";
import Database from "better-sqlite3";
import { mergeSegments, segmentCount } from "./sqlite-fts-merges.js";

/** Row `row`'s text: 24 words of a 500-word vocabulary. */
const text = (row: number): string => Array.from({ length: 24 }, (_, at) => `w${(row * 7 + at * at * 13) % 500}`).join(" ");

/** 3,000 rows written to a contentless FTS5 table in 300 transactions, as an ingest writes a video at a time. */
function written(): Database.Database {
  const db = new Database(":memory:");
  db.exec("CREATE VIRTUAL TABLE notes USING fts5(body, content = '')");
  const insert = db.prepare("INSERT INTO notes (rowid, body) VALUES (?, ?)");
  const write = db.transaction((first: number) => {
    for (let row = first; row < first + 10; row++) insert.run(row + 1, text(row));
  });
  for (let first = 0; first < 3_000; first += 10) write(first);
  return db;
}

const search = (db: Database.Database, match: string): unknown[] =>
  db.prepare("SELECT rowid, bm25(notes) AS score FROM notes WHERE notes MATCH ? ORDER BY score, rowid LIMIT 50").raw().all(match);

test("an index written by many transactions is merged into one segment, and searched as before", () => {
  const unmerged = written();
  const merged = written();
  try {
    const before = segmentCount(merged, "notes");
    // FTS5 alone leaves the index in many segments.
    assert.ok(before >= 6, `unmerged: ${before} segments`);
    assert.deepEqual(mergeSegments(merged, 2, ["notes"]), ["notes"]);
    assert.equal(segmentCount(merged, "notes"), 1);
    // The same rows and the same scores, for common and rare words and for several at once.
    for (const match of ["w0", "w13", "w499", "w7 OR w52 OR w300", "w1 w2"]) {
      const expected = search(unmerged, match);
      assert.ok(expected.length > 0, match);
      assert.deepEqual(search(merged, match), expected, match);
    }
    merged.prepare("INSERT INTO notes (notes, rank) VALUES ('integrity-check', 1)").run();
    // An index in one segment is left as it is: nothing is written.
    const changes = merged.prepare("SELECT total_changes()").pluck();
    const written = changes.get();
    assert.deepEqual(mergeSegments(merged, 2, ["notes"]), []);
    assert.equal(changes.get(), written);
  } finally {
    unmerged.close();
    merged.close();
  }
});
