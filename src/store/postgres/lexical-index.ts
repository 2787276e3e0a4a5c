// BM25 from term statistics, computed exactly as SQLite's FTS5 bm25() does (k1 = 1.2, b = 0.75), so a library ranks the
// same on both stores:
//   score(doc) = Σ over query phrases of idf · f·(k1 + 1) / (f + k1·(1 − b + b·|doc| / avgdl))
// where f is the phrase's count in each searched field times the field's weight, |doc| the document's tokens in every
// field (plus one for the video token FTS5's `video` column holds in the clip, video and chapter indexes), avgdl the
// mean of that over the index, and idf = ln((N − n + 0.5) / (n + 0.5)) (at least 1e-6) with n the documents holding
// the phrase in the searched fields. A term weighted w counts w times, as a term repeated w times does in an FTS5 query.
//
// `lexical_terms` gives each term an id and keeps how many documents hold it in each non-empty set of fields (7 counts
// for 3 fields, a bit per field), so n is one lookup whichever fields a query searches. Each term's documents are its
// posting list in `lexical_postings` (see postings.ts): every document holding it, with its video, counts per field
// and length, in blocks. A search reads the lists of its terms and scores them here, reading no document row: at
// 10,000 hours, finding each candidate document's row through a GIN index (schema 1) took 2 s for a common word.
// A document is removed as FTS5 removes a contentless row: its stored text, read before it changes, is tokenized again
// to know which lists and statistics to change (schema 4 dropped each document's term list, `lexical_docs`: a fifth of
// the 10,000-hour library). A pruned search scores the few documents that may still reach the top with the terms whose
// lists it skipped from the blocks of those lists that hold them. Phrases (quoted, or a term that tokenizes into several
// words) are counted from the documents' text, found as documents in every word's list.

import type { PoolClient } from "pg";
import { countPhrase, Fts5Tokens } from "./fts5-tokens.js";
import { commonTerms, flooredShare, hasToken, isOneWord } from "../store-checks.js";
import { prepared } from "./prepared.js";
import { addPosting, copyPosting, decodePostings, emptyPostings, encodePostings, sortPostings, type Postings } from "./postings.js";

/**
 * The indexes and their fields: clip documents and whole-video documents (transcript, screen, visual), entities (name and
 * aliases, description), chapters (title, summary, text).
 */
export const lexicalIndexes = { clip: 0, video: 1, entity: 2, chapter: 3 } as const;
export type LexicalIndexName = keyof typeof lexicalIndexes;

const k1 = 1.2;
const b = 0.75;

/**
 * Postings in a full block. A write adds a block per term it holds, and every `mergeFanIn`-th write to a term looks at its
 * small blocks: where `mergeFanIn` of them share a size tier (1–7, 8–63, 64–511, 512–4,095 postings), they are merged into
 * one of the next. A posting is rewritten about four times on its way to a full block, and a list has a few dozen blocks
 * besides its full ones.
 */
export const blockPostings = 4096;
const mergeFanIn = 8;
/** Where the size tiers of small blocks start: `width_bucket(postings, tierStarts)` is a block's tier. */
const tierStarts = [8, 64, 512];

/** A document to index: its owner's key, the video it belongs to (all but entities), its fields' text. */
export interface LexicalDocument {
  key: number;
  videoKey?: number;
  fields: string[];
}

export interface LexicalSearch {
  /** Query terms (raw text; tokenized here) with weights > 0. */
  terms: Map<string, number>;
  phrases: string[];
  /** One weight per field of the index. */
  fieldWeights: number[];
  limit: number;
  /** Only documents of these videos, by id (not entities); those not ready match nothing. */
  videoIds?: string[];
  /** The share of documents from which a one-word term is too common to rank by (see `commonTerms`); `flooredShare` when absent. */
  commonShare?: number;
}

/** Reads documents' field text back, for counting phrases. */
export type FieldLoader = (client: PoolClient, keys: number[]) => Promise<Map<number, string[]>>;

/** Whether documents of this index carry FTS5's extra `video` token in their length. */
const videoToken = (index: LexicalIndexName): number => (index === "entity" ? 0 : 1);

/** A document's fields as a bit mask of those holding the term, from its counts per field. */
const fieldMask = (counts: number[]): number => counts.reduce((mask, count, field) => (count > 0 ? mask | (1 << field) : mask), 0);

/** The 7 per-field-set counts a document adds for a term present in the fields of `mask`. */
const maskCounts = (mask: number): number[] => Array.from({ length: 7 }, (_, set) => ((set + 1) & mask ? 1 : 0));

