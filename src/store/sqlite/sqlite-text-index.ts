// The SQLite store's TextIndex: BM25 through FTS5 over clips and whole videos, the term statistics queries are weighted
// by, and the contentless FTS5 indexes (clips, videos, entities) that every write keeps in step with the text it changes.

import type Database from "better-sqlite3";
import type { ClipMatch, LexicalQuery, TextIndex, VideoMatch } from "../../spec/index.js";
import { BlockCache } from "../block-cache.js";
import { toClipMatches, toVideoMatches, type ClipMatchRow, type RankedKey } from "../shared-matches.js";
import { hasSpaceless, indexedText, type IndexedTextOptions } from "../../text/index.js";
import { checkLexicalQuery, flooredShare, hasToken, termWeights, videoDocument } from "../store-checks.js";
import type { SqliteContext } from "./sqlite-context.js";
import { mergeSegments } from "./sqlite-fts-merges.js";
import { PackedReader, preparePackedStatements, type ClipText } from "./sqlite-packed-reader.js";
import type { TermList } from "./sqlite-term-lists.js";

/** Integer term weights up to this are expressed by repeating the term in one FTS5 query (BM25 sums over phrases). */
const maxRepeatedWeight = 8;

/** True when every weight can be expressed by repeating its term in one FTS5 query. */
export const repeatable = (weights: Map<string, number>): boolean =>
  [...weights.values()].every((weight) => Number.isInteger(weight) && weight <= maxRepeatedWeight);

/** The FTS5 token naming a video in the `video` column of the clip, video and chapter indexes. */
export const videoToken = (key: number): string => `k${key}`;

/**
 * Texts as the lexical indexes are given them and told them again when a row goes (see indexed-text.ts): stemmed in the
 * video's language where it has a Snowball stemmer.
 */
export const indexed = (language: string | undefined, ...texts: string[]): string[] => texts.map((text) => indexedText(text, language));

/** Quotes text as an FTS5 string, so user words are never read as query syntax. */
export const quote = (text: string): string => `"${indexedText(text).replace(/"/g, '""')}"`;

/** FTS5's command to forget a row of a contentless index, given the words it was indexed with (see schema version 9). */
const forgetRow = (table: string, columns: string[]): string =>
  `INSERT INTO ${table} (${table}, rowid, ${columns.join(", ")}) VALUES ('delete', ?, ${columns.map(() => "?").join(", ")})`;

/** The columns of the clip and video indexes, in their order. */
const clipColumns = ["transcript", "screen", "visual", "video"];

/**
 * An FTS5 index's row count and each column's token total, from its averages record (the `_data` row with id 1: the
 * row count, then one total per column, as SQLite varints), which FTS5 keeps exact through every insert and delete
 * for bm25().
 */
export function ftsAverages(record: Buffer): { rows: number; columnTotals: number[] } {
  const values: number[] = [];
  let at = 0;
  while (at < record.length) {
    let value = 0;
    // A varint is up to nine bytes, big-endian, seven bits each with the high bit saying more follow; the ninth has eight.
    for (let byte = 0; at < record.length; byte += 1) {
      const next = record[at++] as number;
      if (byte === 8) {
        value = value * 256 + next;
        break;
      }
      value = value * 128 + (next & 0x7f);
      if ((next & 0x80) === 0) break;
    }
    values.push(value);
  }
  return { rows: values[0] ?? 0, columnTotals: values.slice(1) };
}

