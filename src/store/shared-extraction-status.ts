// The extraction status from a store's counts: per stage and status, and per video. Every store sums the same rows the
// same way, whatever SQL counts them.

import type { ClipStageStatus, ExtractionStatus } from "../spec/index.js";

/** How many clip stages of ready videos have this stage and status. */
export interface StageCountRow {
  stage: string;
  status: ClipStageStatus;
  count: number;
}

/** A ready video's clips: all of them, those with a failed stage, and those with a pending one and none failed. */
export interface VideoClipCountRow {
  video_id: string;
  clips: number;
  failed: number;
  pending: number;
}

/** The ExtractionStatus of these counts; `byVideo` keeps the order of `videoCounts`. */
export function sumExtractionStatus(stageCounts: StageCountRow[], videoCounts: VideoClipCountRow[]): ExtractionStatus {
  const stages: ExtractionStatus["stages"] = {};
  for (const row of stageCounts) {
    const entry = (stages[row.stage] ??= { done: 0, pending: 0, failed: 0 });
    entry[row.status] = row.count;
  }
  const byVideo = videoCounts.map((row) => ({
    videoId: row.video_id,
    clips: row.clips,
    extractedClips: row.clips - row.failed - row.pending,
    pendingClips: row.pending,
    failedClips: row.failed,
  }));
  const sum = (pick: (entry: (typeof byVideo)[number]) => number): number => byVideo.reduce((total, entry) => total + pick(entry), 0);
  return {
    videos: byVideo.length,
    clips: sum((entry) => entry.clips),
    extractedClips: sum((entry) => entry.extractedClips),
    pendingClips: sum((entry) => entry.pendingClips),
    failedClips: sum((entry) => entry.failedClips),
    stages,
    byVideo,
  };
}
