// A video's summary written by a language model, map-reduce as NVIDIA's video summarization blueprint does it: each
// chapter summed up from its own text (pieces of it numbered as evidence, so its claims are cited), then the video's
// summary from the chapters' (each chapter numbered as evidence, so every claim keeps a citation), the last step streamed.

import type { Chapter, LanguageModel, Segment, Video, Warning } from "../spec/index.js";
import { buildUtterances, ownLanguageSegments, type SummaryLength, type SummarySentence, type VideoSummary } from "../summary/index.js";
import { stripCitations } from "../text/citation-format.js";
import type { Evidence } from "./evidence.js";
import { streamLlmAnswer } from "./llm-answer.js";

/** Pieces a chapter's text is cut into as evidence. */
const piecesPerChapter = 6;
const sentencesFor: Record<SummaryLength, { chapter: number; video: string }> = {
  short: { chapter: 1, video: "three to four sentences" },
  medium: { chapter: 2, video: "one paragraph of six to eight sentences" },
  long: { chapter: 3, video: "two to three paragraphs" },
};

export interface ModelSummaryInput {
  video: Video;
  chapters: readonly Chapter[];
  segments: readonly Segment[];
  length: SummaryLength;
  model: LanguageModel;
  onText?: (delta: string) => void;
  signal?: AbortSignal;
}

export async function summarizeWithModel(input: ModelSummaryInput): Promise<VideoSummary> {
  const { video, model, signal } = input;
  const want = sentencesFor[input.length];
  const utterances = buildUtterances(ownLanguageSegments(input.segments, input.video.language));
  const warnings: Warning[] = [];
  const evidenceOf = (startSecond: number, endSecond: number, text: string): Evidence => ({
    videoId: video.id,
    path: video.path,
    title: video.title,
    startSecond,
    endSecond,
    timesEstimated: video.timesEstimated,
    kind: "transcript",
    text,
  });
  // Map: each chapter from its own utterances.
  const chapterSummaries: { chapter: Chapter; text: string }[] = [];
  for (const chapter of input.chapters) {
    const inside = utterances.filter((utterance) => utterance.startSecond >= chapter.startSecond && utterance.startSecond < chapter.endSecond);
    if (inside.length === 0) continue;
    const size = Math.ceil(inside.length / piecesPerChapter);
    const evidence = Array.from({ length: Math.ceil(inside.length / size) }, (_, index) => inside.slice(index * size, (index + 1) * size)).map((piece) =>
      evidenceOf((piece[0] as (typeof inside)[number]).startSecond, (piece.at(-1) as (typeof inside)[number]).endSecond, piece.map((utterance) => utterance.text).join(" ")),
    );
    const written = await streamLlmAnswer({
      question: `Summarize this part of the video ("${chapter.title}") in at most ${want.chapter} sentence${want.chapter === 1 ? "" : "s"}.`,
      evidence,
      model,
      signal,
    });
    warnings.push(...written.warnings.filter((warning) => !warnings.some((known) => known.detail === warning.detail)));
    chapterSummaries.push({ chapter, text: stripCitations(written.text) });
  }
  // Reduce: the video from its chapters, streamed.
  const written = await streamLlmAnswer({
    question: `Summarize the whole video "${video.title}" in ${want.video}, in the order it goes.`,
    evidence: chapterSummaries.map(({ chapter, text }) => evidenceOf(chapter.startSecond, chapter.endSecond, `Chapter "${chapter.title}": ${text}`)),
    model,
    signal,
    onText: input.onText,
  });
  warnings.push(...written.warnings);
  const sentences: SummarySentence[] = written.citations.map((citation) => ({
    text: citation.quote,
    citations: [citation],
    chapterIndex: input.chapters.find((chapter) => chapter.startSecond === citation.startSecond)?.index ?? 0,
  }));
  return { videoId: video.id, title: video.title, length: input.length, text: written.text, sentences, chapters: [...input.chapters], madeBy: model.id, warnings };
}
