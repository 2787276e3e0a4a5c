// The units summaries and chapters are made of: whole utterances, each one or more consecutive spoken segments merged
// until a sentence ends, a pause falls or it is long enough to stand alone. Auto-captions come as 8-word lines with no
// punctuation; quoting one line cuts a sentence in half, quoting an utterance does not. Sentence ends, joins and word
// counts are those of the text's script (text/sentences.ts): a Japanese line ends at "。" and runs on without a space.

import type { Segment } from "../spec/index.js";
import { analyzeText, countWords, endsSentence, joinLines, termKey } from "../text/index.js";

/** Consecutive segments of one channel read as one unit, with their content stems. */
export interface Utterance {
  startSecond: number;
  endSecond: number;
  text: string;
  source: Segment["source"];
  /** Content-word stems, in order with repeats. */
  stems: string[];
  words: number;
}

/** Where speech or subtitles come from: what a video says, as opposed to what it shows. */
export const spokenSources: ReadonlySet<Segment["source"]> = new Set(["subtitle", "speech", "transcript"]);

export interface UtteranceSettings {
  /** An utterance closes at a sentence end once it has this many words. */
  minWords: number;
  /** And always once it has this many. */
  maxWords: number;
  /** A silence this long closes it too. */
  pauseSeconds: number;
}

export const defaultUtteranceSettings: UtteranceSettings = { minWords: 10, maxWords: 40, pauseSeconds: 1.5 };


/** Stems of a text's content words, sound cues ("[squawk]", "(laughs)") left out: what summary/ compares. */
export function contentStems(text: string): string[] {
  return analyzeText(text.replace(/\[[^\]]*\]|\([^)]*\)/g, " ")).map(termKey);
}

/**
 * The spoken segments of a video (subtitles, speech, transcript lines) merged into utterances, in time order; screen
 * text alone when nothing is said.
 */
export function buildUtterances(segments: readonly Segment[], settings: UtteranceSettings = defaultUtteranceSettings): Utterance[] {
  const sorted = [...segments].sort((a, b) => a.startSecond - b.startSecond);
  const spoken = sorted.filter((segment) => spokenSources.has(segment.source));
  const units = spoken.length > 0 ? spoken : sorted.filter((segment) => segment.source === "screen");
  const utterances: Utterance[] = [];
  let open: { startSecond: number; endSecond: number; texts: string[]; source: Segment["source"]; words: number } | undefined;
  const close = (): void => {
    if (!open) return;
    const text = joinLines(open.texts).replace(/\s+/g, " ").trim();
    if (text) utterances.push({ startSecond: open.startSecond, endSecond: open.endSecond, text, source: open.source, stems: contentStems(text), words: open.words });
    open = undefined;
  };
  for (const segment of units) {
    const text = segment.text.trim();
    if (!text) continue;
    // Screen text comes a slide at a time: each is an utterance of its own.
    if (open && (segment.startSecond - open.endSecond >= settings.pauseSeconds || segment.source !== open.source || segment.source === "screen")) close();
    open ??= { startSecond: segment.startSecond, endSecond: segment.endSecond, texts: [], source: segment.source, words: 0 };
    open.texts.push(text);
    open.endSecond = Math.max(open.endSecond, segment.endSecond);
    open.words += countWords(text);
    if (open.words >= settings.maxWords || (open.words >= settings.minWords && endsSentence(text))) close();
  }
  close();
  return utterances;
}

/** Term counts of a list of stems. */
export function termCounts(stems: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const stem of stems) counts.set(stem, (counts.get(stem) ?? 0) + 1);
  return counts;
}

/** Cosine similarity of two weighted term vectors, 0..1. */
export function cosine(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (const [term, weight] of a) {
    normA += weight * weight;
    const other = b.get(term);
    if (other !== undefined) dot += weight * other;
  }
  for (const weight of b.values()) normB += weight * weight;
  return dot === 0 ? 0 : dot / Math.sqrt(normA * normB);
}

/**
 * The lines a video's chapters, summary and graph are made of: those in its own `language` and those in no known one.
 * Lines in another language are a translation (a second subtitle stream): searched, not summarised a second time. A
 * video without a language, or with no line in it, keeps every line.
 */
export function ownLanguageSegments<T extends Segment>(segments: readonly T[], language: string | undefined): readonly T[] {
  if (!language) return segments;
  const own = segments.filter((segment) => segment.language === undefined || segment.language === language);
  return own.some((segment) => segment.language === language) ? own : segments;
}
