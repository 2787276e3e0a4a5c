// Structured output from a chat model: ask for JSON, parse it leniently, validate it with zod, and give the model one
// chance to repair an invalid answer before failing with MODEL_OUTPUT_INVALID.

import type { z } from "zod";
import { VideoRagError } from "../../spec/index.js";
import type { ChatMessage, ChatOptions, LanguageModel } from "../../spec/index.js";

const jsonOnly = "Reply with JSON only: no prose before or after it, no code fences.";

/** How many zod issues the repair turn quotes; the first usually says enough, a few help with several mistakes. */
const quotedIssues = 5;

type Checked<T> = { ok: true; value: T } | { ok: false; issues: string[] };

/**
 * Asks `model` for JSON matching `schema`. When the answer does not parse or validate, the model sees its answer and
 * the error once and may correct it (`repaired: true`); a second invalid answer fails with MODEL_OUTPUT_INVALID.
 */
export async function generateJson<T>(
  model: LanguageModel,
  messages: ChatMessage[],
  schema: z.ZodType<T, z.ZodTypeDef, unknown>,
  options: Omit<ChatOptions, "json"> = {},
): Promise<{ value: T; repaired: boolean }> {
  const native = model.capabilities.jsonOutput;
  const prompt = native ? messages : withJsonInstruction(messages);
  const chatOptions: ChatOptions = native ? { ...options, json: true } : options;

  const first = await model.chat(prompt, chatOptions);
  const checked = check(first.text, schema);
  if (checked.ok) return { value: checked.value, repaired: false };

  const repair: ChatMessage[] = [
    ...prompt,
    { role: "assistant", content: first.text },
    {
      role: "user",
      content: `That reply is not valid: ${checked.issues.slice(0, quotedIssues).join("; ")}. ${jsonOnly} Send the corrected JSON.`,
    },
  ];
  const second = await model.chat(repair, chatOptions);
  const rechecked = check(second.text, schema);
  if (rechecked.ok) return { value: rechecked.value, repaired: true };
  throw new VideoRagError(
    "MODEL_OUTPUT_INVALID",
    `${model.id} did not return valid JSON, even after a repair attempt: ${rechecked.issues[0]}`,
    { subject: model.id },
  );
}

/** Models without a JSON mode are told in the system message, where an instruction about form belongs. */
function withJsonInstruction(messages: ChatMessage[]): ChatMessage[] {
  const [head, ...rest] = messages;
  if (head?.role === "system" && typeof head.content === "string") {
    return [{ role: "system", content: `${head.content}\n\n${jsonOnly}` }, ...rest];
  }
  return [{ role: "system", content: jsonOnly }, ...messages];
}

function check<T>(text: string, schema: z.ZodType<T, z.ZodTypeDef, unknown>): Checked<T> {
  let parsed: unknown;
  try {
    parsed = parseJsonReply(text);
  } catch (error) {
    return { ok: false, issues: [`it is not JSON (${error instanceof Error ? error.message : String(error)})`] };
  }
  const result = schema.safeParse(parsed);
  if (result.success) return { ok: true, value: result.data };
  return {
    ok: false,
    issues: result.error.issues.map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "(root)"}: ${issue.message}`),
  };
}

/** Parses a reply that should be JSON, tolerating ```json fences and prose around the outermost object or array. */
export function parseJsonReply(text: string): unknown {
  const trimmed = text.trim();
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(trimmed)?.[1]?.trim();
  const body = fenced ?? trimmed;
  const candidates = [trimmed, fenced, ...outermost(body)];
  let lastError: unknown = new SyntaxError("no JSON object or array found");
  for (const candidate of candidates) {
    if (candidate === undefined || candidate === "") continue;
    try {
      return JSON.parse(candidate);
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

/** The spans from the first `{` to the last `}` and from the first `[` to the last `]`, the earlier-starting first. */
function outermost(text: string): string[] {
  const spans: { start: number; text: string }[] = [];
  for (const [open, close] of [["{", "}"], ["[", "]"]] as const) {
    const start = text.indexOf(open);
    const end = text.lastIndexOf(close);
    if (start !== -1 && end > start) spans.push({ start, text: text.slice(start, end + 1) });
  }
  return spans.sort((a, b) => a.start - b.start).map((span) => span.text);
}
