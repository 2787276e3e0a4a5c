// Screen text: OCR on sampled frames, de-duplicated so text that stays up (a slide, a caption) is one segment with its span.

import type { Segment } from "../spec/index.js";

export interface FrameText {
  timeSecond: number;
  lines: string[];
}

function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Jaccard similarity of the word sets: OCR of the same slide varies by a character or two between frames. */
export function textSimilarity(a: string, b: string): number {
  const left = new Set(words(a));
  const right = new Set(words(b));
  if (left.size === 0 && right.size === 0) return 1;
  let shared = 0;
  for (const word of left) if (right.has(word)) shared++;
  return shared / (left.size + right.size - shared);
}

/**
 * Merges per-frame OCR into spans: a frame whose text matches the open span extends it; different text closes it.
 * A span ends where the next sampled frame no longer shows it (or at the video's end for the last frame).
 */
export function mergeScreenText(frames: FrameText[], durationSeconds: number, similarity = 0.6): Segment[] {
  const segments: Segment[] = [];
  let open: { text: string; startSecond: number } | undefined;
  const close = (endSecond: number): void => {
    if (open) segments.push({ startSecond: open.startSecond, endSecond, text: open.text, source: "screen" });
    open = undefined;
  };
  const sorted = [...frames].sort((a, b) => a.timeSecond - b.timeSecond);
  for (const frame of sorted) {
    const text = frame.lines.join("\n").trim();
    if (open && text && textSimilarity(open.text, text) >= similarity) {
      // Keep the longer reading: later frames of a slide often read more of it once a transition ends.
      if (text.length > open.text.length) open.text = text;
      continue;
    }
    close(frame.timeSecond);
    if (text) open = { text, startSecond: frame.timeSecond };
  }
  close(Math.max(durationSeconds, sorted.at(-1)?.timeSecond ?? 0));
  return segments;
}
