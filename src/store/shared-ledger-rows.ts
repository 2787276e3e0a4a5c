// The extraction ledger's rows as the Store gives them: clip signals and clip stage states, read alike on every store.

import type { ClipSignals, ClipStageState, ClipStageStatus } from "../spec/index.js";

/** A clip's light signals as stored: `speech_regions` is JSON, NULL (like `speech_seconds`) where not known. */
export interface ClipSignalsRow {
  clip_index: number;
  speech_seconds: number | null;
  speech_regions: string | null;
  screen_changes: number;
  asked: number;
}

/** The signals of these rows, of the clips in `clipIndexes` only where it is given, in the rows' order. */
export function toClipSignals(rows: ClipSignalsRow[], clipIndexes?: number[]): ClipSignals[] {
  const wanted = clipIndexes ? new Set(clipIndexes) : undefined;
  return rows
    .filter((row) => !wanted || wanted.has(row.clip_index))
    .map((row) => ({
      clipIndex: row.clip_index,
      ...(row.speech_seconds === null ? {} : { speechSeconds: row.speech_seconds }),
      ...(row.speech_regions === null ? {} : { speechRegions: JSON.parse(row.speech_regions) as [number, number][] }),
      screenChanges: row.screen_changes,
      asked: row.asked,
    }));
}

/** A clip stage as stored, with its video's id. */
export interface ClipStageRow {
  video_id: string;
  clip_index: number;
  stage: string;
  key: string;
  status: ClipStageStatus;
  error: string | null;
}

export function toClipStageState(row: ClipStageRow): ClipStageState {
  return {
    videoId: row.video_id,
    clipIndex: row.clip_index,
    stage: row.stage,
    key: row.key,
    status: row.status,
    ...(row.error === null ? {} : { error: row.error }),
  };
}
