// The answer to "how to …" without a language model: the best video's utterances that carry the question's words and
// say what the video (or its chapter about the question) is mostly about, near-repeats, fillers, the welcome and the
// sign-off left out, read in the video's order as steps, about as long as people write such answers (the human answers
// of the how-to questions run ~90 words).

import type { Chapter, Citation, Segment, Video } from "../spec/index.js";
import { buildUtterances, cosine, termCounts, type Utterance } from "../summary/index.js";
import { formatCitation } from "../text/citation-format.js";
import { cleanSpoken } from "../text/index.js";

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
  /**
   * Where in a video steps come from: the chapter that holds most of the question's words, every chapter holding at
   * least half as much of them as that one (a talk's other topics left out), or the whole video.
   */
  span: "chapter" | "relevant-chapters" | "video";
  /** Longest step, in words, where the transcript has no punctuation to end it. */
  unitWords: number;
  /** The share of a video at each end (welcome, sign-off) no step is taken from. */
  edgeShare: number;
  /** Steps as a numbered list, or as one paragraph joined by "First", "Then", "Next", "Finally". */
  format: "numbered" | "connected";
}

/**
 * Chosen on the 267 human how-to questions, 5 folds by source video (`npm run bench summaries -- --only human`): every
 * fold chose 70 words, centrality 1, 15-word steps and the connected form; three of five chose three videos. Held out:
 * ROUGE-L 18.5 ± 0.35 against 12.2 for the fact answer shipped before.
 */
export const defaultStepSettings: StepSettings = { targetWords: 70, centralityWeight: 1, videos: 3, minimumWords: 6, span: "relevant-chapters", unitWords: 15, edgeShare: 0, format: "connected" };

/** An utterance this similar to a chosen one repeats it. */
const redundantSimilarity = 0.5;

export interface StepInput {
  /** The question, whose task leads the answer ("To cite a poem in APA style:"). */
  question: string;
  /** Candidate videos, best first, with their text and chapters. */
  videos: { video: Video; segments: readonly Segment[]; chapters: readonly Chapter[] }[];
  /** The question's content stems. */
  questionStems: string[];
  /** How informative a stem is (its idf in the library). */
  stemWeight: (stem: string) => number;
  settings?: Partial<StepSettings>;
}

/** Utterances per segment list and step length: the same question's text is cut once however many settings try it. */
const cutText = new WeakMap<readonly Segment[], Map<number, Utterance[]>>();
function utterancesOf(segments: readonly Segment[], unitWords: number): Utterance[] {
  const bySize = cutText.get(segments) ?? new Map<number, Utterance[]>();
  cutText.set(segments, bySize);
  const known = bySize.get(unitWords);
  if (known) return known;
  const made = buildUtterances(segments, { minWords: Math.min(10, unitWords), maxWords: unitWords, pauseSeconds: 1.5 });
  bySize.set(unitWords, made);
  return made;
}

export function stepAnswer(input: StepInput): { text: string; citations: Citation[] } {
  const settings = { ...defaultStepSettings, ...input.settings };
  const wanted = [...new Set(input.questionStems)];
  const total = wanted.reduce((sum, stem) => sum + input.stemWeight(stem), 0) || 1;
  const coverageOf = (terms: ReadonlyMap<string, number>): number => wanted.reduce((sum, stem) => sum + (terms.has(stem) ? input.stemWeight(stem) : 0), 0) / total;
  const candidates = input.videos.slice(0, settings.videos).flatMap(({ video, segments, chapters }, rank) => {
    const all = utterancesOf(segments, settings.unitWords);
    const first = all[0]?.startSecond ?? 0;
    const last = all.at(-1)?.endSecond ?? 0;
    const edge = (last - first) * settings.edgeShare;
    const inner = all.filter((utterance) => utterance.startSecond >= first + edge && utterance.endSecond <= last - edge);
    const utterances = settings.span === "video" ? inner : chaptersAbout(inner, chapters, coverageOf, settings.span === "chapter" ? 1 : 0.5);
    const whole = termCounts(utterances.flatMap((utterance) => utterance.stems));
    return utterances
      .filter((utterance) => utterance.words >= settings.minimumWords)
      .map((utterance) => {
        const terms = termCounts(utterance.stems);
        return { video, rank, utterance, terms, score: (coverageOf(terms) + settings.centralityWeight * cosine(terms, whole)) / (1 + rank) };
      });
  });
  candidates.sort((a, b) => b.score - a.score);
  const chosen: typeof candidates = [];
  let words = 0;
  for (const candidate of candidates) {
    if (words >= settings.targetWords) break;
    // Past the length people write, a long step is left for a shorter one.
    if (chosen.length > 0 && words + candidate.utterance.words > settings.targetWords * 1.25) continue;
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
  const steps = citations.map((citation, index) => {
    const cited = formatCitation(citation, citation.timesEstimated);
    if (settings.format === "numbered") return `${index + 1}. ${cleanSpoken(citation.quote)} ${cited}`;
    const step = cleanSpoken(citation.quote);
    const connective = index === 0 ? "First, " : index === citations.length - 1 ? "Finally, " : index % 2 === 1 ? "Then " : "Next, ";
    // "Mix" reads on as "mix"; "APA", "I" and names keep their capitals.
    const first = step.split(" ")[0] ?? "";
    const lowered = /^[A-Z][a-z']+[,.]?$/.test(first) && first !== "I" && !first.startsWith("I'") ? `${step.charAt(0).toLowerCase()}${step.slice(1)}` : step;
    return `${connective}${lowered} ${cited}`;
  });
  if (steps.length === 0) return { text: "", citations };
  const task = taskOf(input.question);
  const lead = task ? `${task}:` : "";
  const text = settings.format === "numbered" ? [lead, ...steps].filter(Boolean).join("\n") : [lead, steps.join(" ")].filter(Boolean).join(" ");
  return { text, citations };
}

/** "How do I cite a poem in APA style?" → "To cite a poem in APA style"; undefined when it asks no task. */
export function taskOf(question: string): string | undefined {
  const match = /^\s*how\s+(?:to|do\s+(?:i|you|we|one)|can\s+(?:i|you|we|one)|should\s+(?:i|you|we|one)|would\s+(?:i|you|we|one))\s+(.+?)[\s?.!]*$/i.exec(question);
  const task = match?.[1]?.trim();
  return task ? `To ${task.replace(/\bmy\b/gi, "your").replace(/\bI\b/g, "you")}` : undefined;
}

/**
 * The utterances of the chapters whose words cover at least `share` of what the best chapter covers of the question
 * (all of them when there is one chapter).
 */
function chaptersAbout(utterances: Utterance[], chapters: readonly Chapter[], coverageOf: (terms: ReadonlyMap<string, number>) => number, share: number): Utterance[] {
  if (chapters.length < 2) return utterances;
  const parts = chapters.map((chapter, position) =>
    utterances.filter((utterance) => (position === 0 || utterance.startSecond >= chapter.startSecond) && (position === chapters.length - 1 || utterance.startSecond < chapter.endSecond)),
  );
  const coverage = parts.map((part) => coverageOf(termCounts(part.flatMap((utterance) => utterance.stems))));
  const best = Math.max(...coverage);
  if (best <= 0) return utterances;
  const kept = parts.filter((part, index) => part.length > 0 && (coverage[index] as number) >= best * share && (share < 1 || coverage[index] === best));
  return (share < 1 ? kept : kept.slice(0, 1)).flat();
}
