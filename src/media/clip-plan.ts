// Splits a video's timeline into fixed-length clips, the unit retrieval ranks and answers cite.

import { VideoRagError } from "../spec/index.js";

/** One planned clip: [startSecond, endSecond) of the video. */
export interface PlannedClip {
  index: number;
  startSecond: number;
  endSecond: number;
}

/**
 * Clips of `clipSeconds` covering [0, durationSeconds]. A tail shorter than a third of a clip joins the clip before it,
 * so no clip is too short to hold a sentence; a video of zero length still gets one (empty) clip, so that whatever text
 * it has (subtitles with times past a broken duration, a title) has a place to live.
 */
export function planClips(durationSeconds: number, clipSeconds = 30): PlannedClip[] {
  if (!Number.isFinite(durationSeconds) || durationSeconds < 0) {
    throw new VideoRagError("ARGUMENT_INVALID", `a video duration must be a number of seconds ≥ 0, not ${durationSeconds}`);
  }
  if (!Number.isFinite(clipSeconds) || clipSeconds <= 0) {
    throw new VideoRagError("ARGUMENT_INVALID", `the clip length must be a number of seconds > 0, not ${clipSeconds}`);
  }
  const fullClips = Math.floor(durationSeconds / clipSeconds);
  const tailSeconds = durationSeconds - fullClips * clipSeconds;
  const count = fullClips === 0 ? 1 : tailSeconds >= clipSeconds / 3 ? fullClips + 1 : fullClips;
  const clips: PlannedClip[] = [];
  for (let index = 0; index < count; index++) {
    const startSecond = index * clipSeconds;
    const endSecond = index === count - 1 ? durationSeconds : (index + 1) * clipSeconds;
    clips.push({ index, startSecond, endSecond });
  }
  return clips;
}