/** Counts per field as schema 1–3's `lexical_docs` packed them in one integer: 10 bits each, at most 1023. */
export const unpackCounts = (packed: number): number[] => [packed & 1023, (packed >> 10) & 1023, (packed >> 20) & 1023];

/** A document as its posting lists hold it: its terms by id with their counts per field, and its length. */
export interface StoredDocument {
  key: number;
  video_key: number | null;
  terms: number[];
  counts: number[][];
  length: number;
}

interface Block {
  term: number;
  first_key: number;
  postings: number;
  data: Buffer;
}

/**
 * Postings a search reads with its terms' statistics, in the same statement, when its terms' lists hold no more in all:
 * scoring them all costs less than a round trip more (a few tenths of a millisecond), and most searches of a library of
 * a few hundred hours are that small.
 */
export const defaultReadAtOnce = 20_000;

// The statements of a search.
/**
 * The index's totals, each known term's id and count in the fields of mask $3, and the keys of the ready videos among
 * $4; then, after those rows, the blocks of the terms found in those fields when their lists hold at most $5 postings.
 */
const openSearch = prepared(
  `WITH t AS MATERIALIZED (
      SELECT term, id, documents[$3] AS count, documents[7] AS postings FROM lexical_terms WHERE index = $1 AND term = ANY($2::text[]))
    SELECT s.documents, s.tokens, t.term, t.id, t.count,
        CASE WHEN $4::text[] IS NULL THEN NULL ELSE ARRAY(SELECT key FROM videos WHERE status = 'ready' AND id = ANY($4::text[])) END AS video_keys,
        NULL::integer AS block_term, NULL::bigint AS first_key, NULL::integer AS postings, NULL::bytea AS data
      FROM lexical_totals s LEFT JOIN t ON true
      WHERE s.index = $1
    UNION ALL
    SELECT NULL, NULL, NULL, NULL, NULL, NULL, b.term, b.first_key, b.postings, b.data
      FROM lexical_postings b
      WHERE b.index = $1 AND b.term IN (SELECT id FROM t WHERE count > 0)
        AND (SELECT coalesce(sum(postings), 0) FROM t WHERE count > 0) <= $5`,
);
const readLists = prepared(`SELECT term, first_key, postings, data FROM lexical_postings WHERE index = $1 AND term = ANY($2::integer[])`);
const readBlocksHolding = prepared(
  `SELECT term, first_key, postings, data FROM lexical_postings b WHERE index = $1 AND term = ANY($2::integer[])
    AND EXISTS (SELECT 1 FROM unnest($3::bigint[]) AS k(key) WHERE k.key BETWEEN b.first_key AND b.last_key)`,
);
/** One term of a ranked query: its id, its weight times idf, and the most it can add to a score. */
interface QueryTerm {
  id: number;
  weight: number;
  bound: number;
}

export class LexicalIndex {
  /** Blocks deleted (merged, or rewritten without removed documents) since `vacuumed` was last called. */
  private deleted = 0;

  /**
   * `readAtOnce`: see `defaultReadAtOnce`. `byLanguage`: stem each video's text in its language (false only in the
   * migrations that run before videos had one, schema 8).
   */
  constructor(
    private readonly tokens: Fts5Tokens,
    private readonly readAtOnce = defaultReadAtOnce,
    private readonly byLanguage = true,
  ) {}

  /** Blocks this index has deleted since the last vacuum: dead rows of `lexical_postings` until one frees them. */
  get deletedBlocks(): number {
    return this.deleted;
  }

  /** Counts deleted blocks from now on. */
  vacuumed(): void {
    this.deleted = 0;
  }

  /**
   * Adds documents not in the index, keeping term statistics, posting lists and totals in step; inside the caller's
   * transaction. A document changed is removed with its old text first (see `remove`).
   */
  async add(client: PoolClient, index: LexicalIndexName, documents: LexicalDocument[]): Promise<void> {
    if (documents.length === 0) return;
    const parsed = this.analyse(index, documents, await this.languagesOf(client, index, documents.map((document) => document.videoKey)));
    const delta = new Map<string, number[]>();
    for (const entry of parsed) {
      for (const [at, term] of entry.terms.entries()) addCounts(delta, term, maskCounts(fieldMask(entry.counts[at] ?? [])), 1);
    }
    const { ids, due } = await this.addTerms(client, index, delta);
    const stored = parsed.map((entry) => ({ ...entry, terms: entry.terms.map((term) => ids.get(term) as number) }));
    await this.addTotals(client, index, documents.length, parsed.reduce((sum, entry) => sum + entry.length, 0));
    await this.addPostings(client, index, stored, due);
  }

