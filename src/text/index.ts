// Plain-language text helpers shared by the graph, summary and retrieval layers.
export { analyzeText, eachMatch, keyMatcher, termKey, termKeyFor, tokenize, type KeyMatcher } from "./analyze-text.js";
export { englishStopwords, isStopword, minimumContentTerms, questionWords, stopwordsFor } from "./stopwords.js";
export { cleanSpoken } from "./spoken-text.js";
export { identifyLanguage, languageFromFileName, languageFromTag, tesseractLanguage, whisperLanguages } from "./language.js";
export { hasCjk, hasSpaceless, indexedText, indexedTextVersion, type IndexedTextOptions } from "./indexed-text.js";
export { foldDiacritics } from "./fold-diacritics.js";
export { stemmerFor, stemWords } from "./word-stems.js";
export { countWords, endsSentence, isSentenceEnd, joinLines, sentenceBreaks, splitSentences } from "./sentences.js";
