// Entities and relations read from a chunk by a language model, with the prompt and the "gleaning" second pass of the
// published graph-RAG extraction (LightRAG, VideoRAG): typed entities with descriptions, relations with a strength, then
// the model is told it missed many and asked for the rest.

import { z } from "zod";
import { generateJson } from "../providers/runtime/index.js";
import { VideoRagError } from "../spec/index.js";
import type { ChatMessage, ExtractedEntity, ExtractedRelation, LanguageModel } from "../spec/index.js";
import { entityNameKey } from "./entity-name-key.js";

/** Entity types asked for when the caller names none. */
export const defaultEntityTypes: readonly string[] = ["person", "organization", "location", "object", "event", "concept", "action"];

/** Strength given to a relation the model left unrated: the middle of the scale. */
const unratedStrength = 5;

const text = z
  .string()
  .nullish()
  .transform((value) => value ?? "");
const strength = z
  .union([z.number(), z.string().regex(/^\s*\d+(?:\.\d+)?\s*$/, "a number from 1 to 10").transform(Number)])
  .nullish();

// Lenient where models differ harmlessly (null descriptions, "relations" for "relationships", strength as a string);
// strict where the answer would be useless (no entities list, nameless entities).
const extractionSchema = z.object({
  entities: z.array(z.object({ name: z.string(), type: text, description: text })),
  relationships: z.array(z.object({ source: z.string(), target: z.string(), description: text, strength })).optional(),
  relations: z.array(z.object({ source: z.string(), target: z.string(), description: text, strength })).optional(),
});
type ExtractionReply = z.infer<typeof extractionSchema>;

export interface ModelEntitiesOptions {
  signal?: AbortSignal;
  /** Entity types to look for. Default: person, organization, location, object, event, concept, action. */
  entityTypes?: string[];
  /** Ask a second time for what the first answer missed. Default true. */
  glean?: boolean;
}

/**
 * Reads entities and relations from one chunk's text with `model` (temperature 0, JSON validated, one repair turn per
 * answer), then, unless `glean` is false, asks once more for what it missed. Entities merge by `entityNameKey` (the
 * first description that says something wins); relations merge by their unordered endpoints (strongest kept), and those
 * whose endpoints are not entities, or are the same entity, are dropped. A gleaning answer that stays invalid after its
 * repair turn is ignored: the first answer stands. `calls` counts chat calls, repair turns included.
 */
export async function extractEntitiesWithModel(
  model: LanguageModel,
  chunkText: string,
  options: ModelEntitiesOptions = {},
): Promise<{ entities: ExtractedEntity[]; relations: ExtractedRelation[]; calls: number }> {
  const entityTypes = options.entityTypes && options.entityTypes.length > 0 ? options.entityTypes : defaultEntityTypes;
  const chatOptions = { temperature: 0, signal: options.signal };
  const prompt = extractionPrompt(chunkText, entityTypes);

  const first = await generateJson(model, prompt, extractionSchema, chatOptions);
  let calls = first.repaired ? 2 : 1;
  const replies: ExtractionReply[] = [first.value];

  if (options.glean ?? true) {
    const gleaning: ChatMessage[] = [
      ...prompt,
      // The validated answer, not the raw text: after a repair turn the raw first text is the invalid one.
      { role: "assistant", content: JSON.stringify(first.value) },
      { role: "user", content: gleaningRequest },
    ];
    try {
      const more = await generateJson(model, gleaning, extractionSchema, chatOptions);
      calls += more.repaired ? 2 : 1;
      replies.push(more.value);
    } catch (error) {
      if (!(VideoRagError.isInstance(error) && error.code === "MODEL_OUTPUT_INVALID")) throw error;
      calls += 2;
    }
  }
  return { ...mergeReplies(replies), calls };
}

const gleaningRequest =
  "MANY entities and relationships were missed in the last extraction. Add them now in the same JSON format: " +
  '{"entities": [...], "relationships": [...]}. List only entities and relationships not already extracted; a new ' +
  "relationship may connect a new entity to one extracted before. If nothing was missed, reply with empty lists.";

function extractionPrompt(chunkText: string, entityTypes: readonly string[]): ChatMessage[] {
  const system =
    "You build a knowledge graph from videos. You read a stretch of one video, described clip by clip with time ranges " +
    '("Seen:" is what the camera shows, "Said:" what is spoken, "On screen:" text shown on screen), and extract the ' +
    "entities in it and the relationships between them.";
  const user = [
    "-Goal-",
    "Identify all entities of the given types in the text, and all relationships among the identified entities.",
    "",
    `Entity types: ${entityTypes.join(", ")}`,
    "",
    "-Steps-",
    "1. Identify every entity. For each, give:",
    "- name: the entity's name as used in the text (capitalised if it is a proper noun)",
    `- type: one of: ${entityTypes.join(", ")}`,
    "- description: a comprehensive description of the entity's attributes and activities, from the text only",
    "2. Among the entities from step 1, identify every pair that is clearly related. For each pair, give:",
    "- source: the name of the source entity, exactly as in step 1",
    "- target: the name of the target entity, exactly as in step 1",
    "- description: why the two entities are related",
    "- strength: a number from 1 (weak) to 10 (strong) for how strongly they are related",
    "3. Reply with one JSON object of this shape:",
    '{"entities": [{"name": "...", "type": "...", "description": "..."}], ' +
      '"relationships": [{"source": "...", "target": "...", "description": "...", "strength": 7}]}',
    "",
    "-Text-",
    chunkText,
  ].join("\n");
  return [
    { role: "system", content: system },
    { role: "user", content: user },
  ];
}

function mergeReplies(replies: ExtractionReply[]): { entities: ExtractedEntity[]; relations: ExtractedRelation[] } {
  const entities = new Map<string, ExtractedEntity>();
  for (const reply of replies) {
    for (const entity of reply.entities) {
      const name = entity.name.replace(/\s+/g, " ").trim();
      const key = entityNameKey(name);
      if (key === "") continue;
      const description = entity.description.trim();
      const known = entities.get(key);
      if (!known) entities.set(key, { name, type: entity.type.trim().toLowerCase() || "concept", description });
      else if (known.description === "") known.description = description;
    }
  }
  const relations = new Map<string, ExtractedRelation>();
  for (const reply of replies) {
    for (const relation of [...(reply.relationships ?? []), ...(reply.relations ?? [])]) {
      const sourceKey = entityNameKey(relation.source);
      const targetKey = entityNameKey(relation.target);
      const source = entities.get(sourceKey);
      const target = entities.get(targetKey);
      if (!source || !target || sourceKey === targetKey) continue;
      const pair = sourceKey < targetKey ? `${sourceKey}\u0000${targetKey}` : `${targetKey}\u0000${sourceKey}`;
      const rated = clampStrength(relation.strength);
      const known = relations.get(pair);
      if (!known) {
        relations.set(pair, { source: source.name, target: target.name, description: relation.description.trim(), strength: rated });
      } else {
        known.strength = Math.max(known.strength, rated);
        if (known.description === "") known.description = relation.description.trim();
      }
    }
  }
  return { entities: [...entities.values()], relations: [...relations.values()] };
}

/** Into 1..10, whole numbers; an unrated or unreadable strength is the middle of the scale. */
function clampStrength(value: number | null | undefined): number {
  if (value === null || value === undefined || !Number.isFinite(value)) return unratedStrength;
  return Math.min(10, Math.max(1, Math.round(value)));
}
