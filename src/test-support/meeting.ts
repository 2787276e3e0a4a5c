// A meeting for the tests of speakers: a still picture and WebVTT subtitles whose voices name who speaks (Dana, Sam,
// Ravi), made with ffmpeg in a folder the test gives.
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** Speaker, start and end second, words. */
export type MeetingCue = readonly [speaker: string, startSecond: number, endSecond: number, words: string];

/** Who says what in the meeting. */
export const meetingCues: readonly MeetingCue[] = [
  ["Dana", 1, 5, "Welcome everyone, today we decide the budget for next year."],
  ["Sam", 6, 10, "I think we should move the search index to Postgres."],
  ["Dana", 11, 15, "The budget for hardware stays at forty thousand euros."],
  ["Ravi", 16, 20, "Postgres needs a server, and our users work offline."],
  ["Sam", 21, 25, "Then SQLite it is, one file per library."],
  ["Dana", 26, 30, "Agreed. The budget is approved and the meeting is closed."],
];

/** A reason to skip when ffmpeg is missing, else false. */
export const needsFfmpeg: string | false = spawnSync("ffmpeg", ["-version"]).error ? "ffmpeg is not installed (apt-get install ffmpeg)" : false;

/** Writes meeting.mp4 and its meeting.vtt into `folder`; returns the video's path. */
export function makeMeeting(folder: string, options: { cues?: readonly MeetingCue[]; color?: string; size?: string } = {}): string {
  const cues = options.cues ?? meetingCues;
  const seconds = Math.ceil(Math.max(...cues.map(([, , end]) => end))) + 2;
  const video = join(folder, "meeting.mp4");
  const input = `color=c=${options.color ?? "gray"}:s=${options.size ?? "320x240"}:r=5:d=${seconds}`;
  const made = spawnSync("ffmpeg", ["-y", "-loglevel", "error", "-f", "lavfi", "-i", input, "-pix_fmt", "yuv420p", video]);
  if (made.status !== 0) throw new Error(`ffmpeg could not make the meeting: ${String(made.stderr)}`);
  const clock = (second: number): string => `00:00:${String(second).padStart(2, "0")}.000`;
  writeFileSync(join(folder, "meeting.vtt"), ["WEBVTT", "", ...cues.flatMap(([who, start, end, text]) => [`${clock(start)} --> ${clock(end)}`, `<v ${who}>${text}</v>`, ""])].join("\n"));
  return video;
}
