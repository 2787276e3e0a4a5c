// How many rows of an FTS5 index hold each one-word term of a search, for leaving out the terms whose idf BM25 floors
// (`uninformativeTerms` in store-checks.ts). FTS5 counts them as bm25() does: it reads the term's whole list, deleted
// rows left out, which costs about what searching the term costs. So the counts are kept while nothing in the file
// changes (see `SqliteContext.changeStamp`): a question's words recur, and a library changes far less often than it
// is searched.

import type Database from "better-sqlite3";
import { commonTermMinimum, commonTerms, isOneWord } from "../store-checks.js";
import { ftsAverages, quote } from "./sqlite-text-index.js";

/** Counts kept at most; past this the cache starts again (a few megabytes). */
const maxKept = 50_000;

export class FtsTermCounts {
  private stamp = "";
  private readonly counts = new Map<string, number>();
  private readonly rowCounts = new Map<string, number>();
  private readonly statements = new Map<string, Database.Statement>();

  constructor(
    private readonly db: Database.Database,
    private readonly changeStamp: () => string,
  ) {}

  /**
   * `weights` without the one-word terms too common to rank a search of `table` by (see `commonTerms`), counted in
   * `columns` (every column when absent); `phrases`: whether the search has phrases too. `weights` itself when none is.
   */
  informative(table: string, columns: readonly string[] | undefined, weights: Map<string, number>, phrases: boolean, share: number): Map<string, number> {
    const words = [...weights.keys()].filter(isOneWord);
    if (words.length === 0 || (words.length === weights.size && words.length === 1 && !phrases)) return weights;
    this.checkStamp();
    const documents = this.rows(table);
    const least = Math.max(commonTermMinimum, share * documents);
    if (documents < least) return weights;
    const filter = columns ? `{${columns.join(" ")}} : ` : "";
    // A video's text is its clips', so no more videos than clips hold a word, and some do when some clip does: a word
    // too few clips hold to be common needs no count of videos.
    const clipsFirst = table === "video_fts";
    const counts = new Map(
      words.map((word) => {
        const clips = clipsFirst ? this.count("clip_fts", filter, word) : least;
        return [word, clips < least ? clips : this.count(table, filter, word)];
      }),
    );
    const common = commonTerms(counts, documents, phrases || words.length < weights.size, share);
    return common.size === 0 ? weights : new Map([...weights].filter(([text]) => !common.has(text)));
  }

  private checkStamp(): void {
    const stamp = this.changeStamp();
    if (stamp === this.stamp && this.counts.size < maxKept) return;
    this.stamp = stamp;
    this.counts.clear();
    this.rowCounts.clear();
  }

  /** Rows holding the word in the filter's columns, as bm25() counts them for its idf. */
  private count(table: string, filter: string, word: string): number {
    const key = `${table}\u0000${filter}\u0000${word}`;
    let count = this.counts.get(key);
    if (count === undefined) {
      let statement = this.statements.get(table);
      if (!statement) this.statements.set(table, (statement = this.db.prepare(`SELECT count(*) FROM ${table} WHERE ${table} MATCH ?`).pluck()));
      count = statement.get(filter + quote(word)) as number;
      this.counts.set(key, count);
    }
    return count;
  }

  /** The index's row count, bm25()'s N, from its averages record. */
  private rows(table: string): number {
    let rows = this.rowCounts.get(table);
    if (rows === undefined) {
      const record = this.db.prepare(`SELECT block FROM ${table}_data WHERE id = 1`).pluck().get() as Buffer | undefined;
      rows = record ? ftsAverages(record).rows : 0;
      this.rowCounts.set(table, rows);
    }
    return rows;
  }
}
