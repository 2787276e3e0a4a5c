// One description for an entity from what each chunk said about it: the distinct descriptions joined (no model), or a
// language model's synthesis of them into one coherent text, as the graph-RAG papers (LightRAG, VideoRAG) do.

import type { LanguageModel } from "../spec/index.js";

/** Longest lite description: a few sources' worth, short enough to show and to index. */
const liteDescriptionChars = 400;
/** Most description text one synthesis prompt quotes; the earliest sources first. */
const synthesisInputChars = 6000;
/**
 * Source descriptions read at most, the earliest first. Deduplication compares each with every one kept, and an entity
 * such as "water" has thousands of sources; the first ones already fill a lite description or a synthesis prompt.
 */
const maxDescriptionsRead = 64;
/** Word overlap (Jaccard) at which two descriptions say the same thing. */
const nearDuplicateOverlap = 0.8;

/**
 * The distinct descriptions in order, near-duplicates (same words, or one's words inside another's) removed, joined
 * with " · " and cut at about 400 characters between words.
 */
export function liteEntityDescription(descriptions: string[]): string {
  let joined = "";
  for (const description of distinctDescriptions(descriptions)) {
    const next = joined === "" ? description : `${joined} · ${description}`;
    if (next.length <= liteDescriptionChars) {
      joined = next;
      continue;
    }
    // Part of one more description is worth showing only when there is room for a few words of it.
    const room = liteDescriptionChars - (joined === "" ? 0 : joined.length + 3);
    if (room >= 40) joined = joined === "" ? cutAtWord(description, room) : `${joined} · ${cutAtWord(description, room)}`;
    break;
  }
  return joined;
}

export interface SynthesizeOptions {
  signal?: AbortSignal;
}

/**
 * One coherent third-person description of the entity combining all of `descriptions` and resolving contradictions,
 * from one chat call (none when there is nothing to describe). Falls back to `liteEntityDescription` when the model
 * answers with empty text.
 */
export async function synthesizeEntityDescription(
  model: LanguageModel,
  entity: { name: string; type: string },
  descriptions: string[],
  options: SynthesizeOptions = {},
): Promise<string> {
  const distinct = distinctDescriptions(descriptions);
  if (distinct.length === 0) return "";
  const quoted: string[] = [];
  let quotedChars = 0;
  for (const description of distinct) {
    if (quoted.length > 0 && quotedChars + description.length > synthesisInputChars) break;
    quoted.push(`- ${description}`);
    quotedChars += description.length;
  }
  const reply = await model.chat(
    [
      {
        role: "system",
        content: "You write the descriptions of entities in a knowledge graph built from videos. You are precise and brief.",
      },
      {
        role: "user",
        content: [
          `Entity: ${entity.name} (${entity.type})`,
          "Descriptions of it, each from a different part of a video:",
          ...quoted,
          "",
          "Write one comprehensive description of the entity that combines the information in all of the descriptions. " +
            "Where they contradict each other, resolve the contradiction into one coherent account. Write in the third " +
            "person and name the entity. Keep it under 120 words. Reply with the description only.",
        ].join("\n"),
      },
    ],
    { temperature: 0, maxTokens: 300, signal: options.signal },
  );
  return cleanReply(reply.text) || liteEntityDescription(descriptions);
}

/** Models often wrap a plain answer in quotes, fences or a "Description:" label. */
function cleanReply(text: string): string {
  return text
    .trim()
    .replace(/^```[a-z]*\s*|\s*```$/gi, "")
    .replace(/^description\s*:\s*/i, "")
    .replace(/^["“](.*)["”]$/s, "$1")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * Trimmed, non-empty descriptions in order, each unlike the ones before (a longer restatement replaces its original),
 * from the first `maxDescriptionsRead` given.
 */
function distinctDescriptions(descriptions: string[]): string[] {
  const kept: { text: string; words: Set<string> }[] = [];
  for (const raw of descriptions.slice(0, maxDescriptionsRead)) {
    const text = raw.replace(/\s+/g, " ").trim();
    if (text === "") continue;
    const words = new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
    const same = kept.findIndex((other) => sameThing(words, other.words));
    if (same === -1) kept.push({ text, words });
    else if (words.size > (kept[same] as { words: Set<string> }).words.size) kept[same] = { text, words };
  }
  return kept.map((entry) => entry.text);
}

function sameThing(a: Set<string>, b: Set<string>): boolean {
  if (a.size === 0 || b.size === 0) return a.size === b.size;
  let shared = 0;
  for (const word of a) if (b.has(word)) shared++;
  // One inside the other ("Popeye, a sailor" in "Popeye, a sailor who eats spinach"), or mostly the same words.
  return shared === Math.min(a.size, b.size) || shared / (a.size + b.size - shared) >= nearDuplicateOverlap;
}

function cutAtWord(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const cut = text.slice(0, maxChars - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > maxChars / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:·-]+$/, "")}…`;
}
