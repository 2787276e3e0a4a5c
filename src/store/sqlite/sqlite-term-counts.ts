// How many rows of an FTS5 index hold each one-word term of a search, for leaving out the terms too common to rank by
// (`commonTerms` in store-checks.ts). FTS5 counts them as bm25() does: it reads the term's whole list, which costs
// about what searching the term costs. So the counts are kept while the index is unchanged: a question's words recur,
// and an index changes far less often than it is searched. Whether it changed is read from two records FTS5 keeps in
// the index's `_data` table, whoever wrote it (this connection or another process): the structure record (id 10),
// whose write counter moves with every transaction that writes to the index, and the averages record (id 1: the row
// count and each column's token total). A question that writes only to the extraction ledger leaves both alone. The
// averages record, read here anyway, is what searches read their index's row count and column totals from.

import type Database from "better-sqlite3";
import { commonTermMinimum, commonTerms, isOneWord } from "../store-checks.js";
import { ftsAverages, quote } from "./sqlite-text-index.js";

/** Counts kept per index at most; past this its cache starts again (a few megabytes). */
const maxKept = 20_000;

/** One index's counts, and the records they were counted under. */
interface IndexCounts {
  version: Buffer;
  /** The averages record: the row count and each column's token total. */
  averages: { rows: number; columnTotals: number[] };
  counts: Map<string, number>;
}

export class FtsTermCounts {
  private readonly indexes = new Map<string, IndexCounts>();
  private readonly statements = new Map<string, { version: Database.Statement; count: Database.Statement }>();

  constructor(private readonly db: Database.Database) {}

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
        const inClips = clips ? this.count("clip_fts", clips, filter, word) : least;
        return [word, inClips < least ? inClips : this.count(table, index, filter, word)];
      }),
    );
    const common = commonTerms(counts, rows, phrases || words.length < weights.size, share);
    return common.size === 0 ? weights : new Map([...weights].filter(([text]) => !common.has(text)));
  }

  /** The index's row count and each column's token total, as bm25() reads them (see `ftsAverages`). */
  averages(table: string): { rows: number; columnTotals: number[] } {
    return this.current(table).averages;
  }

  /** The index's kept counts, started again when its records say it was written since (or when they grew too many). */
  private current(table: string): IndexCounts {
    const records = new Map(this.statementsOf(table).version.all() as [number, Buffer][]);
    const averages = records.get(1);
    const version = Buffer.concat([records.get(10) ?? Buffer.alloc(0), Buffer.from([0xff]), averages ?? Buffer.alloc(0)]);
    let index = this.indexes.get(table);
    if (!index || !index.version.equals(version) || index.counts.size >= maxKept) {
      index = { version, averages: averages ? ftsAverages(averages) : { rows: 0, columnTotals: [] }, counts: new Map() };
      this.indexes.set(table, index);
    }
    return index;
  }

  /** Rows holding the word in the filter's columns, as bm25() counts them for its idf. */
  private count(table: string, index: IndexCounts, filter: string, word: string): number {
    const key = `${filter}\u0000${word}`;
    let count = index.counts.get(key);
    if (count === undefined) {
      count = this.statementsOf(table).count.get(filter + quote(word)) as number;
      index.counts.set(key, count);
    }
    return count;
  }

  private statementsOf(table: string): { version: Database.Statement; count: Database.Statement } {
    let statements = this.statements.get(table);
    if (!statements) {
      statements = {
        version: this.db.prepare(`SELECT id, block FROM ${table}_data WHERE id IN (1, 10)`).raw(),
        count: this.db.prepare(`SELECT count(*) FROM ${table} WHERE ${table} MATCH ?`).pluck(),
      };
      this.statements.set(table, statements);
    }
    return statements;
  }
}
