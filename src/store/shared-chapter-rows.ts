// Chapters from a store's rows: both stores read the same columns, and both turn a ranking of chapter keys into
// matches the same way, dropping keys whose rows are gone (or whose video is no longer ready).

import type { Chapter, ChapterMatch } from "../spec/index.js";
import type { RankedKey } from "./shared-matches.js";

/** A chapter's row as both stores read it. */
export interface ChapterRow {
  chapter_index: number;
  start_second: number;
  end_second: number;
  title: string;
  summary: string;
  text: string;
  made_by: string;
}

export const toChapter = (row: ChapterRow): Chapter => ({
  index: row.chapter_index,
  startSecond: row.start_second,
  endSecond: row.end_second,
  title: row.title,
  summary: row.summary,
  text: row.text,
  madeBy: row.made_by,
});

/** A chapter's row as a chapter match is read, with its video's id. */
export interface ChapterMatchRow {
  key: number;
  video_id: string;
  chapter_index: number;
  start_second: number;
  end_second: number;
}

/** The chapter matches of `ranked`, from the chapters' rows by key. */
export function toChapterMatches(ranked: RankedKey[], rows: ChapterMatchRow[]): ChapterMatch[] {
  const byKey = new Map(rows.map((row) => [row.key, row]));
  return ranked.flatMap(([key, score]) => {
    const row = byKey.get(key);
    if (!row) return [];
    const match: ChapterMatch = { videoId: row.video_id, chapterIndex: row.chapter_index, startSecond: row.start_second, endSecond: row.end_second, score };
    return [match];
  });
}