/** How each lexical index is written and forgotten; a row is forgotten only where its docsize row says it is indexed. */
function prepareLexicalStatements(db: Database.Database) {
  const entityColumns = ["name", "description"];
  return {
    indexClip: db.prepare(`INSERT INTO clip_fts (rowid, ${clipColumns.join(", ")}) VALUES (?, ?, ?, ?, ?)`),
    forgetClip: db.prepare(forgetRow("clip_fts", clipColumns)),
    clipIndexed: db.prepare(`SELECT 1 FROM clip_fts_docsize WHERE id = ?`).pluck(),
    indexVideo: db.prepare(`INSERT INTO video_fts (rowid, ${clipColumns.join(", ")}) VALUES (?, ?, ?, ?, ?)`),
    forgetVideo: db.prepare(forgetRow("video_fts", clipColumns)),
    videoIndexed: db.prepare(`SELECT 1 FROM video_fts_docsize WHERE id = ?`).pluck(),
    indexEntity: db.prepare(`INSERT INTO entity_fts (rowid, ${entityColumns.join(", ")}) VALUES (?, ?, ?)`),
    forgetEntity: db.prepare(forgetRow("entity_fts", entityColumns)),
    entityIndexed: db.prepare(`SELECT 1 FROM entity_fts_docsize WHERE id = ?`).pluck(),
    entityText: db.prepare(`SELECT e.name, e.description,
        (SELECT group_concat(a.name, char(10)) FROM entity_aliases a WHERE a.entity_key = e.key) AS aliases
      FROM entities e WHERE e.key = ?`),
    clipKeys: db.prepare(`SELECT clip_index, key FROM clips WHERE video_key = ?`).raw(),
  };
}

/** How a video's language is read, where its row has one (schema 13 on; a migration before that indexes without). */
function prepareLanguageStatements(db: Database.Database) {
  if (db.prepare(`SELECT 1 FROM pragma_table_info('videos') WHERE name = 'language'`).get() === undefined) return undefined;
  return {
    languageOf: db.prepare(`SELECT language FROM videos WHERE key = ?`).pluck(),
  };
}

type LexicalStatements = ReturnType<typeof prepareLexicalStatements>;

/**
 * The three contentless lexical indexes, written from the text the store keeps and told that same text when a row
 * goes (schema version 9): FTS5 then takes the row's words out of bm25's statistics exactly. Every change to indexed
 * text forgets the row before the text changes and indexes it again after.
 */
export class LexicalIndexes {
  private readonly statements: LexicalStatements;

  private readonly languageStatements;

  /** `form`: how text is written for the index; an older schema's, for a migration to forget rows as it indexed them. */
  constructor(db: Database.Database, private readonly form: IndexedTextOptions = {}) {
    this.statements = prepareLexicalStatements(db);
    this.languageStatements = prepareLanguageStatements(db);
  }

  /** A video's clip documents and its whole-video document (see `videoDocument`), from its clips' text. */
  indexVideo(videoKey: number, clips: ClipText[]): void {
    const keys = this.clipKeys(videoKey);
    const token = videoToken(videoKey);
    const language = this.languageOf(videoKey);
    for (const clip of clips) this.statements.indexClip.run(keys.get(clip.clipIndex), ...this.indexed(language, clip.transcript, clip.screen, clip.visual), token);
    this.indexWholeVideo(videoKey, clips);
  }

  /** Forgets a video's clip documents and whole-video document, given the clips' text as it was indexed. */
  forgetVideo(videoKey: number, clips: ClipText[]): void {
    const keys = this.clipKeys(videoKey);
    for (const clip of clips) {
      const key = keys.get(clip.clipIndex);
      if (key !== undefined) this.forgetClip(videoKey, key, clip);
    }
    this.forgetWholeVideo(videoKey, clips);
  }

  indexClip(videoKey: number, clipKey: number, clip: Omit<ClipText, "clipIndex">): void {
    this.statements.indexClip.run(clipKey, ...this.indexed(this.languageOf(videoKey), clip.transcript, clip.screen, clip.visual), videoToken(videoKey));
  }

  forgetClip(videoKey: number, clipKey: number, clip: Omit<ClipText, "clipIndex">): void {
    if (this.statements.clipIndexed.get(clipKey) === undefined) return;
    this.statements.forgetClip.run(clipKey, ...this.indexed(this.languageOf(videoKey), clip.transcript, clip.screen, clip.visual), videoToken(videoKey));
  }

  indexWholeVideo(videoKey: number, clips: ClipText[]): void {
    this.statements.indexVideo.run(videoKey, ...this.indexed(this.languageOf(videoKey), ...videoDocument(clips)), videoToken(videoKey));
  }