  /**
   * Removes documents, given the text they were indexed with (read before it changes, with the rows that own it locked),
   * keeping statistics in step.
   */
  async remove(client: PoolClient, index: LexicalIndexName, documents: LexicalDocument[]): Promise<void> {
    if (documents.length === 0) return;
    const parsed = this.analyse(index, documents, await this.languagesOf(client, index, documents.map((document) => document.videoKey)));
    const terms = [...new Set(parsed.flatMap((entry) => entry.terms))];
    const { rows } = await client.query<{ term: string; id: number }>(`SELECT term, id FROM lexical_terms WHERE index = $1 AND term = ANY($2::text[])`, [
      lexicalIndexes[index],
      terms,
    ]);
    const ids = new Map(rows.map((row) => [row.term, row.id]));
    const unknown = terms.find((term) => !ids.has(term));
    if (unknown !== undefined) throw new Error(`the ${index} index has no term "${unknown}" of a document it is asked to remove`);
    await this.removeStored(client, index, parsed.map((entry) => ({ ...entry, terms: entry.terms.map((term) => ids.get(term) as number) })));
  }

  /**
   * The language each video's text is indexed in, as its row says now (a commit forgets the old text before it changes
   * the row); entities are indexed as they are.
   */
  private async languagesOf(client: PoolClient, index: LexicalIndexName, videoKeys: readonly (number | null | undefined)[]): Promise<(string | undefined)[]> {
    const keys = [...new Set(videoKeys.filter((key): key is number => typeof key === "number"))];
    if (!this.byLanguage || index === "entity" || keys.length === 0) return videoKeys.map(() => undefined);
    const { rows } = await client.query<{ key: number; language: string | null }>(`SELECT key, language FROM videos WHERE key = ANY($1::bigint[])`, [keys]);
    const languages = new Map(rows.map((row) => [Number(row.key), row.language ?? undefined]));
    return videoKeys.map((key) => (typeof key === "number" ? languages.get(Number(key)) : undefined));
  }

  /** Documents' distinct terms with their counts per field, and their lengths as FTS5 counts them. */
  private analyse(index: LexicalIndexName, documents: LexicalDocument[], languages: readonly (string | undefined)[]): (Omit<StoredDocument, "terms"> & { terms: string[] })[] {
    const analysed = this.tokens.terms(documents.map((document) => document.fields), languages);
    return documents.map((document, position) => {
      const fields = analysed[position] ?? [];
      const terms = [...new Set(fields.flatMap((field) => [...field.counts.keys()]))];
      return {
        key: document.key,
        video_key: document.videoKey ?? null,
        terms,
        counts: terms.map((term) => [0, 1, 2].map((field) => fields[field]?.counts.get(term) ?? 0)),
        length: fields.reduce((sum, field) => sum + field.tokens, 0) + videoToken(index),
      };
    });
  }

  /** Removes documents given as their posting lists hold them. */
  async removeStored(client: PoolClient, index: LexicalIndexName, rows: StoredDocument[]): Promise<void> {
    if (rows.length === 0) return;
    const delta = new Map<number, number[]>();
    for (const row of rows) {
      // Schema 1 also listed a visual term under its negated id; those never had statistics of their own.
      for (const [at, id] of row.terms.entries()) if (id > 0) addCounts(delta, id, maskCounts(fieldMask(row.counts[at] ?? [])), -1);
    }
    const ids = [...delta.keys()].sort((a, b) => a - b);
    await client.query(
      `UPDATE lexical_terms t SET documents = ARRAY(
          SELECT a + b FROM unnest(t.documents, string_to_array(d.counts, ',')::integer[]) WITH ORDINALITY AS x(a, b, i) ORDER BY i)
        FROM (SELECT * FROM unnest($1::integer[], $2::text[]) AS d(id, counts) ORDER BY id) d
        WHERE t.id = d.id`,
      [ids, ids.map((id) => (delta.get(id) ?? []).join(","))],
    );
    await client.query(`DELETE FROM lexical_terms WHERE id = ANY($1::integer[]) AND documents[7] <= 0`, [ids]);
    await this.addTotals(client, index, -rows.length, -rows.reduce((sum, row) => sum + row.length, 0));
    await this.removePostings(client, index, rows);
  }

