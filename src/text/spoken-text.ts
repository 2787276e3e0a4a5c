// Spoken text as written text: hesitations, sound cues and stutters of transcripts left out, a capital first and a full
// stop last (none after another script's end: "。"), so a quoted line reads as a sentence in a summary or a step.

import { endsSentence } from "./sentences.js";

/** Hesitations and sound tags of spoken transcripts, which no written sentence keeps. */
const fillers = /\[[^\]]*\]|\b(?:uh+|um+|uhm|erm|hmm+|you know|i mean)\b[,.]?\s*/gi;
/** A word said twice in a row ("the the"). */
const stutter = /\b(\w+)(\s+\1\b)+/gi;

export function cleanSpoken(text: string): string {
  const clean = text.replace(fillers, " ").replace(stutter, "$1").replace(/\s+([,.!?])/g, "$1").replace(/\s+/g, " ").trim();
  if (!clean) return clean;
  const capital = clean.charAt(0).toUpperCase() + clean.slice(1);
  return /[.!?…"'”’)\]]$/.test(capital) || endsSentence(capital) ? capital : `${capital}.`;
}
