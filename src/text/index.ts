// Plain-language text helpers shared by the graph and retrieval layers.
export { englishStopwords, isStopword, minimumContentTerms, questionWords } from "./stopwords.js";
