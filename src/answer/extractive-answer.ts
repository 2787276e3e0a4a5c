// The answer without any model: the sentences of the best moments that answer the question, in order, each cited.

import type { Answer, Citation, Hit, Segment, Warning } from "../spec/index.js";
import { formatCitation } from "./citation-format.js";

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
  maxSentences?: number;
}

interface Candidate {
  moment: Hit;
  momentRank: number;
  segment: Segment;
  coverage: number;
  score: number;
}

/** The answer when retrieval found no moment at all; the model-written answer says the same without calling a model. */
export const noMatchingMomentsText = "Nothing in the library matches this question.";

/** Share of the question's weighted terms a sentence must carry to be quoted; below it, it is padding. */
const minimumCoverage = 0.25;

export function extractiveAnswer(input: ExtractiveInput): Omit<Answer, "profile" | "timings"> {
  const maxSentences = input.maxSentences ?? 5;
  const warnings: Warning[] = [];
  const questionTerms = [...new Set(input.analyze(input.question))];
  const weights = new Map(questionTerms.map((term) => [term, input.termWeight(term)]));
  const totalWeight = [...weights.values()].reduce((sum, weight) => sum + weight, 0);
  if (questionTerms.length === 0 || totalWeight === 0) {
    return { text: "The question has no words to look for; ask about something said or shown in the videos.", citations: [], warnings };
  }

  const candidates: Candidate[] = [];
  input.moments.forEach((moment, momentRank) => {
    for (const segment of input.sentencesOf(moment)) {
      const terms = new Set(input.analyze(segment.text));
      let matched = 0;
      for (const [term, weight] of weights) if (terms.has(term)) matched += weight;
      const coverage = matched / totalWeight;
      if (coverage < minimumCoverage) continue;
      // Prefer sentences from better moments, and short sentences that say it over long ones that mention it.
      const brevity = 1 / (1 + Math.max(0, terms.size - 25) / 25);
      candidates.push({ moment, momentRank, segment, coverage, score: coverage * brevity / (1 + momentRank * 0.15) });
    }
  });
  if (candidates.length === 0) {
    const text = input.moments.length === 0
      ? noMatchingMomentsText
      : "Nothing in the library answers this question: the closest moments share only a few of its words.";
    return { text, citations: [], warnings };
  }

  const chosen: Candidate[] = [];
  const seenText = new Set<string>();
  for (const candidate of candidates.sort((a, b) => b.score - a.score)) {
    const key = candidate.segment.text.toLowerCase().trim();
    if (seenText.has(key)) continue;
    seenText.add(key);
    chosen.push(candidate);
    if (chosen.length >= maxSentences) break;
  }
  // Read in story order: by the moment's rank (video by video), then by time inside it.
  chosen.sort((a, b) => a.momentRank - b.momentRank || a.segment.startSecond - b.segment.startSecond);

  const citations: Citation[] = chosen.map((candidate) => ({
    videoId: candidate.moment.videoId,
    path: candidate.moment.path,
    title: candidate.moment.title,
    startSecond: candidate.segment.startSecond,
    endSecond: candidate.segment.endSecond,
    quote: candidate.segment.text,
    score: Number(candidate.score.toFixed(4)),
    timesEstimated: input.timesEstimated(candidate.moment.videoId),
  }));
  const text = citations
    .map((citation) => `${citation.quote.replace(/\s+/g, " ").trim()} ${formatCitation(citation, citation.timesEstimated)}`)
    .join("\n");
  return { text, citations, warnings };
}
