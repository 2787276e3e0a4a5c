// How moments are written for people: `[friday.mp4 0:03–0:04]`, with `~` when the times are estimated and the speaker
// when one is known (`[meeting.mp4 12:40–13:10 · Dana]`).

/** 0:03, 12:40, 1:02:03 — seconds are floored so the cited second is where the moment begins. */
export function formatTimestamp(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds));
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const rest = String(whole % 60).padStart(2, "0");
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, "0")}:${rest}` : `${minutes}:${rest}`;
}

export function formatCitation(citation: { title: string; startSecond: number; endSecond: number; speaker?: string }, estimated = false): string {
  const approximate = estimated ? "~" : "";
  const speaker = citation.speaker ? ` · ${citation.speaker}` : "";
  return `[${citation.title} ${approximate}${formatTimestamp(citation.startSecond)}–${formatTimestamp(citation.endSecond)}${speaker}]`;
}

/** Removes inline citation markers, e.g. to score the answer's words against a reference. */
export function stripCitations(text: string): string {
  return text.replace(/\s*\[[^\]]*\d:\d\d[^\]]*\]/g, "").replace(/[ \t]+/g, " ").trim();
}
