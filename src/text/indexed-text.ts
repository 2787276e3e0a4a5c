// Text as the lexical indexes see it. FTS5's unicode61 tokenizer (and the Postgres store, which borrows it) cuts words
// at spaces and punctuation, so a run of Chinese or Japanese characters, written without spaces, would be one token:
// a two-character word inside a line could never be found. Runs of Han, kana and Hangul are therefore indexed as their
// overlapping character pairs (Lucene's CJK bigrams), and a question's words the same way: "東京" inside
// "東京の天気" is the pair it is. Thai, Lao, Khmer and Burmese, also written without spaces, are cut into the words
// Intl.Segmenter finds; the tokenizer also cuts at every vowel and tone mark of those scripts (it counts only letters
// and digits as parts of a word), so their marks are written as private-use characters, which it keeps in the word.
// Text in another language that Snowball stems is indexed by its stems. Diacritics are then folded as FTS5's tokenizer
// folds them (fold-diacritics.ts), except a language's own letters: stems first, since Snowball reads the accents.
// English passes with only the folding FTS5 applies to it anyway, so it ranks as before.

import { foldDiacritics } from "./fold-diacritics.js";
import { stemWords } from "./word-stems.js";

/** Han (with its extensions and compatibility forms), Hiragana, Katakana (and half-width), Hangul syllables. */
const cjk = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\uac00-\ud7af\u{20000}-\u{2fa1f}]+/gu;
const anyCjk = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\uac00-\ud7af\u{20000}-\u{2fa1f}]/u;

/** Thai, Lao, Khmer and Myanmar (Burmese): scripts without spaces between words, as a regular expression class's body. */
export const spacelessScripts = "\\p{Script=Thai}\\p{Script=Lao}\\p{Script=Khmer}\\p{Script=Myanmar}";
const anySpaceless = new RegExp(`[${spacelessScripts}]`, "u");
/** A run of one of those scripts; which one tells the segmenter's locale. */
const spacelessRun = /(\p{Script=Thai}+)|(\p{Script=Lao}+)|(\p{Script=Khmer}+)|(\p{Script=Myanmar}+)/gu;
const runLocales = ["th", "lo", "km", "my"] as const;
const segmenters = new Map<string, Intl.Segmenter>();
const mark = /[\p{Mn}\p{Mc}]/gu;
/** Where a mark of those scripts goes: U+F0000 plus its code point, in a private-use plane FTS5 counts as word characters. */
const privateMarks = 0xf0000;

/** The version of this form, part of what an index was built with: a change re-indexes the documents it changes. */
export const indexedTextVersion = 2;

/** True when `text` holds a character `cjkPairs` rewrites. */
export const hasCjk = (text: string): boolean => anyCjk.test(text);

/** True when `text` holds a character of Thai, Lao, Khmer or Burmese, which `spacelessWords` cuts into words. */
export const hasSpaceless = (text: string): boolean => anySpaceless.test(text);

/** How `indexedText` writes text: `spacelessAsRuns`, Thai, Lao, Khmer and Burmese runs as they are (schemas before SQLite 16, Postgres 11). */
export interface IndexedTextOptions {
  spacelessAsRuns?: boolean;
}

/**
 * `text` as indexed: in a `language` Snowball stems (word-stems.ts), each word as its stem; then diacritics folded
 * where the language allows (fold-diacritics.ts: "café" → "cafe", Spanish "año" kept); then CJK runs as `cjkPairs`
 * writes them, and Thai, Lao, Khmer and Burmese runs as their words with their marks kept in the word. ASCII English
 * passes unchanged.
 */
export function indexedText(text: string, language?: string, options: IndexedTextOptions = {}): string {
  if (language && language !== "en") text = stemWords(text, language);
  const paired = cjkPairs(foldDiacritics(text, language));
  if (options.spacelessAsRuns || !anySpaceless.test(paired)) return paired;
  return spacelessWords(paired, (word) => word.replace(mark, (character) => String.fromCodePoint(privateMarks + (character.codePointAt(0) as number))));
}

/** `text` with each run of CJK characters as its overlapping pairs, space-separated (a lone character stays itself). */
export function cjkPairs(text: string): string {
  if (!anyCjk.test(text)) return text;
  return text.replace(cjk, (run) => {
    const characters = [...run];
    if (characters.length < 2) return ` ${run} `;
    const pairs: string[] = [];
    for (let index = 0; index + 1 < characters.length; index++) pairs.push(`${characters[index]}${characters[index + 1]}`);
    return ` ${pairs.join(" ")} `;
  });
}

/**
 * `text` with each run of Thai, Lao, Khmer or Burmese as the words `Intl.Segmenter` finds in it (in th, lo, km or my),
 * space-separated, each as `word` writes it; what is no word (the scripts' punctuation) goes. Other text is unchanged.
 */
export function spacelessWords(text: string, word: (segment: string) => string = (segment) => segment): string {
  if (!anySpaceless.test(text)) return text;
  return text.replace(spacelessRun, (run, ...scripts: unknown[]) => {
    const locale = runLocales[scripts.slice(0, runLocales.length).findIndex((group) => group !== undefined)] ?? "th";
    let segmenter = segmenters.get(locale);
    if (!segmenter) segmenters.set(locale, (segmenter = new Intl.Segmenter(locale, { granularity: "word" })));
    const words: string[] = [];
    for (const segment of segmenter.segment(run)) if (segment.isWordLike) words.push(word(segment.segment));
    return ` ${words.join(" ")} `;
  });
}
