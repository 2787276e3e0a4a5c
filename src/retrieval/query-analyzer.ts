// Turns a question into weighted search terms: lowercase words, no stopwords (the question's own language's), no
// question framing. Stemming is left to the store's tokenizer (FTS5 porter), so the terms stay words a person would
// recognise. The word analysis itself is text/'s.

import { analyzeText, eachMatch, englishStopwords, identifyLanguage, keyMatcher, termKey, termKeyFor, tokenize } from "../text/index.js";

export { analyzeText, eachMatch, keyMatcher, termKey, termKeyFor, tokenize };

/** A question analysed for lexical search. */
export interface AnalyzedQuery {
  /** Distinct content words, each weighted by how often the question says it. */
  terms: { text: string; weight: number }[];
  /** Quoted phrases ("disc brake"), matched as consecutive words. */
  phrases: string[];
  /** The question's language where it is not English: the store also looks for the terms' stems in it. */
  language?: string;
}

/**
 * The language a question is in (ISO 639-1): "en" for English and for a question too short or too mixed to tell. One
 * question is searched, matched and quoted several ways; its language is identified once and passed to each of them.
 */
export async function questionLanguage(question: string): Promise<string> {
  return plainlyEnglish(question) ? "en" : ((await identifyLanguage([question])) ?? "en");
}

/**
 * `analyzeQuery` in the question's language (`language` where the caller identified it already, else identified
 * here): a German question drops German stop words and finds German text by its stems. English is searched as it is.
 */
export async function analyzeQuestion(question: string, language?: string): Promise<AnalyzedQuery> {
  return analyzeQuery(question, language ?? (await questionLanguage(question)));
}

/**
 * A question's terms and phrases; `language` (ISO 639-1) picks its stop words and, where it is not English, is passed
 * on to the store.
 */
export function analyzeQuery(question: string, language?: string): AnalyzedQuery {
  const weights = new Map<string, number>();
  for (const word of analyzeText(question, language)) weights.set(word, (weights.get(word) ?? 0) + 1);
  const phrases = [...question.matchAll(/["“”]([^"“”]+)["“”]/g)]
    .map((match) => tokenize(match[1] ?? "").join(" "))
    .filter((phrase) => phrase.includes(" "));
  return { terms: [...weights].map(([text, weight]) => ({ text, weight })), phrases, ...(language && language !== "en" ? { language } : {}) };
}

/**
 * A question in plain ASCII where a third of the words are English function words ("how do I …"): English, without
 * loading the language identifier (a few hundred milliseconds, once a process) for the questions most people ask.
 */
function plainlyEnglish(question: string): boolean {
  if (/[^\p{ASCII}]/u.test(question)) return false;
  const words = tokenize(question);
  return words.length > 0 && words.filter((word) => englishStopwords.has(word)).length >= words.length / 3;
}
