// The answer from a language model: numbered evidence in, streamed text out with every citation checked and rewritten
// into the library's format as it arrives. Provider-neutral: it only uses the LanguageModel interface.

import { VideoRagError, toVideoRagError } from "../spec/index.js";
import type { Citation, LanguageModel, Warning } from "../spec/index.js";
import { defaultMaxEvidenceChars, planAnswerPrompt } from "./answer-prompt.js";
import { createCitationRewriter } from "./cited-answer.js";
import type { Evidence } from "./evidence.js";
import { noMatchingMomentsText } from "./extractive-answer.js";

export interface LlmAnswerInput {
  question: string;
  /** Ranked best first; the model sees them numbered [1], [2], … in this order. */
  evidence: Evidence[];
  model: LanguageModel;
  signal?: AbortSignal;
  /** Receives the answer as it is written, citations already rewritten; the deltas join to exactly `text`. */
  onText?: (delta: string) => void;
  /** Default: 12 000, or less when the model states a small context. */
  maxEvidenceChars?: number;
  /** Most frames attached per evidence item for models that accept images. Default 2. */
  imagesPerClip?: number;
}

/** A model's answer with checked citations. */
export interface LlmAnswer {
  text: string;
  citations: Citation[];
  warnings: Warning[];
  /** What the model wrote, before citations were rewritten. */
  rawText: string;
}

/** Shown when the model wrote nothing usable. */
const emptyAnswerText = "The language model gave no answer.";

/** Streams an answer to `question` from `evidence`; without evidence the model is not called. */
export async function streamLlmAnswer(input: LlmAnswerInput): Promise<LlmAnswer> {
  const { model, signal } = input;
  const emit = (delta: string) => {
    if (delta !== "") input.onText?.(delta);
  };
  if (input.evidence.length === 0) {
    emit(noMatchingMomentsText);
    return { text: noMatchingMomentsText, citations: [], warnings: [], rawText: "" };
  }
  if (signal?.aborted) throw interrupted(signal);

  const prompt = planAnswerPrompt(input.question, input.evidence, {
    acceptsImages: model.capabilities.acceptsImages,
    maxImages: model.capabilities.maxImages,
    imagesPerClip: input.imagesPerClip,
    maxEvidenceChars: input.maxEvidenceChars ?? evidenceBudgetFor(model),
  });
  const warnings: Warning[] = imageWarnings(model, prompt.evidence, prompt.imagesOverLimit);

  const rewriter = createCitationRewriter(prompt.evidence);
  let rawText = "";
  try {
    for await (const delta of model.stream(prompt.messages, { signal, temperature: 0 })) {
      if (signal?.aborted) break;
      rawText += delta;
      emit(rewriter.push(delta));
    }
  } catch (error) {
    if (signal?.aborted) throw interrupted(signal);
    throw toVideoRagError(error, "MODEL_FAILED");
  }
  if (signal?.aborted) throw interrupted(signal);
  emit(rewriter.end());
  const answer = rewriter.result();

  if (answer.invalidNumbers.length > 0) {
    const numbers = answer.invalidNumbers.map((number) => `[${number}]`).join("");
    warnings.push({ type: "degraded", feature: "citations", detail: `the model cited evidence ${numbers} that was not given; dropped` });
  }
  if (answer.text.trim() === "") {
    emit(emptyAnswerText);
    warnings.push({ type: "degraded", feature: "answer", detail: `${model.id} returned no text` });
    return { text: emptyAnswerText, citations: [], warnings, rawText };
  }
  if (answer.citations.length === 0) {
    warnings.push({ type: "degraded", feature: "citations", detail: "the answer cites none of the evidence; nothing in it was checked against the videos" });
  }
  return { text: answer.text, citations: answer.citations, warnings, rawText };
}

/** About four characters a token, and half the context left for the rules, the question and the answer. */
function evidenceBudgetFor(model: LanguageModel): number {
  const contextTokens = model.capabilities.contextTokens;
  return contextTokens === undefined ? defaultMaxEvidenceChars : Math.min(defaultMaxEvidenceChars, contextTokens * 2);
}

function imageWarnings(model: LanguageModel, given: Evidence[], overLimit: number): Warning[] {
  const frames = given.reduce((sum, item) => sum + (item.images?.length ?? 0), 0);
  if (frames > 0 && !model.capabilities.acceptsImages) {
    return [{ type: "unsupported", feature: "images", detail: `${model.id} does not accept images; it answered from the clips' text only` }];
  }
  if (overLimit > 0) {
    return [{ type: "degraded", feature: "images", detail: `${overLimit} frames left out: ${model.id} takes at most ${model.capabilities.maxImages} images` }];
  }
  return [];
}

function interrupted(signal: AbortSignal): VideoRagError {
  return new VideoRagError("INTERRUPTED", "the answer was cancelled", { cause: signal.reason });
}