  /**
   * Adds per-term counts, creating terms on first use, and counts the block each write adds to a term's list; their ids,
   * and the terms due a look at their small blocks (each `mergeFanIn`-th write). Terms in a fixed order, so two writers
   * lock alike.
   */
  private async addTerms(client: PoolClient, index: LexicalIndexName, delta: Map<string, number[]>): Promise<{ ids: Map<string, number>; due: Set<number> }> {
    const terms = [...delta.keys()].sort();
    if (terms.length === 0) return { ids: new Map(), due: new Set() };
    const { rows } = await client.query<{ term: string; id: number; writes: number }>(
      `INSERT INTO lexical_terms (index, term, documents, writes)
        SELECT $1, t.term, string_to_array(t.counts, ',')::integer[], 1 FROM unnest($2::text[], $3::text[]) AS t(term, counts)
        ORDER BY t.term
        ON CONFLICT (index, term) DO UPDATE SET writes = lexical_terms.writes + 1, documents = ARRAY(
          SELECT a + b FROM unnest(lexical_terms.documents, excluded.documents) WITH ORDINALITY AS x(a, b, i) ORDER BY i)
        RETURNING term, id, writes`,
      [lexicalIndexes[index], terms, terms.map((term) => (delta.get(term) ?? []).join(","))],
    );
    return { ids: new Map(rows.map((row) => [row.term, row.id])), due: new Set(rows.filter((row) => row.writes % mergeFanIn === 0).map((row) => row.id)) };
  }

  private async addTotals(client: PoolClient, index: LexicalIndexName, documents: number, tokens: number): Promise<void> {
    await client.query(`UPDATE lexical_totals SET documents = documents + $2, tokens = tokens + $3 WHERE index = $1`, [
      lexicalIndexes[index],
      documents,
      tokens,
    ]);
  }

  /** Adds a block per term for these documents, then merges the small blocks that have filled a tier, of the terms due. */
  private async addPostings(client: PoolClient, index: LexicalIndexName, documents: StoredDocument[], due: Set<number>): Promise<void> {
    const lists = postingLists(documents);
    const terms = [...lists.keys()].sort((x, y) => x - y);
    await writeBlocks(client, index, terms.map((term) => ({ term, postings: lists.get(term) as Postings })));
    if (due.size === 0) return;
    // The small blocks of the terms due, where `mergeFanIn` of them share a tier, are found and deleted in one statement.
    const { rows: blocks } = await client.query<Block>(
      `DELETE FROM lexical_postings WHERE ctid = ANY(ARRAY(
          SELECT address FROM (
            SELECT ctid AS address, count(*) OVER (PARTITION BY term, width_bucket(postings, $4::integer[])) AS blocks
              FROM lexical_postings WHERE index = $1 AND term = ANY($2::integer[]) AND postings < $3) small
            WHERE blocks >= $5))
        RETURNING term, first_key, postings, data`,
      [lexicalIndexes[index], [...due], blockPostings, tierStarts, mergeFanIn],
    );
    if (blocks.length === 0) return;
    this.deleted += blocks.length;
    const merged = [...groupBlocks(blocks)].map(([term, list]) => ({ term, postings: sortPostings(list) }));
    await writeBlocks(client, index, merged);
  }

  /** Takes removed documents out of their terms' posting lists. */
  private async removePostings(client: PoolClient, index: LexicalIndexName, documents: StoredDocument[]): Promise<void> {
    const removed = new Map<number, Set<number>>();
    for (const document of documents) {
      for (const id of document.terms) if (id > 0) removed.set(id, (removed.get(id) ?? new Set()).add(document.key));
    }
    const keys = documents.map((document) => document.key);
    const { rows } = await client.query<Block & { last_key: number; address: string }>(
      `SELECT term, first_key, last_key, postings, ctid AS address FROM lexical_postings
        WHERE index = $1 AND term = ANY($2::integer[]) AND first_key <= $4 AND last_key >= $3 ORDER BY term, first_key`,
      [lexicalIndexes[index], [...removed.keys()], keys.reduce((x, y) => Math.min(x, y)), keys.reduce((x, y) => Math.max(x, y))],
    );
    const touched = rows.filter((row) => [...(removed.get(row.term) ?? [])].some((key) => key >= row.first_key && key <= row.last_key));
    if (touched.length === 0) return;
    const blocks = await takeBlocks(client, index, touched.map((block) => block.address));
    this.deleted += blocks.length;
    const kept = blocks.map((block) => {
      const list = emptyPostings(block.postings);
      decodePostings(block.data, block.first_key, block.postings, list);
      const gone = removed.get(block.term) ?? new Set<number>();
      const left = emptyPostings(list.size);
      for (let at = 0; at < list.size; at++) if (!gone.has(list.keys[at] as number)) copyPosting(list, at, left);
      return { term: block.term, postings: left };
    });
    await writeBlocks(client, index, kept.filter((block) => block.postings.size > 0));
  }

