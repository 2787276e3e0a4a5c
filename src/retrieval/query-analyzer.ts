// Turns a question into weighted search terms: lowercase words, no stopwords, no question framing. Stemming is left to
// the store's tokenizer (FTS5 porter), so the terms stay words a person would recognise.

import { stemmer } from "stemmer";
import { englishStopwords, minimumContentTerms, questionWords } from "../text/index.js";

/** A question analysed for lexical search. */
export interface AnalyzedQuery {
  /** Distinct content words, each weighted by how often the question says it. */
  terms: { text: string; weight: number }[];
  /** Quoted phrases ("disc brake"), matched as consecutive words. */
  phrases: string[];
}

/** Lowercase words (letters and digits), apostrophes splitting them as the store's tokenizer does ("car's" → car, s). */
export function tokenize(text: string): string[] {
  return text.normalize("NFKC").toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Single letters carry no meaning once split off ("car's" → "s"); single digits can ("3 eggs"). */
const isWord = (token: string): boolean => token.length > 1 || /\p{N}/u.test(token);

/**
 * The content words of a text, in order with repeats: function words dropped always, question framing dropped when
 * enough other words remain.
 */
export function analyzeText(text: string): string[] {
  const words = tokenize(text).filter((token) => isWord(token) && !englishStopwords.has(token));
  const content = words.filter((word) => !questionWords.has(word));
  return new Set(content).size >= minimumContentTerms ? content : words;
}

export function analyzeQuery(question: string): AnalyzedQuery {
  const weights = new Map<string, number>();
  for (const word of analyzeText(question)) weights.set(word, (weights.get(word) ?? 0) + 1);
  const phrases = [...question.matchAll(/["“”]([^"“”]+)["“”]/g)]
    .map((match) => tokenize(match[1] ?? "").join(" "))
    .filter((phrase) => phrase.includes(" "));
  return { terms: [...weights].map(([text, weight]) => ({ text, weight })), phrases };
}

/**
 * An inflection-insensitive key for matching words inside retrieved text (replacing/replaced/replace → replac): the
 * Porter stemmer, the same algorithm as the store's FTS5 tokenizer, so a sentence matches where its clip matched.
 */
export function termKey(word: string): string {
  return stemmer(word.toLowerCase());
}
