// Loads an evaluation set: `[{ id, question, answer?, relevant_videos: [...] }]`, validated so a bad file fails with one
// clear line instead of NaN metrics.

import { readFileSync } from "node:fs";
import { z } from "zod";
import { VideoRagError } from "../spec/index.js";

/** One evaluation question; `relevantVideos[0]` is the video it was written from. */
export interface EvalQuestion {
  id: string;
  question: string;
  /** Reference answer, for ROUGE-L. */
  answer?: string;
  relevantVideos: string[];
}

const questionsSchema = z.array(
  z.object({
    id: z.union([z.string().min(1), z.number()]).transform(String),
    question: z.string().trim().min(1),
    answer: z.string().optional(),
    relevant_videos: z.array(z.string().min(1)).min(1),
  }),
);

/** Parses questions from JSON text; throws QUESTIONS_INVALID naming the first bad field. */
export function parseQuestions(text: string, source = "questions"): EvalQuestion[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new VideoRagError("QUESTIONS_INVALID", `${source} is not JSON: ${(error as Error).message}`, { cause: error, subject: source });
  }
  const parsed = questionsSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.map((part) => (typeof part === "number" ? `[${part}]` : `.${part}`)).join("") ?? "";
    throw new VideoRagError("QUESTIONS_INVALID", `${source}${where}: ${issue?.message ?? "invalid"}`, { subject: source });
  }
  const seen = new Set<string>();
  for (const question of parsed.data) {
    if (seen.has(question.id)) {
      throw new VideoRagError("QUESTIONS_INVALID", `${source}: the id "${question.id}" appears twice`, { subject: source });
    }
    seen.add(question.id);
  }
  return parsed.data.map((question) => ({
    id: question.id,
    question: question.question,
    ...(question.answer === undefined ? {} : { answer: question.answer }),
    relevantVideos: question.relevant_videos,
  }));
}

/** Reads and validates a questions file; INPUT_NOT_FOUND when it cannot be read, QUESTIONS_INVALID when it is wrong. */
export function loadQuestions(path: string): EvalQuestion[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new VideoRagError("INPUT_NOT_FOUND", `cannot read the questions file ${path}`, { cause: error, subject: path });
  }
  return parseQuestions(text, path);
}
