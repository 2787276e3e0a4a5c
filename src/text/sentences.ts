// Where a sentence ends, in any script: English's ". ! ? …", and the full stops and marks of Chinese and Japanese
// ("。！？", written with no space after), Arabic and Urdu, Devanagari, Armenian, Ethiopic and Burmese. The lite entity
// extractor relates what one sentence mentions; the same ends serve any layer that cuts text into sentences. Chinese and
// Japanese put no space between words either, so lines of them are joined, and their words counted, here too.

/** Sentence ends written with a space after them (". ! ? …", Arabic "؟" and "۔", Devanagari "।" "॥", Armenian, Ethiopic, Burmese). */
const spacedEnds = ".!?\u2026\u061f\u06d4\u0964\u0965\u0589\u1362\u104b";
/** Sentence ends of Chinese and Japanese, which need no space after: ideographic full stop, full-width "！？．", half-width "｡". */
const unspacedEnds = "\u3002\uff01\uff1f\uff0e\uff61";
const endCodes = new Set([...spacedEnds, ...unspacedEnds].map((character) => character.charCodeAt(0)));

/** True when the UTF-16 code unit ends a sentence in some script ("." "?" "。" "？" "।" …). */
export const isSentenceEnd = (code: number): boolean => endCodes.has(code);

/** Closing quotes and brackets that stay with the sentence they close ("…" he said.", 「…。」). */
const closers = `"'”’)\\]」』）】`;
const boundary = new RegExp(`(?<=[${spacedEnds}][${closers}]*)\\s+|(?<=[${unspacedEnds}][${closers}]*)(?![${closers}])\\s*(?=\\S)`, "u");

/**
 * `text` cut into sentences, each trimmed: after a sentence end (and its closing quotes) and the spaces that follow;
 * after a Chinese or Japanese end with or without a space ("東京です。大阪です。" is two).
 */
export function splitSentences(text: string): string[] {
  return text
    .split(boundary)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence !== "");
}

const boundaries = new RegExp(boundary.source, "gu");

/**
 * Where `text` may be cut between sentences: the offset just past each sentence end (and its closing quotes) that
 * another sentence follows, where `splitSentences` cuts.
 */
export function sentenceBreaks(text: string): number[] {
  return [...text.matchAll(boundaries)].map((match) => match.index);
}

const trailingClosers = new RegExp(`[${closers}\\s]+$`, "u");

/** True when `text` ends a sentence in some script: its last mark, closing quotes and spaces aside, is a sentence end. */
export function endsSentence(text: string): boolean {
  const bare = text.replace(trailingClosers, "");
  return bare !== "" && isSentenceEnd(bare.charCodeAt(bare.length - 1));
}

/** Chinese and Japanese letters (Han, kana), written without spaces between words; Korean spaces its words. */
const unspacedLetters = "\\u3040-\\u30ff\\u3400-\\u4dbf\\u4e00-\\u9fff\\uf900-\\ufaff\\uff66-\\uff9f\\u{20000}-\\u{2fa1f}";
/** Those letters with the punctuation and full-width forms written among them (、。「」（）！？), no space around either. */
const unspacedWriting = new RegExp(`[${unspacedLetters}\\u3000-\\u303f\\uff00-\\uffef]`, "u");

/**
 * Lines of one text (subtitle cues, transcript lines) joined as the text is written: with a space, but none where
 * Chinese or Japanese runs on into the next line ("京都の紅葉は" + "きれいです。" is one sentence, not two words).
 */
export function joinLines(lines: readonly string[]): string {
  let joined = "";
  for (const line of lines) {
    const runsOn = unspacedWriting.test([...joined.slice(-2)].at(-1) ?? "") && unspacedWriting.test([...line.trimStart().slice(0, 2)][0] ?? "");
    joined = joined === "" ? line : `${joined}${runsOn ? "" : " "}${line}`;
  }
  return joined;
}

const unspacedLetter = new RegExp(`[${unspacedLetters}]`, "gu");

/**
 * Words of `text` as a reader counts them: its space-separated words, where Chinese and Japanese (written without
 * spaces) count a word for every two characters, about their words' average length. A length in words (a summary of
 * 150, an utterance of 8 to 25) then means about as much text in every script; text without them counts as `split`.
 */
export function countWords(text: string): number {
  let count = 0;
  for (const word of text.split(/\s+/)) {
    if (word === "") continue;
    const characters = word.match(unspacedLetter)?.length ?? 0;
    if (characters === 0) {
      count += 1;
      continue;
    }
    const rest = word.replace(unspacedLetter, " ").split(/[^\p{L}\p{N}]+/u).filter(Boolean).length;
    count += Math.ceil(characters / 2) + rest;
  }
  return count;
}
