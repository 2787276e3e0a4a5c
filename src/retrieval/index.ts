// Retrieval: questions → ranked moments and videos, with provenance.
export { analyzeQuery, analyzeText, termKey, tokenize, type AnalyzedQuery } from "./query-analyzer.js";
export { englishStopwords, isStopword, questionWords } from "./stopwords.js";
export { mergeClipMatches, momentsToHits, strongClips, type Moment } from "./moments.js";
export { defaultLexicalSettings, type LexicalSettings } from "./lexical-settings.js";
export { rankLexicalClips, searchMoments, type SearchMomentsOptions } from "./search-moments.js";
export { rankVideos, type RankVideosOptions } from "./rank-videos.js";
export { reciprocalRankFusion, rrfK, type Fused, type RankedList } from "./fusion.js";
export { searchMultimodal, type MultimodalSearchOptions } from "./multimodal-search.js";
