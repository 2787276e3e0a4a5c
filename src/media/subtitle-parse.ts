// SRT and WebVTT parsing into timed cues. Pure functions: no I/O.

export interface SubtitleCue {
  startSecond: number;
  endSecond: number;
  text: string;
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

/** Parses SRT or WebVTT text (the format is detected from the timing lines), skipping empty cues. */
export function parseSubtitleText(content: string): SubtitleCue[] {
  const lines = content.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n").split("\n");
  const cues: SubtitleCue[] = [];
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
    const text = cleanCueText(body.join(" "));
    const startSecond = toSeconds(h1, m1 ?? "0", s1 ?? "0", f1 ?? "0");
    const endSecond = toSeconds(h2, m2 ?? "0", s2 ?? "0", f2 ?? "0");
    if (text && endSecond >= startSecond) cues.push({ startSecond, endSecond, text });
  }
  return cues.sort((a, b) => a.startSecond - b.startSecond);
}