  /** The posting lists of these terms; with `keys`, only the blocks that may hold one of those documents. */
  private async readPostings(client: PoolClient, index: LexicalIndexName, terms: number[], keys?: number[]): Promise<Map<number, Postings>> {
    if (terms.length === 0 || keys?.length === 0) return new Map();
    const { rows } = keys
      ? await client.query<Block>({ ...readBlocksHolding, values: [lexicalIndexes[index], terms, keys] })
      : await client.query<Block>({ ...readLists, values: [lexicalIndexes[index], terms] });
    return groupBlocks(rows);
  }

  /** How many documents hold each term (any field) and how many documents there are. */
  async documentFrequency(client: PoolClient, index: LexicalIndexName, texts: string[], loadFields: FieldLoader): Promise<{ frequencies: Map<string, number>; documentCount: number }> {
    const totals = await this.totals(client, index);
    const frequencies = new Map<string, number>();
    const single = new Map<string, string>();
    for (const text of new Set(texts)) {
      const tokens = this.tokens.tokens(text);
      if (tokens.length === 0) frequencies.set(text, 0);
      else if (tokens.length === 1) single.set(text, tokens[0] as string);
      else frequencies.set(text, (await this.phraseHits(client, index, tokens, [1, 1, 1], loadFields)).size);
    }
    const known = await this.lookup(client, index, [...new Set(single.values())], 7);
    for (const [text, term] of single) frequencies.set(text, known.get(term)?.count ?? 0);
    return { frequencies, documentCount: totals.documents };
  }

