// Turns a question into weighted search terms: lowercase words, no stopwords, no question framing. Stemming is left to
// the store's tokenizer (FTS5 porter), so the terms stay words a person would recognise. The word analysis itself is text/'s.

import { analyzeText, englishStopwords, identifyLanguage, termKey, tokenize } from "../text/index.js";

export { analyzeText, termKey, tokenize };

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
 * `analyzeQuery` with the question's language identified: a German question finds German text by its stems. English,
 * and a question too short to tell, is searched as it is.
 */
export async function analyzeQuestion(question: string): Promise<AnalyzedQuery> {
  const language = plainlyEnglish(question) ? "en" : await identifyLanguage([question]);
  return analyzeQuery(question, language === "en" ? undefined : language);
}

export function analyzeQuery(question: string, language?: string): AnalyzedQuery {
  const weights = new Map<string, number>();
  for (const word of analyzeText(question)) weights.set(word, (weights.get(word) ?? 0) + 1);
  const phrases = [...question.matchAll(/["“”]([^"“”]+)["“”]/g)]
    .map((match) => tokenize(match[1] ?? "").join(" "))
    .filter((phrase) => phrase.includes(" "));
  return { terms: [...weights].map(([text, weight]) => ({ text, weight })), phrases, ...(language ? { language } : {}) };
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
