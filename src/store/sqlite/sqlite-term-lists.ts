// What FTS5 reads from each term's list for a search, kept while the index is unchanged:
//  - how many rows hold each one-word term, for leaving out the terms too common to rank by (`commonTerms` in
//    store-checks.ts), counted by FTS5 as bm25() counts them, up to the count that makes a word common: counting reads
//    a term's list, which costs about what searching the term costs;
//  - each term's rows with the term's own bm25() score in each. bm25() sums over a query's phrases, so a search's
//    score is the sum of its terms' scores, weights multiplying them: a term read once serves every later question
//    with that word (on the how-to dev questions, 59% of a video search's words had come in an earlier question) and
//    a word weighted 3 is read once, not three times.
// Questions' words recur, and an index changes far less often than it is searched. Whether it changed is read from two
// records FTS5 keeps in the index's `_data` table, whoever wrote it (this connection or another process): the
// structure record (id 10), whose write counter moves with every transaction that writes to the index, and the
// averages record (id 1: the row count and each column's token total). A question that writes only to the extraction
// ledger leaves both alone. The averages record, read here anyway, is what searches read their index's row count and
// column totals from.

import type Database from "better-sqlite3";
import { commonTermMinimum, commonTerms, isOneWord } from "../store-checks.js";
import { ftsAverages, quote } from "./sqlite-text-index.js";

/** Counts kept per index at most; past this its cache starts again (a few megabytes). */
const maxKept = 20_000;

/**
 * Rows an index may hold at most for its searches to be sums of kept lists: a list is read into JavaScript once, at a
 * fraction of a microsecond a row, where FTS5 returns only the best rows (the how-to library's 8,648 videos and 45,534
 * entities are under).
 */
const maxListedRows = 50_000;

/** Bytes of term lists kept per index at most; past this its lists are read again as searches need them. */
const maxListBytes = 16 * 1024 * 1024;

/** The rows holding one term (ascending) and the term's bm25() score in each, higher better. */
export interface TermList {
  rows: Int32Array;
  scores: Float64Array;
}

/** One index's counts and term lists, and the records they were read under. */
interface IndexLists {
  version: Buffer;
  /** The averages record: the row count and each column's token total. */
  averages: { rows: number; columnTotals: number[] };
  /** Rows holding a word, counted up to `atMost` (see `count`). */
  counts: Map<string, { count: number; atMost: number }>;
  /** By bm25() call, column filter and term. */
  lists: Map<string, TermList>;
  listBytes: number;
  /** The read transaction the records were last compared in (see `current`). */
  checkedIn?: number;
}

export class FtsTermLists {
  private readonly indexes = new Map<string, IndexLists>();
  private readonly statements = new Map<string, { version: Database.Statement; count: Database.Statement }>();
  private readonly listStatements = new Map<string, Database.Statement>();

  /** `readSnapshot`: the read transaction in progress (SqliteContext.readSnapshot), in which records read once hold. */
  constructor(
    private readonly db: Database.Database,
    private readonly readSnapshot: () => number | undefined = () => undefined,
  ) {}

  /**
   * `weights` without the one-word terms too common to rank a search of `table` by (see `commonTerms`), counted in
   * `columns` (every column when absent); `phrases`: whether the search has phrases too. `weights` itself when none is.
   */
  informative(table: string, columns: readonly string[] | undefined, weights: Map<string, number>, phrases: boolean, share: number): Map<string, number> {
    const words = [...weights.keys()].filter(isOneWord);
    if (words.length === 0 || (words.length === weights.size && words.length === 1 && !phrases)) return weights;
    const index = this.current(table);
    const { rows } = index.averages;
    const least = Math.max(commonTermMinimum, share * rows);
    if (rows < least) return weights;
    const filter = columns ? `{${columns.join(" ")}} : ` : "";
    // A video's text is its clips', so no more videos than clips hold a word, and some do when some clip does: a word
    // too few clips hold to be common needs no count of videos.
    const clips = table === "video_fts" ? this.current("clip_fts") : undefined;
    const counts = new Map(
      words.map((word) => {
        const inClips = clips ? this.count("clip_fts", clips, filter, word, least) : least;
        return [word, inClips < least ? inClips : this.count(table, index, filter, word, least)];
      }),
    );
    const common = commonTerms(counts, rows, phrases || words.length < weights.size, share);
    return common.size === 0 ? weights : new Map([...weights].filter(([text]) => !common.has(text)));
  }

  /** The index's row count and each column's token total, as bm25() reads them (see `ftsAverages`). */
  averages(table: string): { rows: number; columnTotals: number[] } {
    return this.current(table).averages;
  }

