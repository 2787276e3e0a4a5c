// A video's summary. Lite: extractive, whole utterances chosen for how central they are to their chapter, every
// chapter covered in order, near-repeats left out, each cited. With a language model: map-reduce as NVIDIA's video
// summarization blueprint does it, a summary per chapter from its text, then the video's from the chapters', every
// claim keeping its citation (the chapter's moment), the last step streamed.

import type { Chapter, Citation, Segment, Video, Warning } from "../spec/index.js";
import { formatCitation } from "../text/citation-format.js";
import { cleanSpoken } from "../text/index.js";
import { centralUtterance, tfIdf } from "./build-chapters.js";
import { buildUtterances, cosine, ownLanguageSegments, termCounts, type Utterance } from "./utterances.js";

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
/** How a summary cuts speech into quotable lines. */
const summaryUnits = { minWords: 8, maxWords: 25, pauseSeconds: 1.5 };
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
  // Shorter units than segmentation reads: a summary quotes lines, and unpunctuated speech would give 40-word ones.
  const utterances = buildUtterances(ownLanguageSegments(input.segments, input.video.language), summaryUnits);
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

  // How many utterances the summary holds, and each chapter's share: every chapter one (the biggest first when a short
  // summary cannot hold all), the rest by size. A chapter's share is spread over it, the most central utterance of
  // each equal part, so the summary follows the chapter from its start to its end.
  const long = utterances.filter((utterance) => utterance.words >= 5);
  const meanWords = (long.length > 0 ? long : utterances).reduce((sum, utterance) => sum + utterance.words, 0) / Math.max(1, (long.length > 0 ? long : utterances).length);
  const budget = Math.max(1, Math.round(target.words / Math.max(1, meanWords)));
  const sizes = spans.map((span) => span.reduce((sum, utterance) => sum + utterance.words, 0));
  const quota = spans.map(() => 0);
  const bySize = sizes.map((size, index) => ({ size, index })).filter((entry) => entry.size > 0).sort((a, b) => b.size - a.size);
  for (const { index } of bySize.slice(0, length === "short" ? Math.min(budget, bySize.length) : bySize.length)) quota[index] = 1;
  const totalSize = sizes.reduce((sum, size) => sum + size, 0) || 1;
  let left = budget - quota.reduce((sum, share) => sum + share, 0);
  for (const { index, size } of bySize) {
    if (left <= 0) break;
    const extra = Math.min(target.perChapter - (quota[index] as number), Math.max(0, Math.round(((budget * size) / totalSize) - (quota[index] as number))), left);
    if (extra > 0) {
      quota[index] = (quota[index] as number) + extra;
      left -= extra;
    }
  }
  const chosen: { utterance: Utterance; chapterIndex: number; terms: Map<string, number> }[] = [];
  spans.forEach((span, index) => {
    const share = quota[index] as number;
    const chapterWeights = weights[index] as Map<string, number>;
    for (let part = 0; part < share; part++) {
      const from = Math.floor((part * span.length) / share);
      const to = Math.floor(((part + 1) * span.length) / share);
      const pick = centralUtterance(
        span.slice(from, to).filter((utterance) => chosen.every((entry) => cosine(termCounts(utterance.stems), entry.terms) < redundantSimilarity)),
        chapterWeights,
      );
      if (pick) chosen.push({ utterance: pick, chapterIndex: (chapters[index] as Chapter).index, terms: termCounts(pick.stems) });
    }
  });
  chosen.sort((a, b) => a.utterance.startSecond - b.utterance.startSecond);
  // The sentence reads as written text; its citation quotes the words as they were said.
  const sentences = chosen.map(({ utterance, chapterIndex }) => ({
    text: cleanSpoken(utterance.text),
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
    .map((sentence) => `${sentence.text} ${sentence.citations.map((citation) => formatCitation(citation, video.timesEstimated)).join(" ")}`)
    .join("\n");
}

/** What a summary says of a video with no text. */
export function nothingToSummarize(video: Video): string {
  return `There is nothing to summarize in ${video.title}: no subtitles, speech or screen text is indexed.`;
}
