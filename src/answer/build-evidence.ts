// Retrieved moments → evidence for a language model: each moment's time-coded text, split by channel, with the times
// of the text itself so a citation points at the second something was said or shown, not just at the clip.

import type { Hit, Segment, SegmentSource } from "../spec/index.js";
import { oneLine, type Evidence, type EvidenceKind } from "./evidence.js";

export interface BuildEvidenceOptions {
  /** The time-coded text inside a moment, from every channel. */
  segmentsOf: (moment: Hit) => Segment[];
  /** True when the video's times were estimated from a transcript without timestamps. */
  timesEstimated: (videoId: string) => boolean;
  /** The name a segment's speaker is shown by (its label when absent; not shown where it gives undefined). */
  speakerOf?: (videoId: string, label: string) => string | undefined;
  /** Longest text of one evidence item; longer runs are split between segments. Default 600. */
  maxItemChars?: number;
}

/** Channels in the order a moment's evidence is listed: what is said first, then what is shown. */
const kindOrder: EvidenceKind[] = ["transcript", "screen", "caption", "visual"];

const kindOfSource: Record<SegmentSource, EvidenceKind> = {
  subtitle: "transcript",
  speech: "transcript",
  transcript: "transcript",
  screen: "screen",
  caption: "caption",
  visual: "visual",
};

/** Evidence for `moments` (ranked best first), in rank order; text shared by overlapping moments appears once. */
export function buildEvidence(moments: Hit[], options: BuildEvidenceOptions): Evidence[] {
  const maxItemChars = options.maxItemChars ?? 600;
  const seen = new Set<string>();
  const evidence: Evidence[] = [];
  for (const moment of moments) {
    const base = {
      videoId: moment.videoId,
      path: moment.path,
      title: moment.title,
      timesEstimated: options.timesEstimated(moment.videoId),
    };
    const segments = options.segmentsOf(moment).filter((segment) => oneLine(segment.text) !== "");
    if (segments.length === 0) {
      const key = `${moment.videoId}|${moment.startSecond}|${moment.text}`;
      if (oneLine(moment.text) === "" || seen.has(key)) continue;
      seen.add(key);
      const kind = kindOfSource[moment.source[0] ?? "transcript"];
      evidence.push({ ...base, startSecond: moment.startSecond, endSecond: moment.endSecond, kind, text: oneLine(moment.text) });
      continue;
    }
    for (const kind of kindOrder) {
      const fresh = segments
        .filter((segment) => kindOfSource[segment.source] === kind)
        .sort((a, b) => a.startSecond - b.startSecond)
        .filter((segment) => {
          const key = `${moment.videoId}|${kind}|${segment.startSecond}|${segment.text}`;
          if (seen.has(key)) return false;
          seen.add(key);
          return true;
        });
      for (const run of runsWithin(fresh, maxItemChars)) {
        evidence.push({
          ...base,
          startSecond: run[0]!.startSecond,
          endSecond: Math.max(...run.map((segment) => segment.endSecond)),
          kind,
          // Speech reads as prose; screen lines and labels are separate items; a change of voice is named ("Dana: …").
          text: run
            .map((segment, index) => {
              const who = segment.speaker && segment.speaker !== run[index - 1]?.speaker ? (options.speakerOf ? options.speakerOf(moment.videoId, segment.speaker) : segment.speaker) : undefined;
              const voice = who ? `${who}: ` : "";
              return `${voice}${oneLine(segment.text)}`;
            })
            .join(kind === "transcript" ? " " : "; "),
        });
      }
    }
  }
  return evidence;
}

/** Consecutive segments grouped so each group's text stays within `maxChars` (a longer single segment stands alone). */
function runsWithin(segments: Segment[], maxChars: number): Segment[][] {
  const runs: Segment[][] = [];
  let current: Segment[] = [];
  let length = 0;
  for (const segment of segments) {
    const size = oneLine(segment.text).length;
    if (current.length > 0 && length + 1 + size > maxChars) {
      runs.push(current);
      current = [];
      length = 0;
    }
    length += (current.length > 0 ? 1 : 0) + size;
    current.push(segment);
  }
  if (current.length > 0) runs.push(current);
  return runs;
}
