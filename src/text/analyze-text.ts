// Words of a text as every layer reads them: the store's tokenizer splits the same way, the question analysis drops the
// same function words, and one stem key (Porter, as FTS5's tokenizer) matches inflections alike everywhere.

import { stemmer } from "stemmer";
import { indexedText } from "./indexed-text.js";
import { englishStopwords, minimumContentTerms, questionWords } from "./stopwords.js";

/**
 * Lowercase words (letters and digits), apostrophes splitting them as the store's tokenizer does ("car's" → car, s);
 * runs of Chinese, Japanese or Korean characters as their overlapping pairs, as the store indexes them (indexed-text.ts).
 */
export function tokenize(text: string): string[] {
  return indexedText(text.normalize("NFKC").toLowerCase()).match(/[\p{L}\p{N}]+/gu) ?? [];
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

/**
 * An inflection-insensitive key for matching words inside retrieved text (replacing/replaced/replace → replac): the
 * Porter stemmer, the same algorithm as the store's FTS5 tokenizer, so a sentence matches where its clip matched.
 */
export function termKey(word: string): string {
  return stemmer(word.toLowerCase());
}
