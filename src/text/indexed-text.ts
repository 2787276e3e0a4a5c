// Text as the lexical indexes see it. FTS5's unicode61 tokenizer (and the Postgres store, which borrows it) cuts words
// at spaces and punctuation, so a run of Chinese or Japanese characters, written without spaces, would be one token:
// a two-character word inside a line could never be found. Runs of Han, kana and Hangul are therefore indexed as their
// overlapping character pairs (Lucene's CJK bigrams), and a question's words the same way: "東京" inside
// "東京の天気" is the pair it is. Text in another language that Snowball stems is indexed by its stems. Diacritics are
// then folded as FTS5's tokenizer folds them (fold-diacritics.ts), except a language's own letters: stems first, since
// Snowball reads the accents. English passes with only the folding FTS5 applies to it anyway, so it ranks as before.

import { foldDiacritics } from "./fold-diacritics.js";
import { stemWords } from "./word-stems.js";

/** Han (with its extensions and compatibility forms), Hiragana, Katakana (and half-width), Hangul syllables. */
const cjk = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\uac00-\ud7af\u{20000}-\u{2fa1f}]+/gu;
const anyCjk = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\uac00-\ud7af\u{20000}-\u{2fa1f}]/u;

/** The version of this form, part of what an index was built with: a change re-indexes the documents it changes. */
export const indexedTextVersion = 1;

/** True when `text` holds a character `cjkPairs` rewrites. */
export const hasCjk = (text: string): boolean => anyCjk.test(text);

/**
 * `text` as indexed: in a `language` Snowball stems (word-stems.ts), each word as its stem; then diacritics folded
 * where the language allows (fold-diacritics.ts: "café" → "cafe", Spanish "año" kept); then CJK runs as `cjkPairs`
 * writes them. ASCII English passes unchanged.
 */
export function indexedText(text: string, language?: string): string {
  if (language && language !== "en") text = stemWords(text, language);
  return cjkPairs(foldDiacritics(text, language));
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
