// Schema 2's posting lists, built once by its migration from the documents' term lists that schema 1 kept
// (`lexical_docs`); the index keeps them in step itself from then on (lexical-index.ts).

import type { PoolClient } from "pg";
import { Fts5Tokens } from "./fts5-tokens.js";
import {
  blockPostings,
  defaultReadAtOnce,
  LexicalIndex,
  lexicalIndexes,
  postingLists,
  unpackCounts,
  writeBlocks,
  type FieldLoader,
  type LexicalIndexName,
  type StoredDocument,
} from "./lexical-index.js";
import type { Postings } from "./postings.js";

/**
 * Schema 2's posting lists, built from the documents' term lists that schema 1 kept (inside the migration's
 * transaction): documents are read in key order a batch at a time, and a term's list is written as a block each time it
 * fills one. Schema 1 kept at most 1023 of a term in a field; documents with such a count (a whole long video) are then
 * indexed again from their text, so their lists have the counts as counted.
 */
export async function buildPostingLists(client: PoolClient, loaders: Record<Exclude<LexicalIndexName, "chapter">, FieldLoader>): Promise<void> {
  // Schema 1 had no chapter index.
  for (const index of Object.keys(loaders) as (keyof typeof loaders)[]) {
    const pending = new Map<number, StoredDocument[]>();
    const flush = async (onlyFull: boolean): Promise<void> => {
      const lists = [...pending].filter(([, documents]) => !onlyFull || documents.length >= blockPostings);
      for (const [term] of lists) pending.delete(term);
      const blocks = lists.map(([term, documents]) => ({ term, postings: postingLists(documents, term).get(term) as Postings }));
      await writeBlocks(client, index, blocks);
    };
    /** Documents of schema 1–3's `lexical_docs`, as the posting lists hold them. */
    const storedDocuments = async (where: string, values: unknown[]): Promise<StoredDocument[]> => {
      const { rows } = await client.query<Omit<StoredDocument, "counts"> & { counts: number[] }>(
        `SELECT key, video_key, terms, counts, length FROM lexical_docs WHERE index = $1 AND ${where}`,
        [lexicalIndexes[index], ...values],
      );
      return rows.map((row) => ({ ...row, counts: row.counts.map(unpackCounts) }));
    };
    let after = -1;
    let read = 0;
    for (;;) {
      const rows = await storedDocuments("key > $2 ORDER BY key LIMIT 5000", [after]);
      if (rows.length === 0) break;
      for (const row of rows) {
        for (const id of row.terms) {
          if (id <= 0) continue;
          const documents = pending.get(id);
          if (documents) documents.push(row);
          else pending.set(id, [row]);
        }
      }
      after = rows.at(-1)?.key ?? after;
      read += rows.length;
      // Full lists as they fill; every list each 200,000 documents, so memory stays bounded on a large library.
      await flush(read % 200_000 !== 0);
    }
    await flush(false);
    const capped = await storedDocuments(
      "EXISTS (SELECT FROM unnest(counts) c WHERE c & 1023 = 1023 OR (c >> 10) & 1023 = 1023 OR (c >> 20) & 1023 = 1023)",
      [],
    );
    if (capped.length === 0) continue;
    const tokens = new Fts5Tokens();
    try {
      const fields = await loaders[index](client, capped.map((row) => row.key));
      const lexical = new LexicalIndex(tokens, defaultReadAtOnce, false);
      await lexical.removeStored(client, index, capped);
      await lexical.add(client, index, capped.map((row) => ({ key: row.key, ...(row.video_key === null ? {} : { videoKey: row.video_key }), fields: fields.get(row.key) ?? [] })));
    } finally {
      tokens.close();
    }
  }
}
