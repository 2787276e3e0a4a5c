// BM25 in SQL from term statistics, computed exactly as SQLite's FTS5 bm25() does (k1 = 1.2, b = 0.75), so a library
// ranks the same on both stores:
//   score(doc) = Σ over query phrases of idf · f·(k1 + 1) / (f + k1·(1 − b + b·|doc| / avgdl))
// where f is the phrase's count in each searched field times the field's weight, |doc| the document's tokens in every
// field (plus one for the video token FTS5's `video` column holds in the clip and video indexes), avgdl the mean of
// that over the index, and idf = ln((N − n + 0.5) / (n + 0.5)) (at least 1e-6) with n the documents holding the phrase
// in the searched fields. A term weighted w counts w times, as a term repeated w times does in an FTS5 query.
//
// Each document keeps its distinct terms as ids, with their counts per field packed in one integer (10 bits each);
// `lexical_terms` gives each term its id and keeps how many documents hold it in each non-empty set of fields (7 counts
// for 3 fields, a bit per field), so n is one lookup whichever fields a query searches. Phrases (quoted, or a term that
// tokenizes into several words) are counted from the documents' text, found through the GIN index as documents holding
// every word of the phrase.

import type { PoolClient } from "pg";
import { countPhrase, type Fts5Tokens } from "./fts5-tokens.js";

/** The three indexes and their fields: clip documents, whole-video documents, entities (name and aliases, description). */
export const lexicalIndexes = { clip: 0, video: 1, entity: 2 } as const;
export type LexicalIndexName = keyof typeof lexicalIndexes;

const k1 = 1.2;
const b = 0.75;

/** A document to index: its owner's key, the video it belongs to (clip and video documents), its fields' text. */
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
  /** Only documents of these videos (clip and video indexes). */
  videoKeys?: number[];
}

/** Reads documents' field text back, for counting phrases. */
export type FieldLoader = (client: PoolClient, keys: number[]) => Promise<Map<number, string[]>>;

/** Whether documents of this index carry FTS5's extra `video` token in their length. */
const videoToken = (index: LexicalIndexName): number => (index === "entity" ? 0 : 1);

/** A document's fields as a bit mask of those holding the term, from its counts per field. */
const fieldMask = (counts: number[]): number => counts.reduce((mask, count, field) => (count > 0 ? mask | (1 << field) : mask), 0);

/** The 7 per-field-set counts a document adds for a term present in the fields of `mask`. */
const maskCounts = (mask: number): number[] => Array.from({ length: 7 }, (_, set) => ((set + 1) & mask ? 1 : 0));

/** Counts per field packed in one integer: 10 bits each, a count above 1023 read as 1023 (BM25 has saturated long before). */
const packCounts = (counts: number[]): number => counts.reduce((packed, count, field) => packed | (Math.min(count, 1023) << (10 * field)), 0);
const unpackCounts = (packed: number): number[] => [packed & 1023, (packed >> 10) & 1023, (packed >> 20) & 1023];

interface StoredDocument {
  terms: number[];
  counts: number[];
  length: number;
}

export class LexicalIndex {
  constructor(private readonly tokens: Fts5Tokens) {}

