// Stems of words in the languages Snowball covers (npm snowball-stemmers), for text in a language other than English:
// "Häuser" and "Haus" index alike in German, "maisons" and "maison" in French. English keeps FTS5's Porter stemmer
// alone, so English text indexes exactly as it always did.

import { createRequire } from "node:module";

const snowballNames: Record<string, string> = {
  de: "german", fr: "french", es: "spanish", it: "italian", pt: "portuguese", nl: "dutch", sv: "swedish", no: "norwegian",
  nb: "norwegian", da: "danish", fi: "finnish", hu: "hungarian", ro: "romanian", ru: "russian", tr: "turkish", ca: "catalan",
  cs: "czech", eu: "basque", ga: "irish", sl: "slovene", ar: "arabic", hy: "armenian", ta: "tamil",
};

interface Stemmer {
  stem(word: string): string;
}
const requireModule = createRequire(import.meta.url);
let snowball: { newStemmer(name: string): Stemmer } | undefined;
const stemmers = new Map<string, Stemmer>();

/** The Snowball stemmer of an ISO 639-1 language; undefined for English (Porter stays FTS5's) and for one without. */
export function stemmerFor(language: string | undefined): ((word: string) => string) | undefined {
  const name = language ? snowballNames[language] : undefined;
  if (!name) return undefined;
  let stemmer = stemmers.get(name);
  if (!stemmer) {
    snowball ??= requireModule("snowball-stemmers") as { newStemmer(name: string): Stemmer };
    stemmer = snowball.newStemmer(name);
    stemmers.set(name, stemmer);
  }
  const found = stemmer;
  return (word) => found.stem(word);
}

/** `text` with every word (letters and digits) lowercased and stemmed in `language`; unchanged when it has no stemmer. */
export function stemWords(text: string, language: string | undefined): string {
  const stem = stemmerFor(language);
  return stem ? text.replace(/[\p{L}\p{N}]+/gu, (word) => stem(word.toLowerCase())) : text;
}
