// How times, durations, sources and citation markers are written in the UI, matching the CLI and the answers' text.

import { formatCitation, formatTimestamp } from "../../src/text/citation-format";
import type { SegmentSource } from "./api-types";

// One way of writing a second for the CLI, the answers' citation markers and the UI.
export { formatTimestamp };

/** A length: rounded rather than floored, so a 6.2 s clip reads 0:06 and a 59.7 s one 1:00. */
export function formatDuration(seconds: number): string {
  return formatTimestamp(Math.round(seconds));
}

export function formatRange(startSecond: number, endSecond: number): string {
  return `${formatTimestamp(startSecond)}–${formatTimestamp(endSecond)}`;
}

/**
 * The marker the answer's text carries for a citation: `[friday.mp4 0:03–0:04]`, `~` when times are estimated, and who
 * speaks when known (`[meeting.mp4 0:06–0:10 · Sam]`): the library's own format.
 */
export function citationMarker(citation: { title: string; startSecond: number; endSecond: number; timesEstimated?: boolean; speaker?: string }): string {
  return formatCitation(citation, citation.timesEstimated ?? false);
}

const sourceNames: Record<SegmentSource, string> = {
  subtitle: "subtitles",
  speech: "speech",
  screen: "screen text",
  transcript: "transcript",
  visual: "visual",
  caption: "visual",
};

/** The name people read for a segment source; visual words and captions are both "visual". */
export function sourceName(source: SegmentSource): string {
  return sourceNames[source] ?? source;
}

/** Score with up to three significant decimals, as `--explain` prints. */
export function formatScore(score: number): string {
  return Number(score.toPrecision(3)).toString();
}

export function plural(count: number, word: string, many = `${word}s`): string {
  return `${count} ${count === 1 ? word : many}`;
}

export function basename(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}

const languageNames = typeof Intl.DisplayNames === "function" ? new Intl.DisplayNames(["en"], { type: "language" }) : undefined;

/** "German" for "de": the browser's name for an ISO 639-1 code, the code itself where it has none. */
export function languageName(code: string): string {
  try {
    return languageNames?.of(code) ?? code;
  } catch {
    return code;
  }
}