  /** Replaces (or adds) documents, keeping term statistics and totals in step; inside the caller's transaction. */
  async put(client: PoolClient, index: LexicalIndexName, documents: LexicalDocument[]): Promise<void> {
    if (documents.length === 0) return;
    await this.remove(client, index, documents.map((document) => document.key));
    const analysed = this.tokens.terms(documents.map((document) => document.fields));
    const delta = new Map<string, number[]>();
    const parsed = documents.map((document, position) => {
      const fields = analysed[position] ?? [];
      const terms = [...new Set(fields.flatMap((field) => [...field.counts.keys()]))];
      const counts = terms.map((term) => [0, 1, 2].map((field) => fields[field]?.counts.get(term) ?? 0));
      for (const [at, term] of terms.entries()) addCounts(delta, term, maskCounts(fieldMask(counts[at] ?? [])), 1);
      return { document, terms, counts, length: fields.reduce((sum, field) => sum + field.tokens, 0) + videoToken(index) };
    });
    const ids = await this.addTerms(client, index, delta);
    await client.query(
      `INSERT INTO lexical_docs (index, key, video_key, terms, counts, length)
        SELECT $1, d.key, d.video_key, string_to_array(d.terms, ',')::integer[], string_to_array(d.counts, ',')::integer[], d.length
        FROM unnest($2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::integer[]) AS d(key, video_key, terms, counts, length)`,
      [
        lexicalIndexes[index],
        parsed.map((entry) => entry.document.key),
        parsed.map((entry) => entry.document.videoKey ?? null),
        // A term in the visual field is listed again as its negated id (with a count of 0), so a search of visual words
        // alone takes its candidates from the visual field instead of every document that says the word.
        parsed.map((entry) =>
          [
            ...entry.terms.map((term) => ids.get(term)),
            ...(index === "entity" ? [] : entry.terms.filter((_, at) => (entry.counts[at]?.[2] ?? 0) > 0).map((term) => -(ids.get(term) ?? 0))),
          ].join(","),
        ),
        parsed.map((entry) =>
          [...entry.counts.map(packCounts), ...(index === "entity" ? [] : entry.counts.filter((counts) => (counts[2] ?? 0) > 0).map(() => 0))].join(","),
        ),
        parsed.map((entry) => entry.length),
      ],
    );
    await this.addTotals(client, index, documents.length, parsed.reduce((sum, entry) => sum + entry.length, 0));
  }

  /** Removes documents by key (those not there are ignored), keeping statistics in step. */
  async remove(client: PoolClient, index: LexicalIndexName, keys: number[]): Promise<void> {
    if (keys.length === 0) return;
    const { rows } = await client.query<StoredDocument>(
      `DELETE FROM lexical_docs WHERE index = $1 AND key = ANY($2::bigint[]) RETURNING terms, counts, length`,
      [lexicalIndexes[index], keys],
    );
    await this.forget(client, index, rows);
  }

  /** Removes the clip documents of a video. */
  async removeVideoClips(client: PoolClient, videoKey: number): Promise<void> {
    const { rows } = await client.query<StoredDocument>(
      `DELETE FROM lexical_docs WHERE index = $1 AND key IN (SELECT key FROM clips WHERE video_key = $2) RETURNING terms, counts, length`,
      [lexicalIndexes.clip, videoKey],
    );
    await this.forget(client, "clip", rows);
  }