  /** Best documents first, as [key, score]; ties by key. */
  async search(client: PoolClient, index: LexicalIndexName, query: LexicalSearch, loadFields: FieldLoader): Promise<[number, number][]> {
    const weights = query.fieldWeights;
    const mask = fieldMask(weights);
    if (mask === 0 || query.limit <= 0) return [];
    // Terms that tokenize into one word are ranked from their posting lists; several words make a phrase, counted from the text.
    const single = new Map<string, number>();
    const phrases: { tokens: string[]; weight: number }[] = [];
    // The weight each token has from one-word terms, which may be left out as too common as the SQLite store leaves
    // them out (see `commonTerms`), and whether anything else is asked for.
    const oneWord = new Map<string, number>();
    let othersAsked = query.phrases.some(hasToken);
    for (const [text, weight] of query.terms) {
      const tokens = this.tokens.tokens(text);
      if (tokens.length === 1) single.set(tokens[0] as string, (single.get(tokens[0] as string) ?? 0) + weight);
      else if (tokens.length > 1) phrases.push({ tokens, weight });
      if (tokens.length === 1 && isOneWord(text)) oneWord.set(tokens[0] as string, (oneWord.get(tokens[0] as string) ?? 0) + weight);
      else if (hasToken(text)) othersAsked = true;
    }
    for (const phrase of query.phrases) {
      const tokens = this.tokens.tokens(phrase);
      if (tokens.length === 1) single.set(tokens[0] as string, (single.get(tokens[0] as string) ?? 0) + 1);
      else if (tokens.length > 1) phrases.push({ tokens, weight: 1 });
    }
    if (single.size === 0 && phrases.length === 0) return [];
    const { totals, known, videoKeys, lists: atOnce } = await this.open(client, index, [...single.keys()], mask, query.videoIds);
    if (totals.documents === 0 || videoKeys?.length === 0) return [];
    const averageLength = totals.tokens / totals.documents;
    const idf = (hits: number): number => Math.max(Math.log((totals.documents - hits + 0.5) / (hits + 0.5)), 1e-6);
    const saturation = (frequency: number, length: number): number => (frequency * (k1 + 1)) / (frequency + k1 * (1 - b + (b * length) / averageLength));
    const allowed = videoKeys ? new Set(videoKeys) : undefined;
    // The documents best for the one-word terms `asked` (with their weights) and the phrases.
    const rank = async (asked: Map<string, number>): Promise<[number, number][]> => {
      // A term no document holds in the searched fields scores nothing and matches nothing.
      const terms: QueryTerm[] = [...known]
        .filter(([text, term]) => term.count > 0 && asked.has(text))
        .map(([text, term]) => {
          const weight = (asked.get(text) ?? 0) * idf(term.count);
          return { id: term.id, weight, bound: weight * (k1 + 1) };
        })
        .sort((x, y) => y.bound - x.bound || x.id - y.id);
      const scores = new Map<number, number>();
      // Adds the terms' scores to every document in their lists (read, unless they came at once), or only to the
      // documents `only` (whose blocks are read).
      const score = async (ranked: QueryTerm[], only?: number[]): Promise<void> => {
        const lists = atOnce ?? (await this.readPostings(client, index, ranked.map((term) => term.id), only));
        const within = only && new Set(only);
        for (const term of ranked) {
          const list = lists.get(term.id);
          if (!list) continue;
          for (let at = 0; at < list.size; at++) {
            if (within ? !within.has(list.keys[at] as number) : allowed && !allowed.has(list.videoKeys[at] as number)) continue;
            const frequency = (list.counts[at * 3] as number) * (weights[0] ?? 0) + (list.counts[at * 3 + 1] as number) * (weights[1] ?? 0) + (list.counts[at * 3 + 2] as number) * (weights[2] ?? 0);
            if (frequency <= 0) continue;
            const key = list.keys[at] as number;
            scores.set(key, (scores.get(key) ?? 0) + term.weight * saturation(frequency, list.lengths[at] as number));
          }
        }
      };
      const limit = Math.floor(query.limit);
      if (atOnce || phrases.length > 0 || terms.length <= 2) await score(terms);
      else {
        // MaxScore: a term adds at most weight · idf · (k1 + 1) to a document, however often it occurs. Common terms
        // ("make" is in 6,893 of 8,648 how-to videos; its idf is the 1e-6 floor) have the longest lists and add little.
        // The two strongest terms are scored first: the k-th score is a floor for the true k-th. The weakest other terms
        // whose bounds sum below that floor cannot alone put a document in the top k: their lists are not read. The other
        // lists are, and each document found keeps an exact partial score. A document may still reach the top k only if
        // its partial score plus the skipped terms' bounds reaches the k-th partial score; those few are scored with the
        // skipped terms, so the top k is exact, from the skipped lists' blocks that hold them. (Read from the documents'
        // own term lists instead, as schema 3 could, p95 at 10,000 hours was 98 against 68–79 ms naive, 76 against 50–57
        // visual: a whole-video document's term list is a few kilobytes of TOAST.)
        await score(terms.slice(0, 2));
        const floor = kthLargest(scores, limit);
        const rest = terms.slice(2);
        let skipped = 0;
        let skippedBound = 0;
        while (skipped < rest.length && skippedBound + (rest[rest.length - 1 - skipped]?.bound ?? 0) < floor) skippedBound += rest[rest.length - 1 - skipped++]?.bound ?? 0;
        await score(rest.slice(0, rest.length - skipped));
        const weak = rest.slice(rest.length - skipped);
        if (weak.length > 0) {
          const kth = kthLargest(scores, limit);
          const open = [...scores].filter(([, partial]) => partial + skippedBound >= kth).map(([key]) => key);
          await score(weak, open);
        }
      }
      for (const phrase of phrases) {
        const hits = await this.phraseHits(client, index, phrase.tokens, weights, loadFields);
        const weight = phrase.weight * idf(hits.size);
        for (const [key, { frequency, length, videoKey }] of hits) {
          if (allowed && (videoKey === null || !allowed.has(videoKey))) continue;
          scores.set(key, (scores.get(key) ?? 0) + weight * saturation(frequency, length));
        }
      }
      const kth = kthLargest(scores, limit);
      return [...scores]
        .filter(([, value]) => value >= kth)
        .sort((x, y) => y[1] - x[1] || x[0] - y[0])
        .slice(0, limit);
    };
    // Terms too common to rank by are left out as the SQLite store leaves them out (see `commonTerms`), unless the
    // others bring fewer documents than asked for: then the search runs again with them.
    const counts = new Map([...oneWord.keys()].map((token) => [token, known.get(token)?.count ?? 0]));
    const left = commonTerms(counts, totals.documents, othersAsked, query.commonShare ?? flooredShare);
    if (left.size > 0) {
      const reduced = new Map(single);
      for (const token of left) {
        const weight = (single.get(token) ?? 0) - (oneWord.get(token) ?? 0);
        if (weight > 0) reduced.set(token, weight);
        else reduced.delete(token);
      }
      const ranked = await rank(reduced);
      if (ranked.length >= Math.floor(query.limit)) return ranked;
    }
    return rank(single);
  }