  forgetWholeVideo(videoKey: number, clips: ClipText[]): void {
    if (this.statements.videoIndexed.get(videoKey) === undefined) return;
    this.statements.forgetVideo.run(videoKey, ...this.indexed(this.languageOf(videoKey), ...videoDocument(clips)), videoToken(videoKey));
  }

  /** Indexes an entity's names (its name, then its aliases, a line each) and description as they are stored now. */
  indexEntity(entityKey: number): void {
    const text = this.entityText(entityKey);
    // Entities are named across languages: their text is indexed as it is.
    if (text) this.statements.indexEntity.run(entityKey, ...this.indexed(undefined, ...text));
  }

  /** Forgets an entity's row; call before its name, aliases or description change, or it goes. */
  forgetEntity(entityKey: number): void {
    const text = this.entityText(entityKey);
    if (text && this.statements.entityIndexed.get(entityKey) !== undefined) this.statements.forgetEntity.run(entityKey, ...this.indexed(undefined, ...text));
  }

  /** An entity's fields as they are indexed: its name, then its aliases, a line each; its description. */
  entityText(entityKey: number): [names: string, description: string] | undefined {
    const row = this.statements.entityText.get(entityKey) as { name: string; aliases: string | null; description: string } | undefined;
    return row && [row.aliases === null ? row.name : `${row.name}\n${row.aliases}`, row.description];
  }

  /** The language a video's text is indexed in, as its row says now (a commit forgets the old text before changing it). */
  languageOf(videoKey: number): string | undefined {
    return (this.languageStatements?.languageOf.get(videoKey) as string | null | undefined) ?? undefined;
  }

  /** Texts as this index writes them, in `language`. */
  indexed(language: string | undefined, ...texts: string[]): string[] {
    return texts.map((text) => indexedText(text, language, this.form));
  }

  private clipKeys(videoKey: number): Map<number, number> {
    return new Map(this.statements.clipKeys.all(videoKey) as [number, number][]);
  }
}

/**
 * Fills the empty lexical indexes from the text the library keeps (schema versions 9 and 14): every ready video's
 * clips and whole-video document, every entity, every chapter. Inside the migration's transaction (exported for a test
 * to compare with, and to build indexes as an older schema wrote them: `form`).
 */
export function rebuildLexicalIndexes(db: Database.Database, form: IndexedTextOptions = {}): void {
  const packed = preparePackedStatements(db);
  const cache = new BlockCache();
  const indexes = new LexicalIndexes(db, form);
  for (const videoKey of db.prepare(`SELECT key FROM videos WHERE status = 'ready'`).pluck().all() as number[]) {
    // A reader per video: a reader keeps every block it decoded.
    indexes.indexVideo(videoKey, new PackedReader(packed, cache).clipTexts(videoKey));
  }
  for (const entityKey of db.prepare(`SELECT key FROM entities`).pluck().all() as number[]) indexes.indexEntity(entityKey);
  // Chapters came with schema 10: a rebuild for an earlier migration has none to index.
  if (db.prepare(`SELECT 1 FROM sqlite_master WHERE name = 'chapter_fts'`).get() === undefined) return;
  const indexChapter = db.prepare(`INSERT INTO chapter_fts (rowid, title, summary, text, video) VALUES (?, ?, ?, ?, ?)`);
  for (const row of db.prepare(`SELECT key, video_key, title, summary, text FROM chapters`).all() as { key: number; video_key: number; title: string; summary: string; text: string }[]) {
    indexChapter.run(row.key, ...indexes.indexed(indexes.languageOf(row.video_key), row.title, row.summary, row.text), videoToken(row.video_key));
  }
}

/**
 * Schema 16: the rows holding Thai, Lao, Khmer or Burmese, which schema 15 indexed with those runs whole, forgotten as
 * it indexed them and indexed again as their words: the clips and whole-video document of a video where one of its
 * clips holds such text, and each entity and chapter that does. Every other row keeps its tokens, so it is left as it
 * is. Inside the migration's transaction.
 */
