// The SQLite store's ChapterStore: each ready video's chapters (schema version 10), read in time order and ranked by
// BM25 through their own contentless FTS5 index, and the chapter writes a commit, a write-back and a removal make
// inside their transactions.

import type Database from "better-sqlite3";
import type { Chapter, ChapterMatch, ChapterStore } from "../../spec/index.js";
import { toChapter, toChapterMatches, type ChapterMatchRow, type ChapterRow } from "../shared-chapter-rows.js";
import { chapterFieldWeights, checkChapters, checkLimit, termWeights } from "../store-checks.js";
import type { SqliteContext } from "./sqlite-context.js";
import { indexed, rankByBm25, videoRestriction, videoToken } from "./sqlite-text-index.js";

const chapterColumns = "c.chapter_index, c.start_second, c.end_second, c.title, c.summary, c.text, c.made_by";

function prepareChapterStatements(db: Database.Database) {
  return {
    insertChapter: db.prepare(`INSERT INTO chapters (video_key, chapter_index, start_second, end_second, title, summary, text, made_by)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING key`).pluck(),
    indexChapter: db.prepare(`INSERT INTO chapter_fts (rowid, title, summary, text, video) VALUES (?, ?, ?, ?, ?)`),
    // A contentless row is forgotten by telling FTS5 the words it was indexed with (see schema version 9).
    forgetChapter: db.prepare(`INSERT INTO chapter_fts (chapter_fts, rowid, title, summary, text, video) VALUES ('delete', ?, ?, ?, ?, ?)`),
    indexedChapters: db.prepare(`SELECT c.key, c.title, c.summary, c.text FROM chapters c
        WHERE c.video_key = ? AND EXISTS (SELECT 1 FROM chapter_fts_docsize d WHERE d.id = c.key)`),
    deleteChapters: db.prepare(`DELETE FROM chapters WHERE video_key = ?`),
    chaptersOf: db.prepare(`SELECT ${chapterColumns} FROM chapters c JOIN videos v ON v.key = c.video_key
        WHERE v.id = ? AND v.status = 'ready' ORDER BY c.chapter_index`),
    allChapters: db.prepare(`SELECT v.id AS video_id, ${chapterColumns} FROM chapters c JOIN videos v ON v.key = c.video_key
        WHERE v.status = 'ready' ORDER BY v.id, c.start_second, c.chapter_index`),
    // Both driven by their lists, as the context's video lookups are (sqlite-context.ts).
    chaptersOfVideos: db.prepare(`SELECT v.id AS video_id, ${chapterColumns} FROM (SELECT DISTINCT value FROM json_each(?)) j
        CROSS JOIN videos v ON v.id = j.value CROSS JOIN chapters c ON c.video_key = v.key
        WHERE v.status = 'ready' ORDER BY v.id, c.start_second, c.chapter_index`),
    chaptersByKeys: db.prepare(`SELECT c.key, v.id AS video_id, c.chapter_index, c.start_second, c.end_second
        FROM (SELECT DISTINCT value FROM json_each(?)) j CROSS JOIN chapters c ON c.key = j.value CROSS JOIN videos v ON v.key = c.video_key
        WHERE v.status = 'ready'`),
  };
}

/** Chapters of ready videos (ChapterStore), and the chapter writes of the transactions that span parts. */
export class SqliteChapters implements ChapterStore {
  private readonly statements;

  constructor(private readonly context: SqliteContext) {
    this.statements = prepareChapterStatements(context.db);
  }

  /**
   * Replaces a video's chapters with these, and their FTS rows, inside the caller's transaction. A malformed chapter is
   * ARGUMENT_INVALID, which rolls back the whole transaction.
   */
  writeChapters(videoKey: number, videoId: string, chapters: Chapter[]): void {
    checkChapters(chapters, videoId);
    this.deleteChapters(videoKey);
    const token = videoToken(videoKey);
    const language = this.context.lexical.languageOf(videoKey);
    for (const chapter of chapters) {
      const key = this.statements.insertChapter.get(
        videoKey, chapter.index, chapter.startSecond, chapter.endSecond, chapter.title, chapter.summary, chapter.text, chapter.madeBy,
      ) as number;
      this.statements.indexChapter.run(key, ...indexed(language, chapter.title, chapter.summary, chapter.text), token);
    }
  }

  /** Deletes a video's chapters, forgetting their FTS rows first, inside the caller's transaction. */
  deleteChapters(videoKey: number): void {
    const token = videoToken(videoKey);
    const language = this.context.lexical.languageOf(videoKey);
    for (const row of this.statements.indexedChapters.all(videoKey) as { key: number; title: string; summary: string; text: string }[]) {
      this.statements.forgetChapter.run(row.key, ...indexed(language, row.title, row.summary, row.text), token);
    }
    this.statements.deleteChapters.run(videoKey);
  }

  /**
   * Forgets a video's chapter rows as they are indexed, runs `change` (which changes how its text is indexed: the
   * video's language), and indexes them again, inside the caller's transaction.
   */
  reindexChapters(videoKey: number, change: () => void): void {
    const token = videoToken(videoKey);
    const rows = this.statements.indexedChapters.all(videoKey) as { key: number; title: string; summary: string; text: string }[];
    const before = this.context.lexical.languageOf(videoKey);
    for (const row of rows) this.statements.forgetChapter.run(row.key, ...indexed(before, row.title, row.summary, row.text), token);
    change();
    const after = this.context.lexical.languageOf(videoKey);
    for (const row of rows) this.statements.indexChapter.run(row.key, ...indexed(after, row.title, row.summary, row.text), token);
  }

  async getChapters(videoId: string): Promise<Chapter[]> {
    return this.context.guard("cannot read chapters", () => (this.statements.chaptersOf.all(videoId) as ChapterRow[]).map(toChapter));
  }

  async listChapters(videoIds?: string[]): Promise<(Chapter & { videoId: string })[]> {
    return this.context.guard("cannot list chapters", () => {
      const rows = (videoIds ? this.statements.chaptersOfVideos.all(JSON.stringify(videoIds)) : this.statements.allChapters.all()) as (ChapterRow & { video_id: string })[];
      return rows.map((row) => ({ videoId: row.video_id, ...toChapter(row) }));
    });
  }

  async searchChapters(query: { terms: { text: string; weight: number }[]; limit: number; videoIds?: string[] }): Promise<ChapterMatch[]> {
    return this.context.guard("cannot search chapters", () => {
      checkLimit(query.limit, "a chapter search");
      const limit = Math.floor(query.limit);
      const weights = termWeights(query.terms);
      if (limit === 0 || weights.size === 0) return [];
      const restriction = videoRestriction(this.context, query.videoIds);
      if (restriction === undefined) return [];
      const { title, summary, text } = chapterFieldWeights;
      const ranked = rankByBm25(this.context, {
        table: "chapter_fts",
        bm25: `bm25(chapter_fts, ${title}, ${summary}, ${text}, 0)`,
        columns: ["title", "summary", "text"],
        weights,
        phrases: [],
        restriction,
        limit,
      });
      if (ranked.length === 0) return [];
      const rows = this.statements.chaptersByKeys.all(JSON.stringify(ranked.map(([key]) => key))) as ChapterMatchRow[];
      return toChapterMatches(ranked, rows);
    });
  }
}
