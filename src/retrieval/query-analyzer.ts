// Turns a question into weighted search terms: lowercase words, no stopwords, no question framing. Stemming is left to
// the store's tokenizer (FTS5 porter), so the terms stay words a person would recognise.

import { englishStopwords, minimumContentTerms, questionWords } from "./stopwords.js";

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
 * A light, inflection-insensitive key for matching words inside retrieved text (replacing/replaced/replace → replac),
 * used to pick the sentences to show; ranking itself uses the store's full stemmer.
 */
export function termKey(word: string): string {
  let key = word.toLowerCase();
  if (key.length <= 3) return key;
  if (key.endsWith("ies") && key.length > 4) key = `${key.slice(0, -3)}y`;
  else if (key.endsWith("sses")) key = key.slice(0, -2);
  else if (key.endsWith("s") && !/(ss|us|is)$/.test(key)) key = key.slice(0, -1);
  for (const suffix of ["ing", "ed"]) {
    if (key.endsWith(suffix) && key.length - suffix.length >= 3) {
      key = key.slice(0, -suffix.length);
      // cutting → cutt → cut
      if (/([^aeiouls])\1$/.test(key)) key = key.slice(0, -1);
      break;
    }
  }
  if (key.endsWith("e") && key.length > 3) key = key.slice(0, -1);
  return key;
}
