// What a language model answers from: numbered moments of the library, their text and (optionally) their frames.

import type { Citation, ImageInput } from "../spec/index.js";
import { formatTimestamp } from "../text/citation-format.js";
import { sentenceBreaks } from "../text/index.js";

/** The channel an evidence item's text came from. */
export type EvidenceKind = "caption" | "transcript" | "screen" | "visual";

/** One moment handed to a language model; items are ranked best first and numbered [1], [2], … in that order. */
export interface Evidence {
  videoId: string;
  path: string;
  title: string;
  startSecond: number;
  endSecond: number;
  /** True when the times were estimated (a transcript without timestamps); shown with `~`. */
  timesEstimated: boolean;
  kind: EvidenceKind;
  text: string;
  /** Frames of the moment, for models that accept images. */
  images?: ImageInput[];
}

/** Longest quote a citation carries; the moment itself is one click away. */
const maxQuoteChars = 300;

/** `0:03–0:04`, or `~1:02–1:30` when the times were estimated. */
export function formatEvidenceTimes(evidence: Evidence): string {
  const approximate = evidence.timesEstimated ? "~" : "";
  return `${approximate}${formatTimestamp(evidence.startSecond)}–${formatTimestamp(evidence.endSecond)}`;
}

export function citationOf(evidence: Evidence, score: number): Citation {
  return {
    videoId: evidence.videoId,
    path: evidence.path,
    title: evidence.title,
    startSecond: evidence.startSecond,
    endSecond: evidence.endSecond,
    quote: cutText(oneLine(evidence.text), maxQuoteChars),
    score,
    timesEstimated: evidence.timesEstimated,
  };
}

export function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * The longest start of `text` within `maxChars` that ends a sentence (in any script: "。" too), or undefined when not
 * even the first sentence fits. Cutting between sentences keeps every quoted claim whole. Not after an ellipsis: a
 * quote ending "…" reads as cut off, which is what `cutText` says with it.
 */
export function cutAtSentence(text: string, maxChars: number): string | undefined {
  if (text.length <= maxChars) return text;
  const ends = sentenceBreaks(text).filter((end) => end <= maxChars && !/…["'”’)\]」』）】]*$/u.test(text.slice(Math.max(0, end - 8), end)));
  return ends.length === 0 ? undefined : text.slice(0, ends.at(-1));
}

/** Cuts between sentences when one fits, else between words with an ellipsis. */
export function cutText(text: string, maxChars: number): string {
  const sentences = cutAtSentence(text, maxChars);
  if (sentences !== undefined) return sentences;
  const room = Math.max(0, maxChars - 1);
  const lastSpace = text.lastIndexOf(" ", room);
  return `${(lastSpace > 0 ? text.slice(0, lastSpace) : text.slice(0, room)).trimEnd()}…`;
}
