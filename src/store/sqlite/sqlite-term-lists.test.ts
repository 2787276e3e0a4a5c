import assert from "node:assert/strict";
import { test } from "node:test";
import Database from "better-sqlite3";
import { FtsTermLists } from "./sqlite-term-lists.js";

/** 3,000 rows: "often" in 1,700 of them, "seldom" in 10. */
function index(): Database.Database {
  const db = new Database(":memory:");
  db.exec("CREATE VIRTUAL TABLE notes USING fts5(body)");
  const insert = db.prepare("INSERT INTO notes (body) VALUES (?)");
  db.transaction(() => {
    for (let row = 0; row < 3_000; row++) insert.run(`${row < 1_700 ? "often" : "other"} ${row < 10 ? "seldom" : "plain"} ${row}`);
  })();
  return db;
}

test("a word's rows are counted only as far as deciding whether it is common needs, and counted further when a search needs more", () => {
  const db = index();
  try {
    const lists = new FtsTermLists(db);
    const weights = new Map([
      ["often", 1],
      ["seldom", 1],
    ]);
    const common = (share: number): boolean => !lists.informative("notes", undefined, weights, false, share).has("often");
    // Half the rows (1,500): "often" (1,700) is common; counting it stopped at 1,500.
    assert.equal(common(0.5), true);
    // 55% (1,650): the count kept says "at least 1,500", which does not decide it: counted again, further.
    assert.equal(common(0.55), true);
    // 60% (1,800): 1,700 is the whole count, below the cap; not common.
    assert.equal(common(0.6), false);
    // Back to half: the exact count kept decides it.
    assert.equal(common(0.5), true);
    // A fresh reader, asked the high share first, agrees.
    const fresh = new FtsTermLists(db);
    assert.equal(fresh.informative("notes", undefined, weights, false, 0.6).has("often"), true);
    assert.equal(fresh.informative("notes", undefined, weights, false, 0.55).has("often"), false);
  } finally {
    db.close();
  }
});
