// The answer to "how to …" without a language model: the best video's utterances that carry the question's words and
// say what the video is mostly about, near-repeats left out, read in the video's order as numbered steps, about as long
// as people write such answers (the human answers of the how-to questions run ~90 words).

import type { Chapter, Citation, Video } from "../spec/index.js";
import { cosine, termCounts, type Utterance } from "../summary/index.js";
import { formatCitation } from "../text/citation-format.js";

/** How steps are chosen; cross-validated on the human how-to questions (`npm run bench summaries -- --only human`). */
export interface StepSettings {
  /** Words the answer grows to. */
  targetWords: number;
  /** Weight of an utterance's similarity to its whole video, against its share of the question's words. */
  centralityWeight: number;
  /** Videos the steps are drawn from, the best first. */
  videos: number;
  /** Utterances shorter than this are not steps. */
  minimumWords: number;
  /** Steps come from the chapter that holds most of the question's words, or from the whole video. */
  span: "chapter" | "video";
}

export const defaultStepSettings: StepSettings = { targetWords: 90, centralityWeight: 1, videos: 1, minimumWords: 6, span: "chapter" };

/** An utterance this similar to a chosen one repeats it. */
const redundantSimilarity = 0.5;

export interface StepInput {
  /** Candidate videos, best first, with their utterances and chapters. */
  videos: { video: Video; utterances: Utterance[]; chapters: readonly Chapter[] }[];
  /** The question's content stems. */
  questionStems: string[];
  /** How informative a stem is (its idf in the library). */
  stemWeight: (stem: string) => number;
  settings?: Partial<StepSettings>;
}

export function stepAnswer(input: StepInput): { text: string; citations: Citation[] } {
  const settings = { ...defaultStepSettings, ...input.settings };
  const wanted = [...new Set(input.questionStems)];
  const total = wanted.reduce((sum, stem) => sum + input.stemWeight(stem), 0) || 1;
  const coverageOf = (terms: ReadonlyMap<string, number>): number => wanted.reduce((sum, stem) => sum + (terms.has(stem) ? input.stemWeight(stem) : 0), 0) / total;
  const candidates = input.videos.slice(0, settings.videos).flatMap(({ video, utterances: all, chapters }, rank) => {
    const utterances = settings.span === "chapter" ? bestChapter(all, chapters, coverageOf) : all;
    const whole = termCounts(utterances.flatMap((utterance) => utterance.stems));
    return utterances
      .filter((utterance) => utterance.words >= settings.minimumWords)
      .map((utterance) => {
        const terms = termCounts(utterance.stems);
        const coverage = coverageOf(terms);
        return { video, rank, utterance, terms, score: (coverage + settings.centralityWeight * cosine(terms, whole)) / (1 + rank) };
      });
  });
  candidates.sort((a, b) => b.score - a.score);
  const chosen: typeof candidates = [];
  let words = 0;
  for (const candidate of candidates) {
    if (words >= settings.targetWords) break;
    if (chosen.some((other) => cosine(other.terms, candidate.terms) >= redundantSimilarity)) continue;
    chosen.push(candidate);
    words += candidate.utterance.words;
  }
  chosen.sort((a, b) => a.rank - b.rank || a.utterance.startSecond - b.utterance.startSecond);
  const citations: Citation[] = chosen.map(({ video, utterance, score }) => ({
    videoId: video.id,
    path: video.path,
    title: video.title,
    startSecond: utterance.startSecond,
    endSecond: utterance.endSecond,
    quote: utterance.text,
    score: Number(score.toFixed(4)),
    timesEstimated: video.timesEstimated,
  }));
  const text = citations.map((citation, index) => `${index + 1}. ${sentenceCase(citation.quote)} ${formatCitation(citation, citation.timesEstimated)}`).join("\n");
  return { text, citations };
}

/** The utterances of the chapter whose words cover most of the question (all of them when there is one chapter). */
function bestChapter(utterances: Utterance[], chapters: readonly Chapter[], coverageOf: (terms: ReadonlyMap<string, number>) => number): Utterance[] {
  if (chapters.length < 2) return utterances;
  let best = utterances;
  let bestCoverage = -1;
  for (const [position, chapter] of chapters.entries()) {
    const inside = utterances.filter(
      (utterance) => (position === 0 || utterance.startSecond >= chapter.startSecond) && (position === chapters.length - 1 || utterance.startSecond < chapter.endSecond),
    );
    const coverage = coverageOf(termCounts(inside.flatMap((utterance) => utterance.stems)));
    if (inside.length > 0 && coverage > bestCoverage) [best, bestCoverage] = [inside, coverage];
  }
  return best;
}

function sentenceCase(text: string): string {
  const clean = text.replace(/\s+/g, " ").trim();
  return clean.charAt(0).toUpperCase() + clean.slice(1);
}