  private async forget(client: PoolClient, index: LexicalIndexName, rows: StoredDocument[]): Promise<void> {
    if (rows.length === 0) return;
    const delta = new Map<number, number[]>();
    for (const row of rows) {
      for (const [at, id] of row.terms.entries()) {
        if (id > 0) addCounts(delta, id, maskCounts(fieldMask(unpackCounts(row.counts[at] ?? 0))), -1);
      }
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
  }

  /** Adds per-term counts, creating terms on first use; their ids. Terms in a fixed order, so two writers lock alike. */
  private async addTerms(client: PoolClient, index: LexicalIndexName, delta: Map<string, number[]>): Promise<Map<string, number>> {
    const terms = [...delta.keys()].sort();
    if (terms.length === 0) return new Map();
    const { rows } = await client.query<{ term: string; id: number }>(
      `INSERT INTO lexical_terms (index, term, documents)
        SELECT $1, t.term, string_to_array(t.counts, ',')::integer[] FROM unnest($2::text[], $3::text[]) AS t(term, counts)
        ORDER BY t.term
        ON CONFLICT (index, term) DO UPDATE SET documents = ARRAY(
          SELECT a + b FROM unnest(lexical_terms.documents, excluded.documents) WITH ORDINALITY AS x(a, b, i) ORDER BY i)
        RETURNING term, id`,
      [lexicalIndexes[index], terms, terms.map((term) => (delta.get(term) ?? []).join(","))],
    );
    return new Map(rows.map((row) => [row.term, row.id]));
  }

  private async addTotals(client: PoolClient, index: LexicalIndexName, documents: number, tokens: number): Promise<void> {
    await client.query(`UPDATE lexical_totals SET documents = documents + $2, tokens = tokens + $3 WHERE index = $1`, [
      lexicalIndexes[index],
      documents,
      tokens,
    ]);
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
    // Terms that tokenize into one word are ranked in SQL; several words make a phrase, counted from the text.
    const single = new Map<string, number>();
    const phrases: { tokens: string[]; weight: number }[] = [];
    for (const [text, weight] of query.terms) {
      const tokens = this.tokens.tokens(text);
      if (tokens.length === 1) single.set(tokens[0] as string, (single.get(tokens[0] as string) ?? 0) + weight);
      else if (tokens.length > 1) phrases.push({ tokens, weight });
    }
    for (const phrase of query.phrases) {
      const tokens = this.tokens.tokens(phrase);
      if (tokens.length === 1) single.set(tokens[0] as string, (single.get(tokens[0] as string) ?? 0) + 1);
      else if (tokens.length > 1) phrases.push({ tokens, weight: 1 });
    }
    if (single.size === 0 && phrases.length === 0) return [];
    const totals = await this.totals(client, index);
    if (totals.documents === 0) return [];
    const averageLength = totals.tokens / totals.documents;
    const idf = (hits: number): number => Math.max(Math.log((totals.documents - hits + 0.5) / (hits + 0.5)), 1e-6);

    const scores = new Map<number, number>();
    // A term no document holds in the searched fields scores nothing and matches nothing.
    const known = [...(await this.lookup(client, index, [...single.keys()], mask))].filter(([, term]) => term.count > 0);
    if (known.length > 0) {
      const ids = known.map(([, term]) => term.id);
      const termWeights = known.map(([text, term]) => (single.get(text) ?? 0) * idf(term.count));
      // Visual words alone: candidates through the visual field's negated ids (see `put`).
      const candidateIds = (list: number[]): number[] => (mask === 4 && index !== "entity" ? list.map((id) => -id) : list);
      const rank = async (candidates: number[], limit: number | null): Promise<{ key: number; score: number }[]> =>
        (
          await client.query<{ key: number; score: number }>(
            // Per candidate, each query term is found with array_position (a scan of the document's term ids in C):
            // measured 2.4x faster than unnesting every document's terms (191 against 468 ms for "make water", 33k of
            // 101,684 clip documents).
            `SELECT d.key, sum(m.weight * m.f * ${k1 + 1} / (m.f + ${k1} * (${1 - b} + ${b} * d.length / $4::float8)))::float8 AS score
            FROM lexical_docs d
              CROSS JOIN LATERAL (
                SELECT q.weight, (c & 1023) * $5::float8 + ((c >> 10) & 1023) * $6::float8 + (c >> 20) * $7::float8 AS f
                FROM unnest($2::integer[], $3::float8[]) AS q(id, weight), LATERAL array_position(d.terms, q.id) AS p,
                  LATERAL (SELECT d.counts[p] AS c) packed
                WHERE p IS NOT NULL
              ) m
            WHERE d.index = $1 AND d.terms && $9::integer[] AND m.f > 0 ${query.videoKeys ? "AND d.video_key = ANY($10::bigint[])" : ""}
            GROUP BY d.key ORDER BY score DESC, d.key LIMIT $8`,
            [
              lexicalIndexes[index], ids, termWeights, averageLength, weights[0] ?? 0, weights[1] ?? 0, weights[2] ?? 0, limit, candidateIds(candidates),
              ...(query.videoKeys ? [query.videoKeys] : []),
            ],
          )
        ).rows;
      const limit = phrases.length > 0 ? null : Math.floor(query.limit);
      // MaxScore: a term adds at most weight · idf · (k1 + 1) to a document, however often it occurs. Common terms
      // ("make" is in 6,893 of 8,648 how-to videos; its idf is the 1e-6 floor) bring most candidates and little score.
      // A first pass takes candidates from the two strongest terms (scored with every term): its k-th score is a floor
      // for the true one. Terms whose bounds, weakest first, sum below that floor cannot alone put a document in the top
      // k, so the second pass takes candidates from the other terms only; its top k is exact. When the first pass finds
      // fewer than k documents, every term brings candidates, as without pruning.
      let rows: { key: number; score: number }[];
      if (limit === null || ids.length <= 2) rows = await rank(ids, limit);
      else {
        const byBound = termWeights.map((weight, at) => ({ id: ids[at] as number, bound: weight * (k1 + 1) })).sort((x, y) => x.bound - y.bound);
        const strongest = byBound.slice(-2).map((entry) => entry.id);
        const first = await rank(strongest, limit);
        const floor = first.length === limit ? (first.at(-1)?.score ?? 0) : 0;
        let weak = 0;
        let weakBound = 0;
        while (weak < byBound.length && weakBound + (byBound[weak]?.bound ?? 0) < floor) weakBound += byBound[weak++]?.bound ?? 0;
        const essential = byBound.slice(weak).map((entry) => entry.id);
        rows = essential.length <= 2 && essential.every((id) => strongest.includes(id)) ? first : await rank(essential, limit);
      }
      for (const row of rows) scores.set(row.key, row.score);
    }
    if (phrases.length === 0) return [...scores];

    for (const phrase of phrases) {
      const hits = await this.phraseHits(client, index, phrase.tokens, weights, loadFields);
      const weight = phrase.weight * idf(hits.size);
      const allowed = query.videoKeys ? new Set(query.videoKeys) : undefined;
      for (const [key, { frequency, length, videoKey }] of hits) {
        if (allowed && (videoKey === null || !allowed.has(videoKey))) continue;
        const score = (weight * frequency * (k1 + 1)) / (frequency + k1 * (1 - b + (b * length) / averageLength));
        scores.set(key, (scores.get(key) ?? 0) + score);
      }
    }
    return [...scores].sort((x, y) => y[1] - x[1] || x[0] - y[0]).slice(0, Math.floor(query.limit));
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
    const { rows } = await client.query<{ key: number; length: number; video_key: number | null }>(
      `SELECT key, length, video_key FROM lexical_docs WHERE index = $1 AND terms @> $2::integer[]`,
      [lexicalIndexes[index], words.map((word) => known.get(word)?.id)],
    );
    if (rows.length === 0) return hits;
    const texts = await loadFields(client, rows.map((row) => row.key));
    const keys = rows.filter((row) => texts.has(row.key));
    const sequences = this.tokens.sequences(keys.map((row) => texts.get(row.key) ?? []));
    for (const [position, row] of keys.entries()) {
      const fields = sequences[position] ?? [];
      const frequency = fields.reduce((sum, field, number) => sum + (weights[number] ?? 0) * countPhrase(field, tokens), 0);
      if (frequency > 0) hits.set(row.key, { frequency, length: row.length, videoKey: row.video_key });
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

  private async totals(client: PoolClient, index: LexicalIndexName): Promise<{ documents: number; tokens: number }> {
    const { rows } = await client.query<{ documents: number; tokens: number }>(
      `SELECT documents, tokens FROM lexical_totals WHERE index = $1`,
      [lexicalIndexes[index]],
    );
    return rows[0] ?? { documents: 0, tokens: 0 };
  }
}

function addCounts<Key>(delta: Map<Key, number[]>, term: Key, counts: number[], sign: number): void {
  const held = delta.get(term) ?? Array<number>(7).fill(0);
  for (const [set, count] of counts.entries()) held[set] = (held[set] ?? 0) + sign * count;
  delta.set(term, held);
}