export function reindexSpaceless(db: Database.Database): void {
  const packed = preparePackedStatements(db);
  const cache = new BlockCache();
  const before = new LexicalIndexes(db, { spacelessAsRuns: true });
  const now = new LexicalIndexes(db);
  const holds = (texts: readonly string[]): boolean => texts.some(hasSpaceless);
  for (const videoKey of db.prepare(`SELECT key FROM videos WHERE status = 'ready'`).pluck().all() as number[]) {
    const clips = new PackedReader(packed, cache).clipTexts(videoKey);
    if (!clips.some((clip) => holds([clip.transcript, clip.screen, clip.visual]))) continue;
    before.forgetVideo(videoKey, clips);
    now.indexVideo(videoKey, clips);
  }
  for (const entityKey of db.prepare(`SELECT key FROM entities`).pluck().all() as number[]) {
    if (!holds(now.entityText(entityKey) ?? [])) continue;
    before.forgetEntity(entityKey);
    now.indexEntity(entityKey);
  }
  const forgetChapter = db.prepare(`INSERT INTO chapter_fts (chapter_fts, rowid, title, summary, text, video) VALUES ('delete', ?, ?, ?, ?, ?)`);
  const indexChapter = db.prepare(`INSERT INTO chapter_fts (rowid, title, summary, text, video) VALUES (?, ?, ?, ?, ?)`);
  const chapters = db.prepare(`SELECT c.key, c.video_key, c.title, c.summary, c.text FROM chapters c
    WHERE EXISTS (SELECT 1 FROM chapter_fts_docsize d WHERE d.id = c.key)`).all() as { key: number; video_key: number; title: string; summary: string; text: string }[];
  for (const row of chapters) {
    const texts = [row.title, row.summary, row.text];
    if (!holds(texts)) continue;
    const language = now.languageOf(row.video_key);
    forgetChapter.run(row.key, ...before.indexed(language, ...texts), videoToken(row.video_key));
    indexChapter.run(row.key, ...now.indexed(language, ...texts), videoToken(row.video_key));
  }
}

/** One BM25 ranking of a contentless FTS5 index, as `rankByBm25` runs it. */
export interface Bm25Ranking {
  table: string;
  /** The `bm25(table, weights…)` call, its column weights written as plain numbers (bm25() takes literals). */
  bm25: string;
  /** The columns the terms and phrases are matched in; every column when absent. */
  columns?: readonly string[];
  /** Terms (see `termWeights`) with their weights. */
  weights: Map<string, number>;
  phrases: string[];
  /** An FTS5 expression the match must also satisfy (see `videoRestriction`), or "". */
  restriction: string;
  /** The share of rows from which a one-word term is too common to rank by (see `commonTerms`); `flooredShare` when absent. */
  commonShare?: number;
  /** SQL the rows must also satisfy, after the match (" AND rowid IN (…)"), with its parameters. */
  filter?: { sql: string; parameters: unknown[] };
  /**
   * The rows `restriction` and `filter` leave, listed: a search within them sums its terms' kept lists over these rows
   * alone. Without it, a restricted search asks FTS5.
   */
  within?: () => readonly number[];
  limit: number;
}

/**
 * Best rows first as [rowid, score], BM25 through FTS5 (k1 = 1.2, b = 0.75), higher is better. FTS5's bm25() sums over
 * the query's phrases, so a search of the whole index is the weighted sum of its terms' kept lists; within some videos
 * or rows, integer term weights are exact when the term is repeated in one query, and other weights take a slower,
 * equally exact path of one query per term summed here. Terms too common to rank by are left out (see `commonTerms`)
 * unless the others find fewer rows than the limit.
 */
export function rankByBm25(context: SqliteContext, ranking: Bm25Ranking): RankedKey[] {
  const { table, columns, weights, phrases, commonShare = flooredShare, within: listRows } = ranking;
  const { present, informative } = context.termLists.informative(table, columns, weights, phrases.length > 0, commonShare);
  if (present.size === 0 && phrases.length === 0) return [];
  // The rows a restricted search may return are listed once, however many times it runs.
  let rows: readonly number[] | undefined;
  const within = listRows && ((): readonly number[] => (rows ??= listRows()));
  if (informative !== present) {
    const ranked = rankWeighted(context, { ...ranking, weights: informative, within });
    // Fewer rows than asked for (a search within a few videos, often): the search runs again with every term.
    if (ranked.length >= ranking.limit) return ranked;
  }
  return rankWeighted(context, { ...ranking, weights: present, within });
}

