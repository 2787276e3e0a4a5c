// A video's indexed text as WebVTT, the subtitles track of the web UI's player and `GET /api/videos/:id/transcript.vtt`:
// a cue per segment, text that is not speech saying where it came from, who speaks as a voice span, and the language
// it is in as a language span (a player picks the glyphs of Chinese and Japanese text by it).

import type { Segment } from "../spec/index.js";

/** Text as WebVTT cue text or a span's annotation: `&`, `<` and `>` would otherwise start an escape or a tag. */
function escapeCueText(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

function cueTime(second: number): string {
  const whole = Math.max(0, second);
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const seconds = whole % 60;
  return `${String(hours).padStart(2, "0")}:${String(minutes).padStart(2, "0")}:${seconds.toFixed(3).padStart(6, "0")}`;
}

const sourceNote: Partial<Record<Segment["source"], string>> = { screen: "(on screen) ", visual: "(seen) ", caption: "(seen) " };

/**
 * The indexed text as WebVTT cues; a segment with a speaker is a voice span, `<v Dana>…</v>`, named by `names` (label →
 * name) where its label has a name, by its label otherwise; one with a language is inside a language span,
 * `<lang de>…</lang>`.
 */
export function webVtt(segments: readonly Segment[], names: Readonly<Record<string, string>> = {}): string {
  const cues = [...segments]
    .sort((a, b) => a.startSecond - b.startSecond)
    .map((segment) => {
      const end = Math.max(segment.endSecond, segment.startSecond + 0.5);
      // A blank line would end the cue early; "-->" would start a new one.
      const text = escapeCueText(`${sourceNote[segment.source] ?? ""}${segment.text}`.replace(/\n\s*\n/g, "\n").replaceAll("-->", "->"));
      const speaker = segment.speaker ? ((Object.hasOwn(names, segment.speaker) ? names[segment.speaker] : undefined) ?? segment.speaker) : undefined;
      // A voice's annotation runs to the tag's end on one line: no line break, and its spaces are one.
      const voiced = speaker?.replace(/\s+/g, " ").trim() ? `<v ${escapeCueText(speaker.replace(/\s+/g, " ").trim())}>${text}</v>` : text;
      // A language tag is letters, digits and hyphens (BCP 47); anything else would break the span.
      const spoken = segment.language && /^[A-Za-z0-9-]{1,35}$/.test(segment.language) ? `<lang ${segment.language}>${voiced}</lang>` : voiced;
      return `${cueTime(segment.startSecond)} --> ${cueTime(end)}\n${spoken}`;
    });
  return `WEBVTT\n\n${cues.join("\n\n")}\n`;
}
