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

/** A matcher of words against a few keys (see `keyMatcher`). */
export interface KeyMatcher {
  (word: string): string | undefined;
  /** Flags by ASCII code: the first letters of the wanted keys, where a key begins with its word's first letter (English). */
  readonly asciiInitials?: Uint8Array;
}

/**
 * A matcher of words against a few keys: the key of a word (as `keyOf` keys it) when it is one of `wanted`, else
 * undefined. With `termKey` (English) a word whose first letter begins no wanted key is not stemmed at all: a Porter
 * stem keeps its word's first letter (true of all 44,086 distinct words of 3,000 how-to transcripts), and a question
 * looks for a handful of keys in thousands of words. Words as `tokenize` gives them (lowercase).
 */
export function keyMatcher(wanted: ReadonlySet<string>, keyOf: (word: string) => string): KeyMatcher {
  const initials = keyOf === termKey ? new Set([...wanted].map((key) => key[0])) : undefined;
  const match = (word: string): string | undefined => {
    if (initials && !initials.has(word[0])) return undefined;
    const key = keyOf(word);
    return wanted.has(key) ? key : undefined;
  };
  if (!initials) return match;
  const asciiInitials = new Uint8Array(128);
  for (const initial of initials) if (initial !== undefined && initial.charCodeAt(0) < 128) asciiInitials[initial.charCodeAt(0)] = 1;
  return Object.assign(match, { asciiInitials });
}

/** Any character outside ASCII. */
const nonAscii = /[\u0080-\uffff]/;

/** Flags by ASCII code: the letters and digits, which make up the words of ASCII text. */
const asciiWordCodes = new Uint8Array(128).map((_, code) => Number(/[A-Za-z0-9]/.test(String.fromCharCode(code))));

/**
 * Calls `visit` with each word of `text` that `match` keys, and its key, in order, the words as `tokenize` gives them.
 * ASCII text (most transcripts) is read in place where the matcher knows its keys' first letters: a word that begins
 * with none of them is passed over without being cut out, lowercased or kept, where `tokenize` built every word of the
 * text (a hybrid search tokenized some 9,000 words of its hits and graph clips, a sixth of what it allocated).
 */
export function eachMatch(text: string, match: KeyMatcher, visit: (word: string, key: string) => void): void {
  const initials = match.asciiInitials;
  if (initials === undefined || nonAscii.test(text)) {
    for (const word of tokenize(text)) {
      const key = match(word);
      if (key !== undefined) visit(word, key);
    }
    return;
  }
  const { length } = text;
  let at = 0;
  while (at < length) {
    const code = text.charCodeAt(at);
    if (asciiWordCodes[code] === 0) {
      at += 1;
      continue;
    }
    const start = at;
    do at += 1;
    while (at < length && asciiWordCodes[text.charCodeAt(at)] === 1);
    // Lowercase: an upper-case letter's code with the 32 bit set.
    if (initials[code >= 65 && code <= 90 ? code | 32 : code] === 0) continue;
    const word = text.slice(start, at).toLowerCase();
    const key = match(word);
    if (key !== undefined) visit(word, key);
  }
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