  /** Documents holding the phrase in a weighted field, with its weighted count, their length and video. */
  private async phraseHits(
    client: PoolClient,
    index: LexicalIndexName,
    tokens: string[],
    weights: number[],
    loadFields: FieldLoader,
  ): Promise<Map<number, { frequency: number; length: number; videoKey: number | null }>> {
    const hits = new Map<number, { frequency: number; length: number; videoKey: number | null }>();
    const words = [...new Set(tokens)];
    const known = await this.lookup(client, index, words, 7);
    if (words.some((word) => !known.has(word))) return hits;
    // Documents in every word's list: those of the shortest list, kept while each other list holds them.
    const lists = [...(await this.readPostings(client, index, words.map((word) => known.get(word)?.id as number))).values()].sort((x, y) => x.size - y.size);
    const [shortest, ...others] = lists;
    if (!shortest || lists.length < words.length) return hits;
    let candidates = new Map<number, { length: number; videoKey: number | null }>();
    for (let at = 0; at < shortest.size; at++) {
      candidates.set(shortest.keys[at] as number, { length: shortest.lengths[at] as number, videoKey: index === "entity" ? null : (shortest.videoKeys[at] as number) });
    }
    for (const list of others) {
      const kept = new Map<number, { length: number; videoKey: number | null }>();
      for (let at = 0; at < list.size; at++) {
        const found = candidates.get(list.keys[at] as number);
        if (found) kept.set(list.keys[at] as number, found);
      }
      candidates = kept;
    }
    if (candidates.size === 0) return hits;
    const texts = await loadFields(client, [...candidates.keys()]);
    const keys = [...candidates.keys()].filter((key) => texts.has(key));
    const languages = await this.languagesOf(client, index, keys.map((key) => candidates.get(key)?.videoKey));
    const sequences = this.tokens.sequences(keys.map((key) => texts.get(key) ?? []), languages);
    for (const [position, key] of keys.entries()) {
      const fields = sequences[position] ?? [];
      const frequency = fields.reduce((sum, field, number) => sum + (weights[number] ?? 0) * countPhrase(field, tokens), 0);
      if (frequency > 0) hits.set(key, { frequency, ...(candidates.get(key) as { length: number; videoKey: number | null }) });
    }
    return hits;
  }

  /** Each known term's id and how many documents hold it in at least one field of `mask`. */
  private async lookup(client: PoolClient, index: LexicalIndexName, terms: string[], mask: number): Promise<Map<string, { id: number; count: number }>> {
    if (terms.length === 0) return new Map();
    const { rows } = await client.query<{ term: string; id: number; count: number }>(
      `SELECT term, id, documents[$3] AS count FROM lexical_terms WHERE index = $1 AND term = ANY($2::text[])`,
      [lexicalIndexes[index], terms, mask],
    );
    return new Map(rows.map((row) => [row.term, { id: row.id, count: row.count }]));
  }

  /**
   * What a search needs before it reads a list, in one statement (a round trip is much of a short search): the index's
   * totals, each known term's id and count in `mask`'s fields, and the keys of the ready videos among `videoIds`.
   */
  private async open(
    client: PoolClient,
    index: LexicalIndexName,
    terms: string[],
    mask: number,
    videoIds: string[] | undefined,
  ): Promise<{
    totals: { documents: number; tokens: number };
    known: Map<string, { id: number; count: number }>;
    videoKeys?: number[];
    /** The lists of the known terms found in `mask`'s fields, when they are small enough to come at once. */
    lists?: Map<number, Postings>;
  }> {
    type Row = { documents: number | null; tokens: number; video_keys: number[] | null; term: string | null; id: number; count: number; block_term: number | null } & Omit<Block, "term">;
    const { rows } = await client.query<Row>({ ...openSearch, values: [lexicalIndexes[index], terms, mask, videoIds ?? null, this.readAtOnce] });
    const opened = rows.filter((row) => row.block_term === null);
    const first = opened[0];
    const known = new Map(opened.flatMap((row) => (row.term === null ? [] : [[row.term, { id: row.id, count: row.count }] as const])));
    const blocks = rows.flatMap((row) => (row.block_term === null ? [] : [{ ...row, term: row.block_term }]));
    // Lists that came at once hold every found term (a list has at least one block): where none came, they were too
    // long, or no term was found.
    return {
      totals: { documents: Number(first?.documents ?? 0), tokens: Number(first?.tokens ?? 0) },
      known,
      ...(videoIds ? { videoKeys: (first?.video_keys ?? []).map(Number) } : {}),
      ...(blocks.length > 0 ? { lists: groupBlocks(blocks) } : {}),
    };
  }

  private async totals(client: PoolClient, index: LexicalIndexName): Promise<{ documents: number; tokens: number }> {
    const { rows } = await client.query<{ documents: number; tokens: number }>(
      `SELECT documents, tokens FROM lexical_totals WHERE index = $1`,
      [lexicalIndexes[index]],
    );
    return rows[0] ?? { documents: 0, tokens: 0 };
  }
}

/**
 * Deletes these blocks, found in this transaction with their row's address (`ctid`), and returns them for writing back
 * changed. Writers of one term take turns: a transaction changes a term's list only after changing its statistics in
 * `lexical_terms`, which locks that row until it commits. So no other writer deletes one of these blocks meanwhile, and
 * no block is ever updated in place, so an address found stays its block's. By address, a merge's delete in a 20-hour
 * build takes 3.3 ms, against 5.1–6.2 through the primary key with the rows locked first in key order.
 */