  /**
   * Each FTS5 expression's list in `table` (a quoted term or phrase, matched in the columns `filter` names): its rows
   * and its score `-bm25` in each, the bm25() call written as `bm25`. Call it inside a read transaction, so that the
   * lists and the records they are kept under are of one state of the file. Undefined when the index holds more rows
   * than lists are worth reading for (`maxListedRows`): FTS5 searches it as one query.
   */
  termLists(table: string, bm25: string, filter: string, expressions: readonly string[]): TermList[] | undefined {
    const index = this.current(table);
    if (index.averages.rows > maxListedRows) return undefined;
    return expressions.map((expression) => {
      const key = `${bm25}\u0000${filter}\u0000${expression}`;
      let list = index.lists.get(key);
      if (!list) {
        list = this.readList(table, bm25, filter + expression);
        const bytes = list.rows.length * 12;
        if (index.listBytes + bytes > maxListBytes) {
          index.lists.clear();
          index.listBytes = 0;
        }
        index.lists.set(key, list);
        index.listBytes += bytes;
      }
      return list;
    });
  }

  /**
   * One expression's rows and scores, by two single-column queries: a row of one value costs a third less to read into
   * JavaScript than a row of two, and FTS5 walks a match's rows in the same (ascending rowid) order each time. Read as
   * pairs and sorted where that ever does not hold.
   */
  private readList(table: string, bm25: string, match: string): TermList {
    const rows = Int32Array.from(this.prepared(`SELECT rowid FROM ${table} WHERE ${table} MATCH ?`, "pluck").all(match) as number[]);
    const scores = Float64Array.from(this.prepared(`SELECT -${bm25} FROM ${table} WHERE ${table} MATCH ?`, "pluck").all(match) as number[]);
    if (rows.length === scores.length && rows.every((row, at) => at === 0 || row > (rows[at - 1] as number))) return { rows, scores };
    const pairs = this.prepared(`SELECT rowid, -${bm25} FROM ${table} WHERE ${table} MATCH ?`, "raw").all(match) as [number, number][];
    pairs.sort((a, b) => a[0] - b[0]);
    return { rows: Int32Array.from(pairs, (pair) => pair[0]), scores: Float64Array.from(pairs, (pair) => pair[1]) };
  }

  /** A list statement, compiled once: one value a row (`pluck`) or an array a row (`raw`). */
  private prepared(sql: string, rows: "pluck" | "raw"): Database.Statement {
    let statement = this.listStatements.get(sql);
    if (!statement) {
      statement = rows === "pluck" ? this.db.prepare(sql).pluck() : this.db.prepare(sql).raw();
      this.listStatements.set(sql, statement);
    }
    return statement;
  }

  /** The index's kept counts and lists, started again when its records say it was written since (counts also when they grew too many). */
  private current(table: string): IndexLists {
    const snapshot = this.readSnapshot();
    const kept = this.indexes.get(table);
    // Within one read transaction the index is as it was at its first look (a search looks three or four times).
    if (kept && snapshot !== undefined && kept.checkedIn === snapshot) return kept;
    const records = new Map(this.statementsOf(table).version.all() as [number, Buffer][]);
    const averages = records.get(1);
    const version = Buffer.concat([records.get(10) ?? Buffer.alloc(0), Buffer.from([0xff]), averages ?? Buffer.alloc(0)]);
    let index = this.indexes.get(table);
    if (!index || !index.version.equals(version)) {
      index = { version, averages: averages ? ftsAverages(averages) : { rows: 0, columnTotals: [] }, counts: new Map(), lists: new Map(), listBytes: 0 };
      this.indexes.set(table, index);
    } else if (index.counts.size >= maxKept) index.counts.clear();
    index.checkedIn = snapshot;
    return index;
  }

  /**
   * Rows holding the word in the filter's columns, as bm25() counts them for its idf, counted up to `atMost`: whether a
   * word is common needs no more, and a common word's whole list is what counting it cost. A count below its cap is
   * exact; one at its cap says "at least that many".
   */
  private count(table: string, index: IndexLists, filter: string, word: string, atMost: number): number {
    const key = `${filter}\u0000${word}`;
    const kept = index.counts.get(key);
    if (kept && (kept.count < kept.atMost || kept.atMost >= atMost)) return kept.count;
    const cap = Math.ceil(atMost);
    const count = this.statementsOf(table).count.get(filter + quote(word), cap) as number;
    index.counts.set(key, { count, atMost: cap });
    return count;
  }

  private statementsOf(table: string): { version: Database.Statement; count: Database.Statement } {
    let statements = this.statements.get(table);
    if (!statements) {
      statements = {
        version: this.db.prepare(`SELECT id, block FROM ${table}_data WHERE id IN (1, 10)`).raw(),
        count: this.db.prepare(`SELECT count(*) FROM (SELECT 1 FROM ${table} WHERE ${table} MATCH ? LIMIT ?)`).pluck(),
      };
      this.statements.set(table, statements);
    }
    return statements;
  }
}
