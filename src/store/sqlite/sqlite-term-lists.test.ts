import assert from "node:assert/strict";
import { test } from "node:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { FtsTermLists, parseRowids } from "./sqlite-term-lists.js";

/** 3,000 rows: "often" in 1,700 of them, "seldom" in 10. */
function index(path = ":memory:"): Database.Database {
  const db = new Database(path);
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
    const common = (share: number): boolean => !lists.informative("notes", undefined, weights, false, share).informative.has("often");
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
    assert.equal(fresh.informative("notes", undefined, weights, false, 0.6).informative.has("often"), true);
    assert.equal(fresh.informative("notes", undefined, weights, false, 0.55).informative.has("often"), false);
  } finally {
    db.close();
  }
});

test("a term's list holds every row FTS5 matches, in order, with bm25()'s score in each, whatever the rowids", () => {
  const db = new Database(":memory:");
  try {
    db.exec("CREATE VIRTUAL TABLE notes USING fts5(body)");
    const insert = db.prepare("INSERT INTO notes (rowid, body) VALUES (?, ?)");
    // Negative, one-digit, and the largest rowids a list keeps (Int32), around the rows that do not hold the word.
    for (const rowid of [-2_147_483_648, -70, -1, 0, 7, 10, 999, 1_000_000, 2_147_483_647]) insert.run(rowid, `plain words ${Math.abs(rowid) % 3 === 0 ? "" : "kept "}row ${rowid}`);
    const [list] = new FtsTermLists(db).termLists("notes", "bm25(notes)", "", ['"kept"']) ?? [];
    const expected = db.prepare("SELECT rowid, -bm25(notes) FROM notes WHERE notes MATCH 'kept' ORDER BY rowid").raw().all() as [number, number][];
    assert.equal(expected.length, 7);
    assert.deepEqual([...(list?.rows ?? [])], expected.map(([rowid]) => rowid));
    assert.deepEqual([...(list?.scores ?? [])], expected.map(([, score]) => score));
    assert.deepEqual([...parseRowids("")], []);
    assert.deepEqual([...parseRowids("-5,0,42,-8")], [-5, 0, 42, -8]);
  } finally {
    db.close();
  }
});

test("a word no row holds is left out of the search's terms, and a common one only of its informative terms", () => {
  const db = index();
  try {
    const weights = new Map([
      ["often", 1],
      ["seldom", 2],
      ["never", 1],
    ]);
    const { present, informative } = new FtsTermLists(db).informative("notes", undefined, weights, false, 0.5);
    assert.deepEqual([...present], [["often", 1], ["seldom", 2]]);
    assert.deepEqual([...informative], [["seldom", 2]]);
  } finally {
    db.close();
  }
});

/** Resolves once messages sent before it was called have been delivered. */
const delivered = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));

test("readers of one library file keep what another read, while the index is as it was when read", async () => {
  const folder = mkdtempSync(join(tmpdir(), "videorag-term-lists-"));
  const path = join(folder, "notes.sqlite");
  const setup = index(path);
  // As a library is: a write does not wait for a reader's transaction.
  setup.pragma("journal_mode = WAL");
  setup.close();
  const open = (shared = true): { db: Database.Database; lists: FtsTermLists; reads: () => number } => {
    const db = new Database(path);
    let reads = 0;
    const prepare = db.prepare.bind(db);
    // Every read of a list or count of a word runs a statement with a MATCH.
    db.prepare = ((sql: string) => {
      const statement = prepare(sql);
      if (!sql.includes("MATCH")) return statement;
      const [all, get] = [statement.all.bind(statement), statement.get.bind(statement)];
      statement.all = ((...parameters: unknown[]) => ((reads += 1), all(...parameters))) as typeof statement.all;
      statement.get = ((...parameters: unknown[]) => ((reads += 1), get(...parameters))) as typeof statement.get;
      return statement;
    }) as typeof db.prepare;
    return { db, lists: new FtsTermLists(db, undefined, shared ? path : undefined), reads: () => reads };
  };
  const first = open();
  const second = open();
  // A reader that shares nothing (a library in memory is a file of its own).
  const alone = open(false);
  const bm25 = "bm25(notes)";
  const words = new Map([
    ["often", 1],
    ["seldom", 1],
  ]);
  try {
    // Both look at the index first (as every search does), then one reads and counts.
    first.lists.averages("notes");
    second.lists.averages("notes");
    alone.lists.averages("notes");
    const [read] = first.lists.termLists("notes", bm25, "", ['"seldom"']) ?? [];
    first.lists.informative("notes", undefined, words, false, 0.5);
    assert.equal(first.reads(), 4, "two statements read a list, and each word is counted");
    await delivered();
    const [kept] = second.lists.termLists("notes", bm25, "", ['"seldom"']) ?? [];
    assert.deepEqual(kept, read);
    assert.deepEqual([...second.lists.informative("notes", undefined, words, false, 0.5).informative.keys()], ["seldom"]);
    assert.equal(second.reads(), 0, "the other reader read and counted nothing");
    assert.deepEqual(alone.lists.termLists("notes", bm25, "", ['"seldom"']), [read]);
    assert.equal(alone.reads(), 2, "a reader that shares nothing read the list itself");

    // A write: a list read before it is not kept by a reader that has seen the index since.
    first.db.exec("BEGIN");
    first.lists.averages("notes");
    second.db.prepare("INSERT INTO notes (body) VALUES ('seldom seldom')").run();
    second.lists.averages("notes");
    const [old] = first.lists.termLists("notes", bm25, "", ['"other"']) ?? [];
    first.db.exec("COMMIT");
    await delivered();
    const [now] = second.lists.termLists("notes", bm25, "", ['"other"']) ?? [];
    assert.ok(second.reads() > 0, "read again after the write");
    assert.equal(now?.rows.length, old?.rows.length);
    assert.notDeepEqual(now?.scores, old?.scores, "bm25 moved with the new row");
  } finally {
    for (const reader of [first, second, alone]) {
      reader.lists.close();
      reader.db.close();
    }
    rmSync(folder, { recursive: true, force: true });
  }
});
