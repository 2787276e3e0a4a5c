// The answer without any model: sentences chosen from the best moments for the question, in the video's own order, each
// cited. A sentence earns its place by carrying the question's rarer words (and, where weighted, by being central to the
// stretch of video around it), loses it by repeating what is already chosen, and sentences are added until the answer is
// about as long as a person's answer to such a question.

import type { Answer, Citation, Hit, Segment, Warning } from "../spec/index.js";
import { cosine } from "../summary/index.js";
import { formatCitation } from "../text/citation-format.js";

/** How sentences are chosen; the defaults were cross-validated on the how-to dev questions (`npm run bench lite`). */
export interface ExtractiveSettings {
  /** Words the answer grows to: sentences are added while it is shorter. */
  targetWords: number;
  /** Weight of a sentence's centrality in its passage against its coverage of the question's terms. */
  centralityWeight: number;
  /** Penalty for a sentence's similarity to the most similar sentence already chosen. */
  redundancyWeight: number;
  /** How fast sentences of later moments lose to those of earlier ones: a score is divided by 1 + rank × this. */
  momentDiscount: number;
  /** Share of the question's weighted terms a sentence must carry to be quoted at all. */
  minimumCoverage: number;
}

export const defaultExtractiveSettings: ExtractiveSettings = {
  targetWords: 20,
  // Neither centrality nor a redundancy penalty raised ROUGE-L on held-out folds (exact repeats are dropped anyway).
  centralityWeight: 0,
  redundancyWeight: 0,
  momentDiscount: 0.15,
  minimumCoverage: 0.1,
};

export interface ExtractiveInput {
  question: string;
  /** Moments ranked best first. */
  moments: Hit[];
  /** The time-coded sentences inside a moment. */
  sentencesOf: (moment: Hit) => Segment[];
  /** The question's content terms, normalised the way the sentences' terms are. */
  analyze: (text: string) => string[];
  /** How informative a term is (e.g. its idf); rarer words decide relevance. */
  termWeight: (term: string) => number;
  /** True when the moment's times were estimated from a transcript without timestamps. */
  timesEstimated: (videoId: string) => boolean;
  /** At most this many sentences, whatever their length. */
  maxSentences?: number;
  /** The name (or label) a segment's speaker is shown by; citations carry no speaker when absent. */
  speakerOf?: (videoId: string, label: string) => string | undefined;
  settings?: Partial<ExtractiveSettings>;
}

interface Candidate {
  moment: Hit;
  momentRank: number;
  segment: Segment;
  words: number;
  /** Term counts of the sentence's content words. */
  terms: Map<string, number>;
  coverage: number;
  centrality: number;
  score: number;
}

/** The answer when retrieval found no moment at all; the model-written answer says the same without calling a model. */
export const noMatchingMomentsText = "Nothing in the library matches this question.";

/** Sentences quoted at most, whatever the length target. */
const defaultMaxSentences = 12;

const counts = (terms: string[]): Map<string, number> => {
  const found = new Map<string, number>();
  for (const term of terms) found.set(term, (found.get(term) ?? 0) + 1);
  return found;
};

/** Cosine similarity of two term-count vectors, 0..1 (summary/'s, which chapters and summaries use too). */
export const termCosine = cosine;

/**
 * Each sentence's similarity to the rest of its video's passage (the sentences read around the video's moments):
 * a sentence that shares the passage's recurring words says what the passage is about.
 */
function scoreCentrality(candidates: Candidate[]): void {
  const byVideo = new Map<string, Candidate[]>();
  for (const candidate of candidates) byVideo.set(candidate.moment.videoId, [...(byVideo.get(candidate.moment.videoId) ?? []), candidate]);
  for (const passage of byVideo.values()) {
    const total = new Map<string, number>();
    for (const candidate of passage) for (const [term, count] of candidate.terms) total.set(term, (total.get(term) ?? 0) + count);
    for (const candidate of passage) {
      const rest = new Map(total);
      for (const [term, count] of candidate.terms) rest.set(term, (rest.get(term) ?? 0) - count);
      candidate.centrality = termCosine(candidate.terms, rest);
    }
  }
}

/** A sentence's words, for telling whether one line says another. */
const wordsKey = (text: string): string => ` ${(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).join(" ")} `;

/** Which channel says a thing best when two say it: speech and subtitles, then the screen, then captions. */
const channelRank = (source: Segment["source"]): number => (source === "screen" ? 1 : source === "caption" || source === "visual" ? 2 : 0);

/**
 * Candidates without the lines another channel of the same video already says: a slide's "Why not pgvector?" inside the
 * subtitle that reads it out, a template caption quoting the slide ('On screen: "Why not pgvector?"'). The answer says
 * each thing once, in the words spoken where they were.
 */