function rankWeighted(context: SqliteContext, ranking: Bm25Ranking): RankedKey[] {
  const { table, bm25, weights, phrases, restriction, limit } = ranking;
  const columns = ranking.columns ? `{${ranking.columns.join(" ")}} : ` : "";
  // A search sums its terms' kept lists (see sqlite-term-lists.ts), over the rows it is restricted to where it is:
  // bm25() scores a row alike within some rows or the whole index (its idf and average length are the index's, and the
  // restriction's phrases weigh nothing), and FTS5 itself reads each phrase's whole list for its idf. A search of an
  // index too large for its lists to be read into JavaScript at little cost the first time asks FTS5.
  const restricted = restriction !== "" || ranking.filter !== undefined;
  if (!restricted || ranking.within) {
    const expressions = [...[...weights.keys()].map(quote), ...phrases.map(quote)];
    const lists = context.snapshot(() => context.termLists.termLists(table, bm25, columns, expressions));
    if (lists) return topSums(lists, [...weights.values(), ...phrases.map(() => 1)], limit, restricted ? ranking.within?.() : undefined);
  }
  const { sql: filter, parameters } = ranking.filter ?? { sql: "", parameters: [] };
  if (repeatable(weights)) {
    const parts = [...weights].flatMap(([text, weight]) => Array<string>(weight).fill(quote(text)));
    parts.push(...phrases.map(quote));
    const match = `${columns}(${parts.join(" OR ")})${restriction}`;
    const statement = context.prepareSearch(`SELECT rowid, -${bm25} AS score FROM ${table} WHERE ${table} MATCH ?${filter} ORDER BY score DESC LIMIT ?`);
    return statement.all(match, ...parameters, limit) as RankedKey[];
  }
  const statement = context.prepareSearch(`SELECT rowid, -${bm25} AS score FROM ${table} WHERE ${table} MATCH ?${filter}`);
  const scores = new Map<number, number>();
  const add = (expression: string, weight: number): void => {
    for (const [key, score] of statement.all(`${columns}(${expression})${restriction}`, ...parameters) as RankedKey[]) {
      scores.set(key, (scores.get(key) ?? 0) + weight * score);
    }
  };
  for (const [text, weight] of weights) add(quote(text), weight);
  for (const phrase of phrases) add(quote(phrase), 1);
  return [...scores].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, limit);
}

/** Rows up to this are summed in arrays indexed by row (`sums`, `stamps`: 12 bytes a row); a list of higher rows in a Map. */
const maxIndexedRow = 1 << 20;

/**
 * Each row's sum so far in the search whose stamp it holds, and whether the search may return the row (`allowed`,
 * holding the stamp when it may): kept between searches, grown as rows need.
 */
let sums = new Float64Array(0);
let stamps = new Int32Array(0);
let allowed = new Int32Array(0);
let stamp = 0;

/**
 * The `limit` rows with the highest sums of their lists' scores, each list's score times its factor, best first (ties:
 * the lower rowid first, as FTS5 gives them). Each list is added in turn to its rows' sums, so a row's sum is the same
 * additions in the same order whatever rows the other lists hold: a search adds thousands of rows, once each, where a
 * merge of the lists compared every list at every row. `within`: the only rows that may be returned, when given.
 */
