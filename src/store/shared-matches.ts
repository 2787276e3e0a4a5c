// Search results from a store's ranked keys: each store ranks rows by key and reads what a match names, then both keep
// the ranking and drop the keys whose rows are gone.

import type { ClipMatch, EntityMatch, VideoMatch } from "../spec/index.js";

/** A row's key and its score, best first. */
export type RankedKey = [key: number, score: number];

/** A clip's row as a clip match is read, with its video's id. */
export interface ClipMatchRow {
  key: number;
  video_id: string;
  clip_index: number;
  start_second: number;
  end_second: number;
}

/** The clip matches of `ranked`, from the clips' rows by key. */
export function toClipMatches(ranked: RankedKey[], rows: ClipMatchRow[]): ClipMatch[] {
  const byKey = new Map(rows.map((row) => [row.key, row]));
  return ranked.flatMap(([key, score]) => {
    const row = byKey.get(key);
    if (!row) return [];
    const match: ClipMatch = {
      videoId: row.video_id,
      clipIndex: row.clip_index,
      startSecond: row.start_second,
      endSecond: row.end_second,
      score,
    };
    return [match];
  });
}

/** The video matches of `ranked`, from the ready videos' ids by key. */
export function toVideoMatches(ranked: RankedKey[], videos: { key: number; id: string }[]): VideoMatch[] {
  const ids = new Map(videos.map((row) => [row.key, row.id]));
  return ranked.flatMap(([key, score]) => {
    const videoId = ids.get(key);
    return videoId === undefined ? [] : [{ videoId, score }];
  });
}

/** The entity matches of `ranked`, from the entities' rows by key. */
export function toEntityMatches(ranked: RankedKey[], rows: { key: number; name: string; type: string; description: string }[]): EntityMatch[] {
  const byKey = new Map(rows.map((row) => [row.key, row]));
  return ranked.flatMap(([key, score]) => {
    const row = byKey.get(key);
    if (!row) return [];
    const match: EntityMatch = { key, name: row.name, type: row.type, description: row.description, score };
    return [match];
  });
}