function withoutRepeatedScreenText(candidates: Candidate[]): Candidate[] {
  const keyOf = (candidate: Candidate): string =>
    wordsKey(channelRank(candidate.segment.source) === 2 ? candidate.segment.text.replace(/^\s*on screen:\s*/i, "") : candidate.segment.text);
  const keys = new Map(candidates.map((candidate) => [candidate, keyOf(candidate)]));
  return candidates.filter((candidate) => {
    const rank = channelRank(candidate.segment.source);
    if (rank === 0) return true;
    const key = keys.get(candidate) as string;
    return !candidates.some(
      (other) => other !== candidate && channelRank(other.segment.source) < rank && other.moment.videoId === candidate.moment.videoId && (keys.get(other) as string).includes(key),
    );
  });
}

/** Picks sentences greedily by score less redundancy with those chosen, until the answer reaches its length. */
function selectSentences(candidates: Candidate[], settings: ExtractiveSettings, maxSentences: number): Candidate[] {
  const chosen: Candidate[] = [];
  const left = new Set(candidates);
  let words = 0;
  while (left.size > 0 && chosen.length < maxSentences && words < settings.targetWords) {
    let best: Candidate | undefined;
    let bestValue = -Infinity;
    for (const candidate of left) {
      const redundancy = settings.redundancyWeight > 0 ? Math.max(0, ...chosen.map((other) => termCosine(candidate.terms, other.terms))) : 0;
      const value = candidate.score - settings.redundancyWeight * redundancy;
      if (value > bestValue) [best, bestValue] = [candidate, value];
    }
    if (!best) break;
    left.delete(best);
    chosen.push(best);
    words += best.words;
  }
  return chosen;
}

export function extractiveAnswer(input: ExtractiveInput): Omit<Answer, "profile" | "timings"> {
  const settings = { ...defaultExtractiveSettings, ...input.settings };
  const maxSentences = input.maxSentences ?? defaultMaxSentences;
  const warnings: Warning[] = [];
  const questionTerms = [...new Set(input.analyze(input.question))];
  const weights = new Map(questionTerms.map((term) => [term, input.termWeight(term)]));
  const totalWeight = [...weights.values()].reduce((sum, weight) => sum + weight, 0);
  if (questionTerms.length === 0 || totalWeight === 0) {
    return { text: "The question has no words to look for; ask about something said or shown in the videos.", citations: [], warnings };
  }

  // One candidate per sentence, from the best moment that reads it (moments of one video may overlap); a sentence said
  // twice is quoted once.
  const candidates: Candidate[] = [];
  const seen = new Set<string>();
  input.moments.forEach((moment, momentRank) => {
    for (const segment of input.sentencesOf(moment)) {
      const key = segment.text.replace(/\s+/g, " ").trim().toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      const terms = counts(input.analyze(segment.text));
      let matched = 0;
      for (const [term, weight] of weights) if (terms.has(term)) matched += weight;
      const words = segment.text.split(/\s+/).filter(Boolean).length;
      candidates.push({ moment, momentRank, segment, words, terms, coverage: matched / totalWeight, centrality: 0, score: 0 });
    }
  });
  if (settings.centralityWeight > 0) scoreCentrality(candidates);
  const quotable = withoutRepeatedScreenText(candidates).filter((candidate) => candidate.coverage >= settings.minimumCoverage);
  if (quotable.length === 0) {
    const text = input.moments.length === 0
      ? noMatchingMomentsText
      : "Nothing in the library answers this question: the closest moments share only a few of its words.";
    return { text, citations: [], warnings };
  }
  for (const candidate of quotable) {
    candidate.score = (candidate.coverage + settings.centralityWeight * candidate.centrality) / (1 + candidate.momentRank * settings.momentDiscount);
  }
  const chosen = selectSentences(quotable, settings, maxSentences);
  // Read in the video's own order: video by video as first ranked, then by time inside each.
  const videoOrder = new Map<string, number>();
  for (const candidate of [...chosen].sort((a, b) => a.momentRank - b.momentRank)) {
    if (!videoOrder.has(candidate.moment.videoId)) videoOrder.set(candidate.moment.videoId, videoOrder.size);
  }
  chosen.sort((a, b) => (videoOrder.get(a.moment.videoId) ?? 0) - (videoOrder.get(b.moment.videoId) ?? 0) || a.segment.startSecond - b.segment.startSecond);

  const citations: Citation[] = chosen.map((candidate) => ({
    videoId: candidate.moment.videoId,
    path: candidate.moment.path,
    title: candidate.moment.title,
    startSecond: candidate.segment.startSecond,
    endSecond: candidate.segment.endSecond,
    quote: candidate.segment.text,
    score: Number(candidate.score.toFixed(4)),
    timesEstimated: input.timesEstimated(candidate.moment.videoId),
    ...withSpeaker(candidate.segment.speaker && input.speakerOf ? input.speakerOf(candidate.moment.videoId, candidate.segment.speaker) : undefined),
  }));
  const text = citations
    .map((citation) => `${citation.quote.replace(/\s+/g, " ").trim()} ${formatCitation(citation, citation.timesEstimated)}`)
    .join("\n");
  return { text, citations, warnings };
}

const withSpeaker = (speaker: string | undefined): { speaker?: string } => (speaker ? { speaker } : {});
