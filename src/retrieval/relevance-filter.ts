// The language-model relevance filter of the graph VideoRAG design: each candidate clip's description is shown to the
// model with the question, and clips it judges irrelevant are dropped before the answer is written.

import { z } from "zod";
import { generateJson } from "../providers/runtime/index.js";
import type { ClipDocument, LanguageModel } from "../spec/index.js";

const verdictSchema = z.object({ relevant: z.boolean() });

/** Longest clip text shown to the model; a clip's description rarely needs more. */
const maxClipChars = 2000;

/** The clip as the model reads it: what was seen, said and shown on screen. */
export function clipDescription(clip: Pick<ClipDocument, "transcript" | "screen" | "visual">): string {
  const parts = [
    clip.visual.trim() ? `Seen: ${clip.visual.trim()}` : "",
    clip.transcript.trim() ? `Said: ${clip.transcript.trim()}` : "",
    clip.screen.trim() ? `On screen: ${clip.screen.trim()}` : "",
  ].filter(Boolean);
  return parts.join("\n").slice(0, maxClipChars) || "(nothing recorded)";
}

/** One yes/no verdict per clip, in order; the calls run through the model's own concurrency limit. */
export async function judgeRelevance(
  model: LanguageModel,
  question: string,
  clips: Pick<ClipDocument, "transcript" | "screen" | "visual">[],
  options: { signal?: AbortSignal } = {},
): Promise<boolean[]> {
  return Promise.all(
    clips.map(async (clip) => {
      const { value } = await generateJson(
        model,
        [
          {
            role: "system",
            content:
              "You decide whether a video clip could help answer a question. Judge from the clip's description only. " +
              'Answer with JSON: {"relevant": true} or {"relevant": false}.',
          },
          { role: "user", content: `Question: ${question}\n\nClip:\n${clipDescription(clip)}` },
        ],
        verdictSchema,
        { temperature: 0, maxTokens: 20, signal: options.signal },
      );
      return value.relevant;
    }),
  );
}
