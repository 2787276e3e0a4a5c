// Evaluation: metrics, dataset loading, the retrieval benchmark and the precision of visual search.
export { recallAtK } from "./recall-at-k.js";
export { rougeL, longestCommonSubsequence } from "./rouge-l.js";
export { percentile, latencyPercentiles } from "./latency-percentiles.js";
export { loadQuestions, parseQuestions, type EvalQuestion } from "./load-questions.js";
export { evalRetrieval, type EvalRetrievalOptions, type RankFunction, type RetrievalReport } from "./eval-retrieval.js";
export { bestOf, crossValidate, foldsByGroup, meanAndSpread, type CrossValidationReport, type Fold } from "./cross-validate.js";
export { evalVisualSearch, loadClassLabels, type ClassLabels, type VideoSearch, type VisualSearchReport } from "./eval-visual-search.js";
