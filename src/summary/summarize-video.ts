// A video's summary. Lite: extractive, whole utterances chosen for how central they are to their chapter, every
// chapter covered in order, near-repeats left out, each cited. With a language model: map-reduce as NVIDIA's video
// summarization blueprint does it, a summary per chapter from its text, then the video's from the chapters', every
// claim keeping its citation (the chapter's moment), the last step streamed.

import type { Chapter, Citation, LanguageModel, Segment, Video, Warning } from "../spec/index.js";
import { formatCitation } from "../text/citation-format.js";
import { centralUtterance, tfIdf } from "./build-chapters.js";
import { buildUtterances, cosine, termCounts, type Utterance } from "./utterances.js";

/** How long a summary is: a few lines, a paragraph, or a page. */
export type SummaryLength = "short" | "medium" | "long";
export const summaryLengths: readonly SummaryLength[] = ["short", "medium", "long"];

/** One sentence of a summary and the moments it is drawn from. */
export interface SummarySentence {
  text: string;
  citations: Citation[];
  /** The chapter it summarises. */
  chapterIndex: number;
}

export interface VideoSummary {
  videoId: string;
  title: string;
  length: SummaryLength;
  /** The sentences, each followed by its citation, one a line. */
  text: string;
  sentences: SummarySentence[];
  chapters: Chapter[];
  /** "lite", or the language model's id. */
  madeBy: string;
  warnings: Warning[];
}

/** Words a summary grows to, and utterances per chapter at most. */
const lengthTargets: Record<SummaryLength, { words: number; perChapter: number }> = {
  short: { words: 60, perChapter: 1 },
  medium: { words: 150, perChapter: 2 },
  long: { words: 320, perChapter: 4 },
};
/** An utterance this similar to one already chosen says the same thing again. */
const redundantSimilarity = 0.5;

export interface SummaryInput {
  video: Video;
  chapters: readonly Chapter[];
  segments: readonly Segment[];
  length?: SummaryLength;
}

/** The lite summary: cited utterances from every chapter (the longest chapters first when a short one cannot hold all). */
export function liteSummary(input: SummaryInput): VideoSummary {
  const length = input.length ?? "medium";
  const target = lengthTargets[length];
  const utterances = buildUtterances(input.segments);
  const base = { videoId: input.video.id, title: input.video.title, length, chapters: [...input.chapters], madeBy: "lite", warnings: [] as Warning[] };
  if (utterances.length === 0) return { ...base, text: nothingToSummarize(input.video), sentences: [] };
  const chapters: Chapter[] = input.chapters.length > 0
    ? [...input.chapters]
    : [{ index: 0, startSecond: 0, endSecond: input.video.durationSeconds, title: input.video.title, summary: "", text: "", madeBy: "lite" }];
  const spans = chapters.map((chapter, position) =>
    utterances.filter((utterance) => utterance.startSecond >= (position === 0 ? -Infinity : chapter.startSecond) && (position === chapters.length - 1 || utterance.startSecond < chapter.endSecond)),
  );
  const counts = spans.map((span) => termCounts(span.flatMap((utterance) => utterance.stems)));
  const frequency = new Map<string, number>();
  for (const chapterCounts of counts) for (const stem of chapterCounts.keys()) frequency.set(stem, (frequency.get(stem) ?? 0) + 1);
  const weights = counts.map((chapterCounts) => tfIdf(chapterCounts, frequency, spans.length));

  // Every chapter's central utterance first (a short summary keeps the biggest chapters), then more from each in turn
  // while the summary is shorter than its target.
  const chosen: { utterance: Utterance; chapterIndex: number; terms: Map<string, number> }[] = [];
  let words = 0;
  const take = (utterance: Utterance, chapterIndex: number): void => {
    chosen.push({ utterance, chapterIndex, terms: termCounts(utterance.stems) });
    words += utterance.words;
  };
  const firsts = spans
    .map((span, index) => ({ index, utterance: centralUtterance(span, weights[index] as Map<string, number>), size: span.reduce((sum, utterance) => sum + utterance.words, 0) }))
    .filter((entry): entry is { index: number; utterance: Utterance; size: number } => entry.utterance !== undefined);
  const minimumChapters = length === "short" ? 3 : firsts.length;
  for (const entry of [...firsts].sort((a, b) => b.size - a.size)) {
    if (chosen.length >= minimumChapters && words >= target.words) break;
    take(entry.utterance, entry.index);
  }
  const ranked = spans.map((span, index) =>
    span
      .filter((utterance) => utterance.words >= 5)
      .map((utterance) => ({ utterance, score: cosine(termCounts(utterance.stems), weights[index] as Map<string, number>) }))
      .sort((a, b) => b.score - a.score),
  );
  for (let round = 1; round < target.perChapter && words < target.words; round++) {
    for (const [index, list] of ranked.entries()) {
      if (words >= target.words) break;
      const next = list.find(
        ({ utterance }) =>
          !chosen.some((entry) => entry.utterance === utterance) &&
          chosen.every((entry) => cosine(termCounts(utterance.stems), entry.terms) < redundantSimilarity),
      );
      if (next) take(next.utterance, index);
    }
  }
  chosen.sort((a, b) => a.utterance.startSecond - b.utterance.startSecond);
  const sentences = chosen.map(({ utterance, chapterIndex }) => ({
    text: utterance.text,
    chapterIndex,
    citations: [citationOf(input.video, utterance.startSecond, utterance.endSecond, utterance.text)],
  }));
  return { ...base, text: summaryText(input.video, sentences), sentences };
}

export function citationOf(video: Video, startSecond: number, endSecond: number, quote: string): Citation {
  return { videoId: video.id, path: video.path, title: video.title, startSecond, endSecond, quote, score: 1, timesEstimated: video.timesEstimated };
}

/** The sentences one a line, each with its citation as answers print them. */
function summaryText(video: Video, sentences: readonly SummarySentence[]): string {
  return sentences
    .map((sentence) => `${sentence.text.replace(/\s+/g, " ").trim()} ${sentence.citations.map((citation) => formatCitation(citation, video.timesEstimated)).join(" ")}`)
    .join("\n");
}

/** What a summary says of a video with no text. */
export function nothingToSummarize(video: Video): string {
  return `There is nothing to summarize in ${video.title}: no subtitles, speech or screen text is indexed.`;
}