export function topSums(lists: readonly TermList[], factors: readonly number[], limit: number, within?: readonly number[]): RankedKey[] {
  let listed = 0;
  let lowest = 0;
  let highest = 0;
  for (const list of lists) {
    const { rows } = list;
    if (rows.length === 0) continue;
    lowest = listed === 0 ? (rows[0] as number) : Math.min(lowest, rows[0] as number);
    highest = Math.max(highest, rows[rows.length - 1] as number);
    listed += rows.length;
  }
  const top = new TopRows(Math.min(limit, listed));
  if (top.size <= 0) return [];
  if (lowest < 0 || highest >= maxIndexedRow) {
    const byRow = new Map<number, number>();
    const kept = within && new Set(within);
    lists.forEach((list, index) =>
      list.rows.forEach((row, at) => {
        if (!kept || kept.has(row)) byRow.set(row, (byRow.get(row) ?? 0) + (factors[index] as number) * (list.scores[at] as number));
      }),
    );
    for (const [row, sum] of byRow) top.offer(row, sum);
    return top.best();
  }
  if (sums.length <= highest) {
    const length = Math.min(maxIndexedRow, Math.max(highest + 1, 2 * sums.length));
    sums = new Float64Array(length);
    stamps = new Int32Array(length);
    allowed = new Int32Array(length);
    stamp = 0;
  }
  if (stamp === 0x7fffffff) {
    stamps.fill(0);
    allowed.fill(0);
    stamp = 0;
  }
  stamp += 1;
  if (within) for (const row of within) if (row >= 0 && row < allowed.length) allowed[row] = stamp;
  const touched = new Int32Array(listed);
  let count = 0;
  for (let index = 0; index < lists.length; index += 1) {
    const { rows, scores } = lists[index] as TermList;
    const factor = factors[index] as number;
    for (let at = 0; at < rows.length; at += 1) {
      const row = rows[at] as number;
      if (within && allowed[row] !== stamp) continue;
      if (stamps[row] !== stamp) {
        stamps[row] = stamp;
        sums[row] = 0;
        touched[count] = row;
        count += 1;
      }
      sums[row] = (sums[row] as number) + factor * (scores[at] as number);
    }
  }
  for (let at = 0; at < count; at += 1) top.offer(touched[at] as number, sums[touched[at] as number] as number);
  return top.best();
}

/** The best `size` rows offered, by score and then the lower row, in typed arrays (a search offers thousands). */
class TopRows {
  private readonly rows: Int32Array;
  private readonly scores: Float64Array;
  private kept = 0;

  constructor(readonly size: number) {
    this.rows = new Int32Array(Math.max(0, size));
    this.scores = new Float64Array(Math.max(0, size));
  }

  offer(row: number, score: number): void {
    const { rows, scores, size } = this;
    if (this.kept === size) {
      const last = scores[size - 1] as number;
      if (score < last || (score === last && row > (rows[size - 1] as number))) return;
    }
    // After every kept row that ranks before it.
    let low = 0;
    let high = this.kept;
    while (low < high) {
      const middle = (low + high) >> 1;
      const kept = scores[middle] as number;
      if (kept > score || (kept === score && (rows[middle] as number) < row)) low = middle + 1;
      else high = middle;
    }
    // The rows after `low` move down one place; when all places are taken, the last one falls off.
    const end = this.kept < size ? this.kept : size - 1;
    rows.copyWithin(low + 1, low, end);
    scores.copyWithin(low + 1, low, end);
    rows[low] = row;
    scores[low] = score;
    if (this.kept < size) this.kept += 1;
  }

  best(): RankedKey[] {
    return Array.from({ length: this.kept }, (_, at): RankedKey => [this.rows[at] as number, this.scores[at] as number]);
  }
}

/**
 * The FTS5 expression keeping only rows of these ready videos, through the `video` column of one token per video: ""
 * when `videoIds` is absent, undefined when none of them is ready (nothing can match).
 */
export function videoRestriction(context: SqliteContext, videoIds: string[] | undefined): string | undefined {
  if (!videoIds) return "";
  const keys = context.readyVideoKeys(videoIds);
  return keys.length === 0 ? undefined : restrictionTo(keys);
}

/** The FTS5 expression keeping only rows of the videos with these keys (at least one). */
const restrictionTo = (keys: readonly number[]): string => ` AND video : (${keys.map(videoToken).join(" OR ")})`;

