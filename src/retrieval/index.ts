// Retrieval: questions → ranked moments and videos, with provenance.
export { analyzeQuery, analyzeQuestion, analyzeText, questionLanguage, termKey, termKeyFor, tokenize, type AnalyzedQuery } from "./query-analyzer.js";
export { mergeClipMatches, momentsToHits, strongClips, type Moment, type MomentQuery } from "./moments.js";
export { defaultLexicalSettings, type LexicalSettings } from "./lexical-settings.js";
export { rankLexicalClips, searchMoments, type SearchMomentsOptions } from "./search-moments.js";
export { rankVideos, type RankVideosOptions } from "./rank-videos.js";
export { reciprocalRankFusion, rrfK, type Fused, type RankedList } from "./fusion.js";
export { bm25Clips, clipKey, denseClips, visualClips, type ScoredClip } from "./clip-retrievers.js";
export { graphClips } from "./graph-retrieval.js";
export { entityKeywords, sceneDescription } from "./query-rewrite.js";
export { clipDescription, judgeRelevance } from "./relevance-filter.js";
export { retrievalHits, retrieve, type Retrieval, type RetrievedClip, type RetrieveOptions } from "./retrieve.js";
export { retrieveVideos, type ScoredVideo, type VideoRetrievalOptions } from "./video-retrieval.js";
export { kMeansPlusPlus, selectFramesForQuery, selectKeyFrames, uniformFrames, type FeatureFrame } from "./frame-selection.js";
export { isKindCue, questionKinds, type QuestionKind } from "./question-kind.js";
export { asksAboutLibrary, namedVideos, questionIntent } from "./question-intent.js";
export { searchChapters, type ChapterSearchOptions } from "./chapter-search.js";
export { speakerNameForms, speakerReference, type SpeakerReference } from "./speaker-reference.js";
export { sameVoices, sameVoiceSimilarity, type VoiceMatch, type VoiceVector } from "./same-voice.js";
