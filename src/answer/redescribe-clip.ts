// The query-time re-description of the graph VideoRAG design: a clip that survived retrieval is described again by the
// vision-language model for this question, from more frames (chosen for the question) and with the question's keywords
// in the prompt, so the answer reads a description of what matters here rather than the clip's generic caption.

import type { ImageInput, LanguageModel } from "../spec/index.js";

export interface RedescribeInput {
  question: string;
  /** What to look for, from the question's rewrite. */
  keywords: string[];
  images: ImageInput[];
  /** What is said in the clip, to ground the description. */
  transcript: string;
  signal?: AbortSignal;
}

/** Longest transcript given with the frames. */
const maxTranscriptChars = 1500;

/** One paragraph describing what the frames show that bears on the question; empty when the model says nothing. */
export async function redescribeClip(model: LanguageModel, input: RedescribeInput): Promise<string> {
  const said = input.transcript.trim().slice(0, maxTranscriptChars);
  const reply = await model.chat(
    [
      {
        role: "system",
        content:
          "You describe a video clip from its frames (in time order) and its transcript, for someone answering a question. " +
          "Describe only what is visible or said; pay attention to the keywords; do not answer the question itself.",
      },
      {
        role: "user",
        content: [
          { type: "text", text: `Question: ${input.question}\nKeywords: ${input.keywords.join(", ") || "(none)"}\nTranscript: ${said || "(no speech)"}` },
          ...input.images.map((image) => ({ type: "image" as const, image })),
        ],
      },
    ],
    { temperature: 0, maxTokens: 300, signal: input.signal },
  );
  return reply.text.trim();
}
