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
// column totals from. Readers of one library file in one process (a server's question threads) tell each other what
// they read, with the records it holds under; each keeps what the others read while its index is in that same state.

import { BroadcastChannel } from "node:worker_threads";
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

/** A count or a list one reader of a library file read, told to the others in the process, with the records it holds under. */
type Shared = { table: string; version: Uint8Array; key: string } & ({ list: TermList } | { count: { count: number; atMost: number } });

export class FtsTermLists {
  private readonly indexes = new Map<string, IndexLists>();
  private readonly statements = new Map<string, { version: Database.Statement; count: Database.Statement }>();
  private readonly listStatements = new Map<string, Database.Statement>();
  /** Where what this reader reads is told to the other readers of the file in this process, once it searches. */
  private channel: BroadcastChannel | undefined;

  /**
   * `readSnapshot`: the read transaction in progress (SqliteContext.readSnapshot), in which records read once hold.
   * `sharedAs`: a name for the library file (its real path), for readers of the same file in this process to keep what
   * each of them reads: a server's question threads each have the file open, and each read the lists of every new
   * word again (two readers taking turns on the how-to dev questions spent 1.1–1.8 ms more a search than one, of 8.5–9).
   * Undefined for a file of its own (in memory).
   */
  constructor(
    private readonly db: Database.Database,
    private readonly readSnapshot: () => number | undefined = () => undefined,
    private readonly sharedAs?: string,
  ) {}

  /** Stops hearing from the other readers (when the library closes). */
  close(): void {
    this.channel?.close();
    this.channel = undefined;
  }

  /**
   * `weights` without the one-word terms no row holds in `columns` (every column when absent), as `present`, and also
   * without the terms too common to rank a search of `table` by (see `commonTerms`), as `informative`; `phrases`:
   * whether the search has phrases too. A term no row holds adds nothing to bm25() and costs FTS5 a look for it (a
   * search of a library's few video descriptions for a question's words finds none of them). Each is `weights` itself
   * when it leaves nothing out.
   */
  informative(
    table: string,
    columns: readonly string[] | undefined,
    weights: Map<string, number>,
    phrases: boolean,
    share: number,
  ): { present: Map<string, number>; informative: Map<string, number> } {
    const words = [...weights.keys()].filter(isOneWord);
    const all = { present: weights, informative: weights };
    if (words.length === 0 || (words.length === weights.size && words.length === 1 && !phrases)) return all;
    const index = this.current(table);
    const { rows } = index.averages;
    const least = Math.max(commonTermMinimum, share * rows);
    if (rows < least) return all;
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
    const without = (left: (text: string) => boolean): Map<string, number> => {
      const kept = new Map([...weights].filter(([text]) => !left(text)));
      return kept.size === weights.size ? weights : kept;
    };
    const present = without((text) => counts.get(text) === 0);
    const common = commonTerms(counts, rows, phrases || words.length < weights.size, share);
    return { present, informative: common.size === 0 ? present : without((text) => counts.get(text) === 0 || common.has(text)) };
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
        keepList(index, key, list);
        this.tell({ table, version: index.version, key, list });
      }
      return list;
    });
  }

  /** Tells the other readers of the file what this one read. */
  private tell(shared: Shared): void {
    this.channel?.postMessage(shared);
  }

  /** Keeps what another reader read, when it read it in the state of the index this reader keeps lists for. */
  private adopt(shared: Shared): void {
    const index = this.indexes.get(shared.table);
    if (!index || !index.version.equals(shared.version)) return;
    if ("list" in shared) {
      if (!index.lists.has(shared.key)) keepList(index, shared.key, shared.list);
    } else {
      const kept = index.counts.get(shared.key);
      if (!kept || kept.atMost < shared.count.atMost) index.counts.set(shared.key, shared.count);
    }
  }

  /** Starts hearing from the other readers of the file, at this reader's first search. */
  private listen(): void {
    if (this.channel || this.sharedAs === undefined) return;
    this.channel = new BroadcastChannel(`videorag-term-lists:${this.sharedAs}`);
    this.channel.unref();
    this.channel.onmessage = (message) => this.adopt((message as { data: Shared }).data);
  }

  /**
   * One expression's rows and scores, by two single-column queries: a row of one value costs a third less to read into
   * JavaScript than a row of two, and FTS5 walks a match's rows in the same (ascending rowid) order each time. Read as
   * pairs and sorted where that ever does not hold. The rows come as one comma-separated text (`group_concat`), read and
   * parsed at 0.14–0.23 µs a row against 0.20–0.32 µs for a value a row (the walk of the list included; the scores'
   * query costs about 1 µs a row, bm25() itself).
   */
  private readList(table: string, bm25: string, match: string): TermList {
    const rows = parseRowids((this.prepared(`SELECT group_concat(rowid) FROM ${table} WHERE ${table} MATCH ?`, "pluck").get(match) as string | null) ?? "");
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
    this.listen();
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
    this.tell({ table, version: index.version, key, count: { count, atMost: cap } });
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

/** Character codes `parseRowids` reads. */
const comma = 44;
const minus = 45;
const zero = 48;

/** Rows written as `group_concat(rowid)` writes them: integers, commas between them; empty for none. */
export function parseRowids(text: string): Int32Array {
  if (text.length === 0) return new Int32Array(0);
  let count = 1;
  for (let at = 0; at < text.length; at++) if (text.charCodeAt(at) === comma) count++;
  const rows = new Int32Array(count);
  let row = 0;
  let value = 0;
  let sign = 1;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === comma) {
      rows[row++] = sign * value;
      value = 0;
      sign = 1;
    } else if (code === minus) sign = -1;
    else value = value * 10 + (code - zero);
  }
  rows[row] = sign * value;
  return rows;
}

/** Keeps a list in its index's lists, which start again when they would hold more than `maxListBytes`. */
function keepList(index: IndexLists, key: string, list: TermList): void {
  const bytes = list.rows.length * 12;
  if (index.listBytes + bytes > maxListBytes) {
    index.lists.clear();
    index.listBytes = 0;
  }
  index.lists.set(key, list);
  index.listBytes += bytes;
}
