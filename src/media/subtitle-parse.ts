// SRT, WebVTT and ASS/SSA parsing into timed cues, with who speaks when the file says (a WebVTT voice, an ASS Name
// field, a "DANA:" line prefix). Pure functions: no I/O.

import { resolveSpeakers, splitVoices, type VoicedText } from "./subtitle-speakers.js";

export interface SubtitleCue {
  startSecond: number;
  endSecond: number;
  text: string;
  /**
   * Who speaks, as the file names them: a WebVTT voice (`<v Dana>`), an ASS Dialogue line's Name field, or a speaker
   * prefix starting a line ("DANA: Hello", taken off the text). Absent when the file does not say.
   */
  speaker?: string;
  /**
   * The language it is in (ISO 639-1), as its stream's tag or its file's name says (see readSubtitles); absent when
   * neither does.
   */
  language?: string;
}

const timestamp = /(?:(\d+):)?(\d{1,2}):(\d{2})[.,](\d{1,3})/;
const cueTiming = new RegExp(`${timestamp.source}\\s*-->\\s*${timestamp.source}`);

function toSeconds(hours: string | undefined, minutes: string, seconds: string, fraction: string): number {
  return Number(hours ?? 0) * 3600 + Number(minutes) * 60 + Number(seconds) + Number(fraction.padEnd(3, "0")) / 1000;
}

/** Strips markup (<i>, <u>, <c.x>, {\an8}, ASS overrides) and collapses whitespace. */
export function cleanCueText(text: string): string {
  return text
    .replace(/<[^>]+>/g, "")
    .replace(/\{\\[^}]*\}/g, "")
    .replace(/\\N/gi, " ")
    .replace(/&amp;/g, "&")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&nbsp;/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** A cue as read from the file, before speakers are resolved: its times and its raw text in voice parts. */
interface RawCue {
  startSecond: number;
  endSecond: number;
  parts: VoicedText[];
}

/**
 * Parses SRT, WebVTT (the format is detected from the timing lines) or ASS/SSA (from its `[Events]` section) text,
 * skipping empty cues. A cue in which several people speak (two voice spans, or "- DANA: …" and "- SAM: …" lines)
 * comes back as one cue per speaker, each with the cue's times.
 */
export function parseSubtitleText(content: string): SubtitleCue[] {
  const text = content.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const raw = assEvents.test(text) && assDialogue.test(text) ? parseAssEvents(text) : parseTimedBlocks(text);
  const spoken = resolveSpeakers(raw, cleanCueText);
  const cues: SubtitleCue[] = [];
  raw.forEach((cue, index) => {
    // A piece has a speaker key only when it has a speaker, so cues without one compare equal to plain {times, text}.
    for (const piece of spoken[index] ?? []) cues.push({ startSecond: cue.startSecond, endSecond: cue.endSecond, ...piece });
  });
  return cues.sort((a, b) => a.startSecond - b.startSecond);
}

/** SRT and WebVTT: a timing line, then the cue's text up to a blank line. */
function parseTimedBlocks(text: string): RawCue[] {
  const lines = text.split("\n");
  const cues: RawCue[] = [];
  let index = 0;
  while (index < lines.length) {
    const match = cueTiming.exec(lines[index] ?? "");
    index += 1;
    if (!match) continue;
    const [, h1, m1, s1, f1, h2, m2, s2, f2] = match;
    const body: string[] = [];
    while (index < lines.length && (lines[index] ?? "").trim() !== "") {
      if (cueTiming.test(lines[index] ?? "")) break;
      body.push(lines[index] ?? "");
      index += 1;
    }
    const startSecond = toSeconds(h1, m1 ?? "0", s1 ?? "0", f1 ?? "0");
    const endSecond = toSeconds(h2, m2 ?? "0", s2 ?? "0", f2 ?? "0");
    if (endSecond >= startSecond) cues.push({ startSecond, endSecond, parts: splitVoices(body.join("\n"), cleanCueText) });
  }
  return cues;
}

const assEvents = /^\s*\[events\]\s*$/im;
const assDialogue = /^\s*Dialogue\s*:/im;
const assTime = /^(\d+):(\d{1,2}):(\d{1,2})[.:](\d{1,3})$/;
// The Events format of ASS (Layer) and SSA (Marked) files without a Format line of their own.
const defaultAssFields = ["layer", "start", "end", "style", "name", "marginl", "marginr", "marginv", "effect", "text"];

/**
 * ASS/SSA `Dialogue:` lines of the `[Events]` section. Fields are found by the section's `Format:` line; Text is the
 * last and may hold commas. The Name field, when filled, is the speaker; `\N` breaks lines, `{…}` blocks are
 * styling, and drawings (`{\p1}`) are shapes, not text.
 */
function parseAssEvents(text: string): RawCue[] {
  const cues: RawCue[] = [];
  const seen = new Set<string>();
  let fields = defaultAssFields;
  let inEvents = false;
  for (const line of text.split("\n")) {
    const section = /^\s*\[([^\]]+)\]\s*$/.exec(line);
    if (section) {
      inEvents = (section[1] ?? "").trim().toLowerCase() === "events";
      continue;
    }
    if (!inEvents) continue;
    const entry = /^\s*(Format|Dialogue)\s*:\s?(.*)$/i.exec(line);
    if (!entry) continue;
    const [, kind, rest = ""] = entry;
    if (kind?.toLowerCase() === "format") {
      fields = rest.split(",").map((field) => field.trim().toLowerCase());
      continue;
    }
    const values = splitFields(rest, fields.length);
    const field = (name: string): string => values[fields.indexOf(name)] ?? "";
    const start = assTime.exec(field("start").trim());
    const end = assTime.exec(field("end").trim());
    const body = field("text");
    if (!start || !end || /\{[^}]*\\p[1-9]/.test(body)) continue;
    const startSecond = toSeconds(start[1], start[2] ?? "0", start[3] ?? "0", start[4] ?? "0");
    const endSecond = toSeconds(end[1], end[2] ?? "0", end[3] ?? "0", end[4] ?? "0");
    const speaker = cleanCueText(field("name"));
    const lines = body.replace(/\{[^}]*\}/g, "").replace(/\\h/g, " ").split(/\\n/i).join("\n");
    // Styled subtitles repeat a line on several layers (outline, shadow, fill): the same words once are enough.
    const key = `${startSecond}|${endSecond}|${speaker}|${lines}`;
    if (endSecond < startSecond || seen.has(key)) continue;
    seen.add(key);
    cues.push({ startSecond, endSecond, parts: [speaker === "" ? { text: lines } : { speaker, text: lines }] });
  }
  return cues;
}

/** Splits on the first `count - 1` commas; the last field keeps the rest, commas and all. */
function splitFields(text: string, count: number): string[] {
  const values: string[] = [];
  let rest = text;
  while (values.length < count - 1) {
    const comma = rest.indexOf(",");
    if (comma < 0) break;
    values.push(rest.slice(0, comma));
    rest = rest.slice(comma + 1);
  }
  values.push(rest);
  return values;
}
