// Chapters as a WebVTT file, the format players read chapter marks from (HTML <track kind="chapters">).

import type { Chapter } from "../spec/index.js";

/** 00:01:02.500 */
function vttTime(seconds: number): string {
  const millis = Math.max(0, Math.round(seconds * 1000));
  const hours = Math.floor(millis / 3_600_000);
  const minutes = Math.floor((millis % 3_600_000) / 60_000);
  const rest = (millis % 60_000) / 1000;
  return `${String(hours).padStart(2, "0")}:${String(minutes).padStart(2, "0")}:${rest.toFixed(3).padStart(6, "0")}`;
}

/** A cue per chapter, its title as the cue text; "-->" and blank lines cannot appear inside a cue. */
export function chaptersVtt(chapters: readonly Chapter[]): string {
  const cues = chapters.map((chapter) => {
    const title = chapter.title.replace(/-->/g, "→").replace(/\s*\n\s*/g, " ").trim() || `Chapter ${chapter.index + 1}`;
    return `${chapter.index + 1}\n${vttTime(chapter.startSecond)} --> ${vttTime(Math.max(chapter.endSecond, chapter.startSecond + 0.001))}\n${title}`;
  });
  return ["WEBVTT", "", ...cues.flatMap((cue) => [cue, ""])].join("\n");
}
