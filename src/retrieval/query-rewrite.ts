// The question rewritten for each retriever, as the graph VideoRAG design does: once into keywords that name entities
// (for the graph), once into a description of what would be seen (for the image-text space). A language model does it
// when one is configured; otherwise the question's content words stand in for both.

import { z } from "zod";
import { generateJson } from "../providers/runtime/index.js";
import type { LanguageModel } from "../spec/index.js";
import { analyzeText } from "./query-analyzer.js";

export interface RewriteOptions {
  signal?: AbortSignal;
  /** The question's language (ISO 639-1): without a model, its content words are those of that language. */
  language?: string;
}

const keywordsSchema = z.object({
  keywords: z.array(z.string()).max(20),
});

/**
 * Keywords naming the entities, objects and concepts the question is about ("disc brake", "Popeye"), for matching
 * against entity names. Without a model: the content words, and each adjacent pair of them as a phrase.
 */
export async function entityKeywords(question: string, model?: LanguageModel, options: RewriteOptions = {}): Promise<string[]> {
  if (model) {
    const { value } = await generateJson(
      model,
      [
        {
          role: "system",
          content:
            "You extract search keywords from a question about a library of videos. Give the specific entities, objects, " +
            "people, places and concepts it asks about (high-level themes and low-level names), as short noun phrases. " +
            'Answer with JSON: {"keywords": ["...", "..."]}.',
        },
        { role: "user", content: question },
      ],
      keywordsSchema,
      { temperature: 0, signal: options.signal },
    );
    const keywords = value.keywords.map((keyword) => keyword.trim()).filter(Boolean);
    if (keywords.length > 0) return [...new Set(keywords)];
  }
  const words = analyzeText(question, options.language);
  const pairs = words.slice(1).map((word, index) => `${words[index]} ${word}`);
  return [...new Set([...words, ...pairs])];
}

/**
 * The question as a short description of a scene that would answer it ("a person riding a bicycle on a street"), for
 * the image-text encoder, whose text side was trained on captions rather than questions. Without a model: the content
 * words, which is what detections and tags are matched against anyway.
 */
export async function sceneDescription(question: string, model?: LanguageModel, options: RewriteOptions = {}): Promise<string> {
  if (model) {
    const reply = await model.chat(
      [
        {
          role: "system",
          content:
            "Rewrite the question as one short sentence describing what would be visible in a video frame that answers it " +
            "(objects, people, actions, setting). Answer with the sentence only.",
        },
        { role: "user", content: question },
      ],
      { temperature: 0, maxTokens: 60, signal: options.signal },
    );
    const scene = reply.text.trim().split("\n")[0]?.trim();
    if (scene) return scene;
  }
  return analyzeText(question, options.language).join(" ") || question;
}
