// What ingest reports: progress events while it works and one result per input.

import type { ErrorCode, Warning } from "../spec/index.js";

/**
 * The stages a media file goes through, in order: the light index up to its commit, then the deferred stages, which
 * incremental ingest leaves for question time.
 */
export const mediaStages = [
  "probe", "subtitles", "speech-activity", "screen-changes", "visual-light", "commit",
  "speech", "screen-text", "visual", "embeddings", "graph", "chapters", "speakers",
] as const;
export type MediaStage = (typeof mediaStages)[number] | "transcript";

export type IngestEvent =
  | { type: "video-start"; path: string; position: number; total: number }
  | { type: "stage-start"; path: string; stage: MediaStage }
  | { type: "stage-progress"; path: string; stage: MediaStage; fraction: number }
  | { type: "stage-done"; path: string; stage: MediaStage; seconds: number; resumed: boolean }
  | { type: "video-done"; result: IngestResult };

export interface IngestResult {
  path: string;
  videoId?: string;
  /** ingested: new or replaced; unchanged: already in the library; skipped: not a media file; failed: see error. */
  status: "ingested" | "unchanged" | "skipped" | "failed";
  error?: { code: ErrorCode; message: string };
  durationSeconds: number;
  clipCount: number;
  /** Wall seconds per stage; stages resumed from an earlier run count 0. */
  stageSeconds: Partial<Record<MediaStage, number>>;
  warnings: Warning[];
  /** Where the text came from, e.g. "subtitles: sidecar friday.vtt". */
  notes: string[];
}

export interface IngestReport {
  results: IngestResult[];
  videos: number;
  failed: number;
  hours: number;
  clips: number;
  stageSeconds: Partial<Record<MediaStage, number>>;
  wallSeconds: number;
  warnings: Warning[];
  /** One line per stage naming the provider that ran it. */
  providers?: string[];
}

export interface IngestOptions {
  /** Commit only the light index and leave the heavy stages pending, for question time or `extract` (default: the configuration's `ingest.incremental`). */
  incremental?: boolean;
  /**
   * Describe the graph's changed entities once the files are in (default true). A queue worker leaves it to a job of its
   * own, so that one pass serves many ingested files.
   */
  describeEntities?: boolean;
  /**
   * Real folders every file must resolve inside, after every symbolic link, whether named or found in a folder; a file
   * outside is skipped with a note and never read (the server's media roots).
   */
  confineTo?: string[];
  /** How many people speak in these files, when known (`--speakers N`); the diarizer estimates it otherwise. */
  speakers?: number;
  /**
   * The language these files speak or show, when their subtitles' tags and text cannot be trusted to tell it
   * (`--language de`): ISO 639-1 or -2 codes, BCP 47 tags or English names. ARGUMENT_INVALID for one that names none.
   */
  language?: string;
  onProgress?: (event: IngestEvent) => void;
  signal?: AbortSignal;
}

/** Sums per-video results into the batch summary. */
export function summarize(results: IngestResult[], wallSeconds: number): IngestReport {
  const stageSeconds: Partial<Record<MediaStage, number>> = {};
  for (const result of results) {
    for (const [stage, seconds] of Object.entries(result.stageSeconds) as [MediaStage, number][]) {
      stageSeconds[stage] = (stageSeconds[stage] ?? 0) + seconds;
    }
  }
  const done = results.filter((result) => result.status === "ingested" || result.status === "unchanged");
  return {
    results,
    videos: done.length,
    failed: results.filter((result) => result.status === "failed").length,
    hours: done.reduce((sum, result) => sum + result.durationSeconds, 0) / 3600,
    clips: done.reduce((sum, result) => sum + result.clipCount, 0),
    stageSeconds,
    wallSeconds,
    warnings: results.flatMap((result) => result.warnings),
  };
}
