// Turns time-coded segments into clip documents: each clip gets the text of every segment that overlaps it.

import type { ClipDocument, Segment } from "../spec/index.js";
import { ownLanguageSegments } from "../summary/index.js";

export interface ClipSpan {
  index: number;
  startSecond: number;
  endSecond: number;
}

/**
 * A segment belongs to the clip holding its midpoint, so a line said across a boundary is indexed once,
 * where most of it is; screen text, visual words and captions that span many clips (a slide left up, a car parked)
 * belong to each clip they cover.
 */
export function buildClipDocuments(videoId: string, clips: ClipSpan[], segments: Segment[]): ClipDocument[] {
  const documents: ClipDocument[] = clips.map((clip) => ({ videoId, ...clip, transcript: "", screen: "", visual: "" }));
  const parts = documents.map(() => ({ transcript: [] as string[], screen: [] as string[], visual: [] as string[] }));
  const lastIndex = clips.length - 1;
  const clipAt = (second: number): number => {
    const found = clips.findIndex((clip) => second >= clip.startSecond && second < clip.endSecond);
    return found === -1 ? (second < (clips[0]?.startSecond ?? 0) ? 0 : lastIndex) : found;
  };
  for (const segment of segments) {
    if (lastIndex < 0) break;
    if (segment.source === "screen" || segment.source === "visual" || segment.source === "caption") {
      const field = segment.source === "screen" ? "screen" : "visual";
      const first = clipAt(segment.startSecond);
      const last = clipAt(Math.max(segment.startSecond, segment.endSecond - 1e-6));
      for (let index = first; index <= last; index++) parts[index]?.[field].push(segment.text);
    } else {
      parts[clipAt((segment.startSecond + segment.endSecond) / 2)]?.transcript.push(segment.text);
    }
  }
  documents.forEach((document, index) => {
    document.transcript = parts[index]?.transcript.join("\n") ?? "";
    document.screen = parts[index]?.screen.join("\n") ?? "";
    document.visual = parts[index]?.visual.join("\n") ?? "";
  });
  return documents;
}

/** The clip that holds a second, or the last one. */
export function clipIndexAt(clips: ClipSpan[], second: number): number {
  return (clips.find((clip) => second >= clip.startSecond && second < clip.endSecond) ?? clips.at(-1))?.index ?? 0;
}

/**
 * The clip documents of the video's own language (`ownLanguageSegments`), which its graph reads: a second subtitle
 * stream's translation would name everything twice. `documents` itself when no line is in another language.
 */
export function ownLanguageDocuments(documents: ClipDocument[], clips: ClipSpan[], segments: Segment[], language: string | undefined): ClipDocument[] {
  const own = ownLanguageSegments(segments, language);
  return own.length === segments.length ? documents : buildClipDocuments(documents[0]?.videoId ?? "", clips, [...own]);
}