function prepareTextStatements(db: Database.Database) {
  return {
    clipsByKeys: db.prepare(`SELECT c.key, v.id AS video_id, c.clip_index, c.start_second, c.end_second
        FROM clips c JOIN videos v ON v.key = c.video_key WHERE c.key IN (SELECT value FROM json_each(?))`),
    clipCount: db.prepare(`SELECT count(*) FROM clips`).pluck(),
    clipTermCount: db.prepare(`SELECT count(*) FROM clip_fts WHERE clip_fts MATCH ?`).pluck(),
    clipKeysOf: db.prepare(`SELECT key FROM clips WHERE video_key IN (SELECT value FROM json_each(?))`).pluck(),
  };
}

/** BM25 over clips and whole videos (TextIndex). */
export class SqliteTextIndex implements TextIndex {
  private readonly statements;

  constructor(private readonly context: SqliteContext) {
    this.statements = prepareTextStatements(context.db);
  }

  async searchClips(query: LexicalQuery): Promise<ClipMatch[]> {
    return this.context.guardedSnapshot("cannot search clips", () => {
      const matches = this.search("clip_fts", query);
      if (matches.length === 0) return [];
      const rows = this.statements.clipsByKeys.all(JSON.stringify(matches.map(([key]) => key))) as ClipMatchRow[];
      return toClipMatches(matches, rows);
    });
  }

  async searchVideos(query: LexicalQuery): Promise<VideoMatch[]> {
    return this.context.guardedSnapshot("cannot search videos", () => {
      const matches = this.search("video_fts", query);
      if (matches.length === 0) return [];
      return toVideoMatches(matches, this.context.readyVideoIds(matches.map(([key]) => key)));
    });
  }

  /** BM25 through FTS5 over clips or whole videos, with the query's field weights as FTS5 column weights. */
  private search(table: "clip_fts" | "video_fts", query: LexicalQuery): RankedKey[] {
    // Field weights are written into the SQL (bm25() takes literals), so only plain numbers may get there.
    const { fieldWeights: field, limit } = checkLexicalQuery(query);
    const weights = termWeights(query.terms, query.language);
    const phrases = (query.phrases ?? []).filter(hasToken);
    if (limit === 0 || (weights.size === 0 && phrases.length === 0)) return [];
    const keys = query.videoIds && this.context.readyVideoKeys(query.videoIds);
    if (keys?.length === 0) return [];
    // A channel weighted zero is left out of the match too, so it cannot bring in hits that score nothing.
    const searched = (["transcript", "screen", "visual"] as const).filter((column) => field[column] > 0);
    if (searched.length === 0) return [];
    // Channels no row holds a word in cannot match: in a library of transcripts, a search for visual words alone reads
    // every doclist of its terms (FTS5 filters columns after reading them) to find nothing.
    const totals = this.context.termLists.averages(table).columnTotals;
    if (searched.every((column) => totals[clipColumns.indexOf(column)] === 0)) return [];
    return rankByBm25(this.context, {
      table,
      bm25: `bm25(${table}, ${field.transcript}, ${field.screen}, ${field.visual}, 0)`,
      columns: searched,
      weights,
      phrases,
      restriction: keys ? restrictionTo(keys) : "",
      // A video's rows: its clips in the clip index, itself in the video index.
      within: keys && (() => (table === "video_fts" ? keys : (this.statements.clipKeysOf.all(JSON.stringify(keys)) as number[]))),
      limit,
    });
  }

  async termDocumentFrequency(terms: string[]): Promise<{ frequencies: Map<string, number>; documentCount: number }> {
    return this.context.guard("cannot count terms", () => {
      const frequencies = new Map<string, number>();
      for (const term of terms) {
        if (frequencies.has(term)) continue;
        const count = hasToken(term)
          ? (this.statements.clipTermCount.get(`{transcript screen visual} : ${quote(term)}`) as number)
          : 0;
        frequencies.set(term, count);
      }
      return { frequencies, documentCount: this.statements.clipCount.get() as number };
    });
  }

  /** Merges each FTS5 index left in more than one segment into one (see sqlite-fts-merges.ts). */
  async compactTextIndexes(): Promise<void> {
    this.context.guard("cannot compact the text indexes", () => mergeSegments(this.context.db));
  }
}
