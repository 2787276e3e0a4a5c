// How the lite entity extractor reads a text's language. Its word lists, plural rules and verb cues (lite-words.ts) are
// English: they judge English text, and text of no known language, as before. Another language is read by its own stop
// words (stopwords-iso) alone; German (and Luxembourgish) capitalise every noun, so a capital there marks a noun, not a
// name; French and Italian elisions ("l'eau", "dell'acqua") are the word after the apostrophe; and scripts written
// without spaces (Chinese, Japanese, Thai, Lao, Khmer, Burmese) are cut into words by Intl.Segmenter, whatever the
// language given, since a run of them is otherwise one "word" the length of a sentence.

import { stopwordsFor } from "../text/index.js";
import type { WordInfo } from "./lite-words.js";

/** What the extractor knows about the language of the text it reads. */
export interface LiteLanguage {
  /** "en" for English and for text of no known language, which keep the English rules. */
  code: string;
  english: boolean;
  /** Every noun is capitalised (German): one capitalised word is a noun; a run of two or more is a name. */
  nounCapitals: boolean;
  stopwords: ReadonlySet<string>;
  /** Lowercase words allowed inside a name between capitalised ones ("Walther von der Vogelweide"). */
  connectors: ReadonlySet<string>;
  /** `wordInfo`'s memo for this language: the same spelling is a different word in another. */
  words: Map<string, WordInfo>;
}

const nounCapitalLanguages = new Set(["de", "lb"]);
/** Lowercase words allowed inside an English name between capitalised words ("Popeye the Sailor", "Bank of America"). */
const englishConnectors: ReadonlySet<string> = new Set(["of", "the", "de", "du", "da", "del", "la", "le", "van", "von"]);
/** Connectors of names in the languages of Europe, English's "of" and "the" aside. */
const otherConnectors: ReadonlySet<string> = new Set("de du des da do dos das del della di la le van von der den zu y e".split(" "));
const none: ReadonlySet<string> = new Set();
const languages = new Map<string, LiteLanguage>();

/** The rules for `language` (ISO 639-1); English's for English, none and a language of no stop list nor capitals rule. */
export function liteLanguage(language: string | undefined): LiteLanguage {
  const code = language && language !== "en" ? language : "en";
  let known = languages.get(code);
  if (!known) {
    const english = code === "en";
    known = {
      code,
      english,
      nounCapitals: nounCapitalLanguages.has(code),
      stopwords: stopwordsFor(english ? undefined : code) ?? none,
      connectors: english ? englishConnectors : otherConnectors,
      words: new Map(),
    };
    languages.set(code, known);
  }
  return known;
}

/** Forgets every language's memo (see `forgetWordsWhenFull`). */
export function forgetLanguageWords(): void {
  for (const language of languages.values()) language.words.clear();
}

/** Han, kana, Thai, Lao, Burmese, Khmer: scripts written without spaces between words. */
const unspacedScript = /[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\u{20000}-\u{2fa1f}]/u;

/** True when a word is written in a script without spaces between words. */
export const isUnspaced = (word: string): boolean => unspacedScript.test(word);

/** Hiragana alone (with the long-vowel mark): in Japanese, particles, endings and auxiliaries ("です", "ました"). */
export const onlyHiragana = (word: string): boolean => /^[\u3041-\u309f\u30fc]+$/u.test(word);

const segmenters = new Map<string, Intl.Segmenter>();

/** The segmenter for a run: the language's where it has one, else Japanese where there is kana, Thai, or Chinese. */
function segmenterFor(run: string, language: string): Intl.Segmenter {
  const locale = /^(?:zh|ja|th|lo|km|my)$/.test(language)
    ? language
    : /[\u3040-\u30ff\uff66-\uff9f]/u.test(run)
      ? "ja"
      : /[\u0e00-\u0e7f]/u.test(run)
        ? "th"
        : "zh";
  let segmenter = segmenters.get(locale);
  if (!segmenter) segmenters.set(locale, (segmenter = new Intl.Segmenter(locale, { granularity: "word" })));
  return segmenter;
}

/** The words of a run written without spaces, as [offset in the run, word]; digits and Latin letters in it stay words. */
export function segmentWords(run: string, language: string): [offset: number, word: string][] {
  const words: [number, string][] = [];
  for (const { segment, index, isWordLike } of segmenterFor(run, language).segment(run)) {
    if (isWordLike) words.push([index, segment]);
  }
  return words;
}

/**
 * Length of an elided article or pronoun at a word's start, apostrophe included ("l'" of "l'eau", "dell'" of
 * "dell'acqua", "qu'" of "qu'il"): a stop word of the language, or one or two letters. 0 in English, and when none.
 */
export function elisionLength(raw: string, language: LiteLanguage): number {
  if (language.english) return 0;
  const apostrophe = raw.search(/['’]/);
  if (apostrophe <= 0 || apostrophe === raw.length - 1) return 0;
  const prefix = raw.slice(0, apostrophe).toLowerCase();
  return prefix.length <= 2 || language.stopwords.has(prefix) ? apostrophe + 1 : 0;
}