async function takeBlocks(client: PoolClient, index: LexicalIndexName, addresses: string[]): Promise<Block[]> {
  const { rows } = await client.query<Block>(`DELETE FROM lexical_postings WHERE ctid = ANY($2::tid[]) AND index = $1 RETURNING term, first_key, postings, data`, [
    lexicalIndexes[index],
    addresses,
  ]);
  return rows;
}

/** Writes each term's postings (ordered by key) as blocks of at most `blockPostings`. */
export async function writeBlocks(client: PoolClient, index: LexicalIndexName, lists: { term: number; postings: Postings }[]): Promise<void> {
  const rows: { term: number; firstKey: number; lastKey: number; count: number; data: Buffer }[] = [];
  for (const { term, postings } of lists) {
    for (let from = 0; from < postings.size; from += blockPostings) {
      const to = Math.min(from + blockPostings, postings.size);
      rows.push({ term, firstKey: postings.keys[from] as number, lastKey: postings.keys[to - 1] as number, count: to - from, data: encodePostings(postings, from, to) });
    }
  }
  if (rows.length === 0) return;
  await client.query(
    `INSERT INTO lexical_postings (index, term, first_key, last_key, postings, data)
      SELECT $1, * FROM unnest($2::integer[], $3::bigint[], $4::bigint[], $5::integer[], $6::bytea[])`,
    [lexicalIndexes[index], rows.map((row) => row.term), rows.map((row) => row.firstKey), rows.map((row) => row.lastKey), rows.map((row) => row.count), rows.map((row) => row.data)],
  );
}

/** Each term's postings from these documents, ordered by key; only `term`'s when given. */
export function postingLists(documents: StoredDocument[], term?: number): Map<number, Postings> {
  const sizes = new Map<number, number>();
  for (const document of documents) {
    for (const id of document.terms) if (id > 0 && (term === undefined || id === term)) sizes.set(id, (sizes.get(id) ?? 0) + 1);
  }
  const lists = new Map([...sizes].map(([id, size]) => [id, emptyPostings(size)]));
  for (const document of [...documents].sort((x, y) => x.key - y.key)) {
    for (const [at, id] of document.terms.entries()) {
      const list = lists.get(id);
      if (list) addPosting(list, document.key, document.video_key ?? 0, document.counts[at] ?? [0, 0, 0], document.length);
    }
  }
  return lists;
}

/** Blocks decoded and joined per term. */
function groupBlocks(blocks: Block[]): Map<number, Postings> {
  const sizes = new Map<number, number>();
  for (const block of blocks) sizes.set(block.term, (sizes.get(block.term) ?? 0) + block.postings);
  const lists = new Map([...sizes].map(([term, size]) => [term, emptyPostings(size)]));
  for (const block of blocks) decodePostings(block.data, block.first_key, block.postings, lists.get(block.term) as Postings);
  return lists;
}

/** The k-th largest of the values (0 when there are fewer than k), by a min-heap of k. */
function kthLargest(values: Map<number, number>, k: number): number {
  if (k <= 0) return Infinity;
  if (values.size < k) return 0;
  const heap = new Float64Array(k);
  let size = 0;
  const siftDown = (): void => {
    let at = 0;
    for (;;) {
      const left = 2 * at + 1;
      const right = left + 1;
      let least = at;
      if (left < size && (heap[left] as number) < (heap[least] as number)) least = left;
      if (right < size && (heap[right] as number) < (heap[least] as number)) least = right;
      if (least === at) return;
      [heap[at], heap[least]] = [heap[least] as number, heap[at] as number];
      at = least;
    }
  };
  for (const value of values.values()) {
    if (size < k) {
      let at = size++;
      heap[at] = value;
      while (at > 0 && (heap[(at - 1) >> 1] as number) > (heap[at] as number)) {
        const parent = (at - 1) >> 1;
        [heap[at], heap[parent]] = [heap[parent] as number, heap[at] as number];
        at = parent;
      }
    } else if (value > (heap[0] as number)) {
      heap[0] = value;
      siftDown();
    }
  }
  return size < k ? 0 : (heap[0] as number);
}

function addCounts<Key>(delta: Map<Key, number[]>, term: Key, counts: number[], sign: number): void {
  const held = delta.get(term) ?? Array<number>(7).fill(0);
  for (const [set, count] of counts.entries()) held[set] = (held[set] ?? 0) + sign * count;
  delta.set(term, held);
}
