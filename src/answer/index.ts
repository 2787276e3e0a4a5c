// Answers: evidence → text with checked citations; the extractive answer needs no model, the LLM answer streams.
export * from "../text/citation-format.js";
export * from "./extractive-answer.js";
export { readExtractiveInput, type ExtractiveOptions } from "./extractive-input.js";
export type { Evidence, EvidenceKind } from "./evidence.js";
export { buildEvidence, type BuildEvidenceOptions } from "./build-evidence.js";
export { buildAnswerPrompt, planAnswerPrompt, type AnswerPrompt, type AnswerPromptOptions } from "./answer-prompt.js";
export { parseCitedAnswer, type CitedAnswer } from "./cited-answer.js";
export { streamLlmAnswer, type LlmAnswer, type LlmAnswerInput } from "./llm-answer.js";
export { selectClipFrames, type ClipFramesOptions } from "./clip-frames.js";
export { redescribeClip, type RedescribeInput } from "./redescribe-clip.js";
export { answerQuestion, profileOf, type AnswerContext, type AnswerOptions, type FrameSource, type QuestionExtraction, type QuestionExtractionEvent } from "./answer-pipeline.js";
export { planExtraction, stagesForKinds, StepTimes, type ExtractionPlan, type PlannedClip, type PlannedStage } from "./plan-extraction.js";
export { everyMoment, enumeratedWords, type EveryMoment } from "./every-moment.js";
export { defaultStepSettings, stepAnswer, type StepInput, type StepSettings } from "./step-answer.js";
export { summarizeWithModel, type ModelSummaryInput } from "./summarize-with-model.js";
