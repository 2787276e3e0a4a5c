// Speakers from a store's rows: both stores keep a video's speaker labels beside its segment blocks (so a search by
// name need not decode them) and the names a user gave them, compare both by the same key, and turn their rows into the
// same answers.

import { VideoRagError, type Segment, type SpeakerMatch, type SpeakerVoices } from "../spec/index.js";
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

/**
 * Throws ARGUMENT_INVALID unless `voices` may be kept for `videoId`: a key, labels neither blank nor repeated (nor
 * holding a control character), turns 0 ≤ start < end with finite ends, and vectors of one length with finite values.
 */
export function checkSpeakerVoices(videoId: string, voices: SpeakerVoices): void {
  const refuse = (why: string): never => {
    throw new VideoRagError("ARGUMENT_INVALID", `the voices of ${videoId}: ${why}`, { subject: videoId });
  };
  if (typeof voices?.key !== "string" || voices.key === "") refuse("a key naming the diarizer settings is needed");
  if (!Array.isArray(voices.voices)) refuse("voices must be a list");
  const labels = new Set<string>();
  let dimensions: number | undefined;
  for (const voice of voices.voices) {
    checkSpeakerText(voice.label, "label", videoId);
    if (labels.has(voice.label)) refuse(`the label ${JSON.stringify(voice.label)} is given twice`);
    labels.add(voice.label);
    for (const turn of voice.turns) {
      const [start, end] = turn;
      if (!Number.isFinite(start) || !Number.isFinite(end) || start < 0 || end <= start) refuse(`a turn of ${JSON.stringify(voice.label)} runs from ${start} to ${end}`);
    }
    if (voice.vector === undefined) continue;
    if (!(voice.vector instanceof Float32Array) || voice.vector.length === 0 || voice.vector.some((value) => !Number.isFinite(value))) {
      refuse(`the vector of ${JSON.stringify(voice.label)} is not a list of finite numbers`);
    }
    if (dimensions !== undefined && voice.vector.length !== dimensions) refuse(`vectors of ${dimensions} and ${voice.vector.length} numbers`);
    dimensions = voice.vector.length;
  }
}

/** A kept voice's row as both stores read it: turns as JSON text, the vector as float32 bytes. */
export interface SpeakerVoiceRow {
  label: string;
  diarized_by: string;
  turns: string;
  vector: Buffer | null;
}

/** The turns of a voice as stored: JSON pairs rounded to the millisecond. */
export const turnsText = (turns: [number, number][]): string =>
  JSON.stringify(turns.map(([start, end]) => [Math.round(start * 1000) / 1000, Math.round(end * 1000) / 1000]));

export const vectorOfBytes = (bytes: Buffer): Float32Array => new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));

/** A video's kept voices from their rows (ordered by label), or undefined where there are none. */
export function toSpeakerVoices(rows: SpeakerVoiceRow[]): SpeakerVoices | undefined {
  const first = rows[0];
  if (!first) return undefined;
  return {
    key: first.diarized_by,
    voices: rows.map((row) => ({
      label: row.label,
      turns: JSON.parse(row.turns) as [number, number][],
      ...(row.vector ? { vector: vectorOfBytes(row.vector) } : {}),
    })),
  };
}
