// Retrieval: questions → ranked moments and videos, with provenance.
export { analyzeQuery, analyzeText, termKey, tokenize, type AnalyzedQuery } from "./query-analyzer.js";
export { englishStopwords, isStopword, questionWords } from "./stopwords.js";
export { mergeClipMatches, momentsToHits, type Moment } from "./moments.js";
export {
  defaultLexicalSettings,
  rankVideos,
  searchMoments,
  type LexicalSettings,
  type RankVideosOptions,
  type SearchMomentsOptions,
} from "./lexical-search.js";
