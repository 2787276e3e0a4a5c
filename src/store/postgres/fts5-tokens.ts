// The SQLite store's tokenizer, lent to stores that rank BM25 themselves: text goes through an in-memory FTS5 table with
// the same `porter unicode61 remove_diacritics 2` tokenizer, and the terms come back from its `fts5vocab` table. One
// definition of a term for every store, so a question ranks the same videos on SQLite and on Postgres; a stemmer
// written again in JavaScript would differ from FTS5's on some words, and recall with it.

import Database from "better-sqlite3";
import { indexedText } from "../../text/index.js";

/** The tokens of one document, per field: each term with how often it occurs, and the field's token count. */
export interface FieldTerms {
  counts: Map<string, number>;
  tokens: number;
}

/** Tokens of each field in order, for counting phrases. */
export type FieldSequences = string[][];

const maxFields = 3;

/** An FTS5 tokenizer in a private in-memory database; `close` releases it. */
export class Fts5Tokens {
  private readonly db = new Database(":memory:");
  private readonly insert;
  private readonly instances;
  private readonly clear;

  /**
   * How text was written when an older schema indexed it, for a migration to forget its terms so: `cjkAsRuns`, text as
   * it is (CJK, Thai, Lao, Khmer and Burmese runs whole), as schemas before 9 indexed it; `spacelessAsRuns`, as now
   * but Thai, Lao, Khmer and Burmese runs whole, as schemas 9 and 10 indexed it (see indexed-text.ts).
   */
  constructor(private readonly options: { cjkAsRuns?: boolean; spacelessAsRuns?: boolean } = {}) {
    this.db.exec(`
      CREATE VIRTUAL TABLE docs USING fts5 (f0, f1, f2, tokenize = 'porter unicode61 remove_diacritics 2');
      CREATE VIRTUAL TABLE doc_terms USING fts5vocab (docs, instance);
    `);
    this.insert = this.db.prepare(`INSERT INTO docs (rowid, f0, f1, f2) VALUES (?, ?, ?, ?)`);
    this.instances = this.db.prepare(`SELECT doc, col, offset, term FROM doc_terms ORDER BY doc, col, offset`).raw();
    this.clear = this.db.prepare(`DELETE FROM docs`);
  }

  /**
   * Each document's fields (at most three) as token sequences, in order; `languages[i]`, the language document i's
   * words are stemmed in before FTS5 sees them (as the SQLite store indexes a video's text; see indexed-text.ts).
   */
  sequences(documents: string[][], languages: readonly (string | undefined)[] = []): FieldSequences[] {
    const result: FieldSequences[] = documents.map((fields) => fields.map(() => []));
    if (documents.length === 0) return result;
    const run = this.db.transaction(() => {
      for (const [index, fields] of documents.entries()) {
        if (fields.length > maxFields) throw new Error(`a document has ${fields.length} fields; at most ${maxFields}`);
        // As the SQLite store gives text to FTS5: CJK runs as character pairs, Thai words apart (indexed-text.ts).
        const language = languages[index];
        const { cjkAsRuns, spacelessAsRuns } = this.options;
        const form = cjkAsRuns ? (text: string) => text : (text: string) => indexedText(text, language, { spacelessAsRuns });
        this.insert.run(index, form(fields[0] ?? ""), form(fields[1] ?? ""), form(fields[2] ?? ""));
      }
      for (const [doc, col, , term] of this.instances.all() as [number, string | number, number, string][]) {
        result[doc]?.[fieldIndex(col)]?.push(term);
      }
      this.clear.run();
    });
    run();
    return result;
  }

  /** Each document's fields as term counts and token counts (`languages` as for `sequences`). */
  terms(documents: string[][], languages: readonly (string | undefined)[] = []): FieldTerms[][] {
    return this.sequences(documents, languages).map((fields) =>
      fields.map((tokens) => {
        const counts = new Map<string, number>();
        for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
        return { counts, tokens: tokens.length };
      }),
    );
  }

  /** The tokens one piece of text becomes (a query term, a phrase). */
  tokens(text: string): string[] {
    return this.sequences([[text]])[0]?.[0] ?? [];
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

// fts5vocab names the column ("f0") in recent SQLite builds; older ones gave its index.
const fieldIndex = (col: string | number): number => (typeof col === "number" ? col : Number(col.slice(1)));

/** How often `phrase` occurs, as consecutive tokens, in a token sequence. */
export function countPhrase(tokens: string[], phrase: string[]): number {
  if (phrase.length === 0 || phrase.length > tokens.length) return 0;
  let count = 0;
  for (let start = 0; start + phrase.length <= tokens.length; start++) {
    if (phrase.every((token, offset) => tokens[start + offset] === token)) count++;
  }
  return count;
}
