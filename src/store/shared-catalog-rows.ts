// The catalog's rows as the Store gives them: videos and clip documents, read alike on every store. Flags are 0 and 1
// in SQLite and booleans in Postgres; both read the same here.

import type { ClipDocument, Video } from "../spec/index.js";

/** A flag column as either store returns it. */
export type StoredFlag = boolean | number;

/** True for a set flag: `true` or 1. */
export const isSet = (flag: StoredFlag): boolean => flag === true || flag === 1;

/** A video's row as both stores keep it. */
export interface VideoRow {
  key: number;
  id: string;
  status: "pending" | "ready";
  path: string;
  title: string;
  kind: "media" | "transcript";
  duration_seconds: number;
  size_bytes: number;
  width: number | null;
  height: number | null;
  has_audio: StoredFlag;
  has_video: StoredFlag;
  times_estimated: StoredFlag;
  ingested_at: string;
  clip_count: number;
  fingerprint: string | null;
  language: string | null;
}

export function toVideo(row: VideoRow): Video {
  return {
    id: row.id,
    path: row.path,
    title: row.title,
    durationSeconds: row.duration_seconds,
    kind: row.kind,
    sizeBytes: row.size_bytes,
    ...(row.width === null ? {} : { width: row.width }),
    ...(row.height === null ? {} : { height: row.height }),
    hasAudio: isSet(row.has_audio),
    hasVideo: isSet(row.has_video),
    timesEstimated: isSet(row.times_estimated),
    ingestedAt: row.ingested_at,
    clipCount: row.clip_count,
    ...(row.language ? { language: row.language } : {}),
  };
}

/** A clip's columns, with its video's id, as a clip document is read. */
export interface ClipDocumentRow {
  video_id: string;
  clip_index: number;
  start_second: number;
  end_second: number;
  screen: string;
  visual: string;
}

/** The clip document of a row, with its transcript as read from wherever the store keeps it. */
export function toClipDocument(row: ClipDocumentRow, transcript: string): ClipDocument {
  return {
    videoId: row.video_id,
    index: row.clip_index,
    startSecond: row.start_second,
    endSecond: row.end_second,
    transcript,
    screen: row.screen,
    visual: row.visual,
  };
}
