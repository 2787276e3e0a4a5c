// Speakers from a store's rows: both stores keep a video's speaker labels beside its segment blocks (so a search by
// name need not decode them) and the names a user gave them, compare both by the same key, and turn their rows into the
// same answers.

import { VideoRagError, type Segment, type SpeakerMatch } from "../spec/index.js";
import { storedText } from "./packed-text.js";

/** What names and labels are compared by: case-insensitively, after NFC and trimming. */
export const speakerKey = (text: string): string => text.normalize("NFC").trim().toLowerCase();

/**
 * The distinct speaker labels of a video's segments, as the blocks store them, with their keys. A blank label, or one
 * with a control character (which `setSpeakerName` refuses, and a Postgres text cannot hold as NUL), is kept in the
 * blocks but not listed.
 */
export function speakerLabels(segments: Segment[]): { label: string; key: string }[] {
  const labels = new Map<string, string>();
  for (const segment of segments) {
    if (segment.speaker === undefined || segment.speaker === null) continue;
    const label = storedText(String(segment.speaker));
    if (label.trim() !== "" && !/\p{Cc}/u.test(label) && !labels.has(label)) labels.set(label, speakerKey(label));
  }
  return [...labels].map(([label, key]) => ({ label, key }));
}

/** Longest label or name `setSpeakerName` takes, in characters (code points). */
export const maxSpeakerNameLength = 100;

/**
 * Throws ARGUMENT_INVALID unless `text` is a label or name `setSpeakerName` takes. Returns a name trimmed, a label as
 * given: it is matched exactly against the labels the segments carry.
 */
export function checkSpeakerText(text: unknown, what: "label" | "name", videoId: string): string {
  const where = `a speaker ${what} for ${videoId}`;
  if (typeof text !== "string") throw new VideoRagError("ARGUMENT_INVALID", `${where} must be text`, { subject: videoId });
  const value = what === "name" ? text.trim() : text;
  if (value.trim() === "") throw new VideoRagError("ARGUMENT_INVALID", `${where} must not be empty`, { subject: videoId });
  if ([...value].length > maxSpeakerNameLength) {
    throw new VideoRagError("ARGUMENT_INVALID", `${where} is longer than ${maxSpeakerNameLength} characters`, { subject: videoId });
  }
  // Names are shown on one line beside quotes and citations.
  if (/\p{Cc}/u.test(value)) throw new VideoRagError("ARGUMENT_INVALID", `${where} holds a control character`, { subject: videoId });
  return value;
}

/**
 * Throws ARGUMENT_INVALID unless `label` may be given `name` among the video's speakers (`labels`: those its segments
 * carry and those already named): the label must be one of them, and the name may not be another one's label.
 */
export function checkSpeakerNaming(videoId: string, labels: string[], label: string, name: string): void {
  if (!labels.includes(label)) {
    const listed = [...labels].sort().map((known) => JSON.stringify(known));
    const known = listed.length > 0 ? `its speakers are ${listed.join(", ")}` : "it has no speakers";
    throw new VideoRagError("ARGUMENT_INVALID", `${videoId} has no speaker ${JSON.stringify(label)} (${known})`, { subject: videoId });
  }
  const nameKey = speakerKey(name);
  const other = labels.find((known) => known !== label && speakerKey(known) === nameKey);
  if (other !== undefined) {
    throw new VideoRagError("ARGUMENT_INVALID", `${JSON.stringify(name)} is the label of another speaker of ${videoId}; give it another name`, {
      subject: videoId,
    });
  }
}

/** A speaker's row as both stores read it for `findSpeakers`: `name` is null where it has none. */
export interface SpeakerMatchRow {
  video_id: string;
  label: string;
  name: string | null;
}

export const toSpeakerMatch = (row: SpeakerMatchRow): SpeakerMatch => ({ videoId: row.video_id, label: row.label, name: row.name ?? row.label });

/** Label → name, as `speakerNames` returns it (an own property even for a label such as "__proto__"). */
export const toSpeakerNames = (rows: { label: string; name: string }[]): Record<string, string> =>
  Object.fromEntries(rows.map((row) => [row.label, row.name]));
