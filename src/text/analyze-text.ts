// Words of a text as every layer reads them: the store's tokenizer splits the same way, the question analysis drops the
// same function words (a language's own where it is not English), and one stem key (Porter, as FTS5's tokenizer)
// matches inflections alike everywhere.

import { stemmer } from "stemmer";
import { foldDiacritics } from "./fold-diacritics.js";
import { cjkPairs, hasSpaceless, spacelessScripts, spacelessWords } from "./indexed-text.js";
import { englishStopwords, minimumContentTerms, questionWords, stopwordsFor } from "./stopwords.js";
import { stemmerFor } from "./word-stems.js";

/** Letters and digits, and the vowel and tone marks of Thai, Lao, Khmer and Burmese, which the index keeps in a word. */
const spacelessWord = new RegExp(`(?:[\\p{L}\\p{N}]|(?=[\\p{Mn}\\p{Mc}])[${spacelessScripts}])+`, "gu");
/** Text outside runs of Thai, Lao, Khmer and Burmese. */
const outsideSpaceless = new RegExp(`[^${spacelessScripts}]+`, "gu");

/**
 * Lowercase words (letters and digits), apostrophes splitting them as the store's tokenizer does ("car's" → car, s);
 * runs of Chinese, Japanese or Korean characters as their overlapping pairs, and runs of Thai, Lao, Khmer or Burmese
 * as their words, as the store indexes them (indexed-text.ts). Compatibility forms are unified (NFKC) except in those
 * four scripts, which the index keeps as written: NFKC splits Thai "ำ" in two, and the segmenter then misreads "ทำ".
 */
export function tokenize(text: string): string[] {
  if (!hasSpaceless(text)) return cjkPairs(text.normalize("NFKC").toLowerCase()).match(/[\p{L}\p{N}]+/gu) ?? [];
  const unified = text.replace(outsideSpaceless, (part) => part.normalize("NFKC"));
  return spacelessWords(cjkPairs(unified.toLowerCase())).match(spacelessWord) ?? [];
}

/** Single letters carry no meaning once split off ("car's" → "s"); single digits can ("3 eggs"). */
const isWord = (token: string): boolean => token.length > 1 || /\p{N}/u.test(token);

/**
 * The content words of a text, in order with repeats. English (and text of no known `language`, ISO 639-1): function
 * words dropped always, question framing dropped when enough other words remain. Another language: its stop words
 * (stopwords-iso) dropped only while `minimumContentTerms` other words remain, since its list is long and holds nouns
 * too ("Wann kommt der Mann?" keeps every word rather than one; on the languages bench, dropping them down to one word
 * cost a fifth of German, French and Spanish four-word stretches their first place); English's framing words are not
 * looked for.
 */
export function analyzeText(text: string, language?: string): string[] {
  if (language !== undefined && language !== "en") {
    const words = tokenize(text).filter(isWord);
    const stopwords = stopwordsFor(language);
    const content = stopwords ? words.filter((word) => !stopwords.has(word)) : words;
    return new Set(content).size >= minimumContentTerms ? content : words;
  }
  const words = tokenize(text).filter((token) => isWord(token) && !englishStopwords.has(token));
  const content = words.filter((word) => !questionWords.has(word));
  return new Set(content).size >= minimumContentTerms ? content : words;
}

/**
 * An inflection-insensitive key for matching words inside retrieved text (replacing/replaced/replace → replac): the
 * Porter stemmer, the same algorithm as the store's FTS5 tokenizer, so a sentence matches where its clip matched.
 */
export function termKey(word: string): string {
  // Words come lowercase from `tokenize`; the map's words are all lowercase, so a word found as given is one.
  const known = termKeys.get(word);
  if (known !== undefined) return known;
  const lower = word.toLowerCase();
  let key = termKeys.get(lower);
  if (key === undefined) {
    // A question matches its words against the text of dozens of clips: the same few thousand words, each stemmed once.
    if (termKeys.size >= maxTermKeys) termKeys.clear();
    key = stemmer(lower);
    termKeys.set(lower, key);
  }
  return key;
}

/** Porter stems by lowercase word, as `termKey` gives them (a pure function of the word, so never stale). */
const termKeys = new Map<string, string>();
const maxTermKeys = 200_000;

/**
 * A matcher of words against a few keys: the key of a word (as `keyOf` keys it) when it is one of `wanted`, else
 * undefined. With `termKey` (English) a word whose first letter begins no wanted key is not stemmed at all: a Porter
 * stem keeps its word's first letter (true of all 44,086 distinct words of 3,000 how-to transcripts), and a question
 * looks for a handful of keys in thousands of words. Words as `tokenize` gives them (lowercase).
 */
export function keyMatcher(wanted: ReadonlySet<string>, keyOf: (word: string) => string): (word: string) => string | undefined {
  const initials = keyOf === termKey ? new Set([...wanted].map((key) => key[0])) : undefined;
  return (word) => {
    if (initials && !initials.has(word[0])) return undefined;
    const key = keyOf(word);
    return wanted.has(key) ? key : undefined;
  };
}

/**
 * `termKey` for words of `language` (ISO 639-1): English and no language, `termKey` itself; another, the word's
 * Snowball stem folded as the index folds it (indexed-text.ts), so "cafe" meets "café" and "Häuser" meets "Haus" where
 * the store matched them. A factory, so `words.map(termKeyFor(language))` reads as `words.map(termKey)` does.
 */
export function termKeyFor(language: string | undefined): (word: string) => string {
  if (language === undefined || language === "en") return termKey;
  const stem = stemmerFor(language);
  return (word) => {
    const lower = word.toLowerCase();
    return foldDiacritics(stem ? stem(lower) : lower, language);
  };
}
