// Words that say nothing about what a question is looking for: English function words, and the words questions are
// framed with ("what is a common sequence of steps for ..."); in another language, the stop words stopwords-iso (MIT)
// lists for it.

import { createRequire } from "node:module";

/** English function words, contractions and fillers common in speech transcripts. */
export const englishStopwords: ReadonlySet<string> = new Set(
  `a about above after again against all am an and any are aren as at be because been before being below between both but
  by can cannot could couldn did didn do does doesn doing don down during each few for from further had hadn has hasn have
  haven having he her here hers herself him himself his how i if in into is isn it its itself just let ll me more most
  mustn my myself no nor not now of off on once only or other ought our ours ourselves out over own re same shall shan she
  should shouldn so some such than that the their theirs them themselves then there these they this those through to too
  under until up upon us ve very was wasn we were weren what when where which while who whom whose why will with won would
  wouldn you your yours yourself yourselves also may might must uh um oh yeah okay ok gonna wanna`
    .split(/\s+/)
    .filter(Boolean),
);

/**
 * Words that frame a question rather than name its subject ("what is a typical sequence of steps involved in ...").
 * They are dropped only while the question keeps at least `minimumContentTerms` other words, so a short query such as
 * "key" or "first steps" still searches for them.
 */
export const questionWords: ReadonlySet<string> = new Set(
  `describe explain tell common commonly typical typically general generally usually usual often step steps process
  processes involved involve involves procedure procedures sequence essential key important importance purpose
  recommended recommend next first initial initially used using use uses way ways method methods example video shown
  show shows described mentioned`
    .split(/\s+/)
    .filter(Boolean),
);

/** Content words a question must keep for its framing words to be dropped. */
export const minimumContentTerms = 2;

export function isStopword(word: string): boolean {
  return englishStopwords.has(word);
}

const requireModule = createRequire(import.meta.url);
let isoLists: Record<string, string[]> | undefined;
const otherStopwords = new Map<string, ReadonlySet<string> | undefined>();

/**
 * The stop words of a language (ISO 639-1): `englishStopwords` for English and for no language; stopwords-iso's list,
 * lowercase, for another (an entry with an apostrophe, "aujourd'hui", also as the words the tokenizer cuts it into);
 * undefined for a language the package has no list for. The lists are broad: German's holds "zeit", "mann" and "jahr",
 * so a caller keeps the words when the list would leave none (see analyze-text.ts).
 */
export function stopwordsFor(language: string | undefined): ReadonlySet<string> | undefined {
  if (language === undefined || language === "en") return englishStopwords;
  if (otherStopwords.has(language)) return otherStopwords.get(language);
  isoLists ??= requireModule("stopwords-iso") as Record<string, string[]>;
  const list = (Object.hasOwn(isoLists, language) ? isoLists[language] : undefined) ?? [];
  let words: Set<string> | undefined;
  if (list.length > 0) {
    words = new Set();
    for (const entry of list) {
      const word = entry.normalize("NFKC").toLowerCase();
      words.add(word);
      for (const part of word.split(/['’]/)) if (part) words.add(part);
    }
  }
  otherStopwords.set(language, words);
  return words;
}
