// The ChapterStore part of the Postgres store: each ready video's chapters (schema 5), read in time order and ranked by
// BM25 through the lexical index's chapter documents (lexical-index.ts, the same scores as SQLite's FTS5), and the
// chapter writes a commit, a write-back and a removal make inside their transactions.

import type { PoolClient } from "pg";
import { VideoRagError } from "../../spec/index.js";
import type { Chapter, ChapterMatch, ChapterStore } from "../../spec/index.js";
import { toChapter, toChapterMatches, type ChapterMatchRow, type ChapterRow } from "../shared-chapter-rows.js";
import { chapterFieldWeights, checkChapters, termWeights } from "../store-checks.js";
import type { FieldLoader, LexicalDocument, LexicalIndex } from "./lexical-index.js";
import { prepared } from "./prepared.js";
import type { PostgresContext } from "./postgres-context.js";

/** A chapter's text as indexed: title, summary, text. */
type ChapterTextRow = { key: number; video_key: number; title: string; summary: string; text: string };

const chapterDocuments = (rows: ChapterTextRow[]): LexicalDocument[] =>
  rows.map((row) => ({ key: row.key, videoKey: row.video_key, fields: [row.title, row.summary, row.text] }));

/** Chapter documents' text, for counting phrases (a term that tokenizes into several words). */
const chapterFields: FieldLoader = async (client, keys) => {
  const { rows } = await client.query<ChapterTextRow>(`SELECT key, video_key, title, summary, text FROM chapters WHERE key = ANY($1::bigint[])`, [keys]);
  return new Map(chapterDocuments(rows).map((document) => [document.key, document.fields]));
};

/** Deletes a video's chapters and forgets their BM25 documents, from the text the deleted rows held. */
export async function deleteChapters(lexical: LexicalIndex, client: PoolClient, videoKey: number): Promise<void> {
  const { rows } = await client.query<ChapterTextRow>(`DELETE FROM chapters WHERE video_key = $1 RETURNING key, video_key, title, summary, text`, [videoKey]);
  await lexical.remove(client, "chapter", chapterDocuments(rows));
}

/**
 * Forgets a video's chapter documents as they are indexed, runs `change` (which changes how its text is indexed: the
 * video's language), and indexes them again, inside the caller's transaction.
 */
export async function reindexChapters(lexical: LexicalIndex, client: PoolClient, videoKey: number, change: () => Promise<void>): Promise<void> {
  const { rows } = await client.query<ChapterTextRow>(`SELECT key, video_key, title, summary, text FROM chapters WHERE video_key = $1`, [videoKey]);
  await lexical.remove(client, "chapter", chapterDocuments(rows));
  await change();
  await lexical.add(client, "chapter", chapterDocuments(rows));
}

/**
 * Replaces a video's chapters with these, and their BM25 documents, inside the caller's transaction. A malformed chapter
 * is ARGUMENT_INVALID, which rolls back the whole transaction.
 */
export async function writeChapters(lexical: LexicalIndex, client: PoolClient, videoKey: number, videoId: string, chapters: Chapter[]): Promise<void> {
  checkChapters(chapters, videoId);
  await deleteChapters(lexical, client, videoKey);
  if (chapters.length === 0) return;
  const { rows } = await client.query<ChapterTextRow>(
    `INSERT INTO chapters (video_key, chapter_index, start_second, end_second, title, summary, text, made_by)
      SELECT $1, * FROM unnest($2::integer[], $3::float8[], $4::float8[], $5::text[], $6::text[], $7::text[], $8::text[])
      RETURNING key, video_key, title, summary, text`,
    [
      videoKey,
      chapters.map((chapter) => chapter.index),
      chapters.map((chapter) => chapter.startSecond),
      chapters.map((chapter) => chapter.endSecond),
      chapters.map((chapter) => chapter.title),
      chapters.map((chapter) => chapter.summary),
      chapters.map((chapter) => chapter.text),
      chapters.map((chapter) => chapter.madeBy),
    ],
  );
  await lexical.add(client, "chapter", chapterDocuments(rows));
}

const chapterColumns = "c.chapter_index, c.start_second, c.end_second, c.title, c.summary, c.text, c.made_by";
// Video ids are ordered byte by byte (COLLATE "C"), as SQLite orders them, whatever the database's collation.
const chaptersOf = prepared(
  `SELECT ${chapterColumns} FROM chapters c JOIN videos v ON v.key = c.video_key WHERE v.id = $1 AND v.status = 'ready' ORDER BY c.chapter_index`,
);
const chaptersOfVideos = prepared(
  `SELECT v.id AS video_id, ${chapterColumns} FROM chapters c JOIN videos v ON v.key = c.video_key
    WHERE v.status = 'ready' AND ($1::text[] IS NULL OR v.id = ANY($1::text[])) ORDER BY v.id COLLATE "C", c.start_second, c.chapter_index`,
);
const chaptersByKey = prepared(
  `SELECT c.key, v.id AS video_id, c.chapter_index, c.start_second, c.end_second FROM chapters c JOIN videos v ON v.key = c.video_key
    WHERE v.status = 'ready' AND c.key = ANY($1::bigint[])`,
);

/** The ChapterStore over a shared context. */
export class PostgresChapters implements ChapterStore {
  constructor(private readonly context: PostgresContext) {}

  async getChapters(videoId: string): Promise<Chapter[]> {
    return this.context.read("cannot read chapters", async (client) => (await client.query<ChapterRow>({ ...chaptersOf, values: [videoId] })).rows.map(toChapter));
  }

  async listChapters(videoIds?: string[]): Promise<(Chapter & { videoId: string })[]> {
    return this.context.read("cannot list chapters", async (client) => {
      const { rows } = await client.query<ChapterRow & { video_id: string }>({ ...chaptersOfVideos, values: [videoIds ?? null] });
      return rows.map((row) => ({ videoId: row.video_id, ...toChapter(row) }));
    });
  }

  async searchChapters(query: { terms: { text: string; weight: number }[]; limit: number; videoIds?: string[] }): Promise<ChapterMatch[]> {
    if (!(query.limit >= 0) || !Number.isFinite(query.limit)) throw new VideoRagError("ARGUMENT_INVALID", "a chapter search needs a limit ≥ 0");
    return this.context.read("cannot search chapters", async (client) => {
      const limit = Math.floor(query.limit);
      const terms = termWeights(query.terms);
      if (limit === 0 || terms.size === 0) return [];
      const fieldWeights = [chapterFieldWeights.title, chapterFieldWeights.summary, chapterFieldWeights.text];
      const matches = await this.context.lexical.search(
        client,
        "chapter",
        { terms, phrases: [], fieldWeights, limit, ...(query.videoIds ? { videoIds: query.videoIds } : {}) },
        chapterFields,
      );
      if (matches.length === 0) return [];
      const { rows } = await client.query<ChapterMatchRow>({ ...chaptersByKey, values: [matches.map(([key]) => key)] });
      return toChapterMatches(matches, rows);
    });
  }
}
