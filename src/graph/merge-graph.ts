// How a video's graph merges into the library's, for every store: the checks a graph must pass before anything is
// written, the order in which a name finds its entity, and the sources each chunk leaves. A store supplies the lookups
// (by name key, by alias, nearest vector) and the writes, inside its own transaction; the policy is stated once, here.

import { VideoRagError } from "../spec/index.js";
import type { GraphRelation, GraphSource, KeyedRelation, VideoGraph } from "../spec/index.js";

/** Largest cosine distance at which two differently named entities of one type merge, when the graph does not say. */
export const defaultMergeDistance = 0.1;

/** What one name of a video becomes when no entity of the library has it yet. */
export interface NamePlan {
  /** As first written in the video. */
  name: string;
  /** The type the video gives it most often (the first of those tied). */
  type: string;
  vector?: Float32Array;
}

/** Throws ARGUMENT_INVALID unless `vector` is a non-empty Float32Array of finite numbers. */
export function checkVector(vector: unknown, what: string): asserts vector is Float32Array {
  if (!(vector instanceof Float32Array) || vector.length === 0 || !vector.every(Number.isFinite)) {
    throw new VideoRagError("ARGUMENT_INVALID", `${what} must be a non-empty Float32Array of finite numbers`);
  }
}

/**
 * Checks a video's graph against itself and the video's clips, throwing ARGUMENT_INVALID at the first inconsistency so
 * the commit writes nothing; returns the video's names in order of first appearance.
 */
export function planGraph(graph: VideoGraph, videoId: string, clipIndexes: Set<number>): Map<string, NamePlan> {
  const invalid = (message: string): VideoRagError =>
    new VideoRagError("ARGUMENT_INVALID", `the graph of ${videoId}: ${message}`, { subject: videoId });
  const isText = (value: unknown): value is string => typeof value === "string";
  const isFilled = (value: unknown): value is string => isText(value) && value.trim() !== "";

  const chunkIndexes = new Set<number>();
  for (const chunk of graph.chunks) {
    const where = `chunk ${chunk.index}`;
    if (!Number.isInteger(chunk.index) || chunk.index < 0) throw invalid(`${where} needs an index that is an integer ≥ 0`);
    if (chunkIndexes.has(chunk.index)) throw invalid(`${where} is given twice`);
    chunkIndexes.add(chunk.index);
    if (!clipIndexes.has(chunk.clipStart) || !clipIndexes.has(chunk.clipEnd) || chunk.clipStart > chunk.clipEnd) {
      throw invalid(`${where} spans clips ${chunk.clipStart}–${chunk.clipEnd}, which are not a range of the video's clips`);
    }
    if (!(Number.isFinite(chunk.startSecond) && Number.isFinite(chunk.endSecond) && chunk.startSecond <= chunk.endSecond)) {
      throw invalid(`${where} needs a start and an end second, the start not after the end`);
    }
    if (!isText(chunk.text) || !(Number.isFinite(chunk.tokenCount) && chunk.tokenCount >= 0)) {
      throw invalid(`${where} needs its text and a token count ≥ 0`);
    }
  }

  const typeCounts = new Map<string, Map<string, number>>();
  const firstNames = new Map<string, string>();
  const extracted = new Set<number>();
  for (const extraction of graph.extractions) {
    const where = `the extraction of chunk ${extraction.chunkIndex}`;
    if (!chunkIndexes.has(extraction.chunkIndex)) throw invalid(`${where} names no chunk of the video`);
    if (extracted.has(extraction.chunkIndex)) throw invalid(`${where} is given twice`);
    extracted.add(extraction.chunkIndex);
    const names = new Set<string>();
    for (const entity of extraction.entities) {
      if (!isFilled(entity.nameKey) || !isFilled(entity.name) || !isFilled(entity.type) || !isText(entity.description)) {
        throw invalid(`${where} has an entity without a name key, a name, a type or a description`);
      }
      if (names.has(entity.nameKey)) throw invalid(`${where} lists "${entity.nameKey}" twice`);
      names.add(entity.nameKey);
      if (!firstNames.has(entity.nameKey)) firstNames.set(entity.nameKey, entity.name.trim());
      const type = entity.type.trim().toLowerCase();
      const counts = typeCounts.get(entity.nameKey) ?? new Map<string, number>();
      counts.set(type, (counts.get(type) ?? 0) + 1);
      typeCounts.set(entity.nameKey, counts);
    }
    for (const relation of extraction.relations) {
      for (const end of [relation.sourceKey, relation.targetKey]) {
        if (!names.has(end)) throw invalid(`${where} relates "${String(end)}", which is not among the chunk's entities`);
      }
      if (!isText(relation.description) || !(Number.isFinite(relation.strength) && relation.strength >= 0)) {
        throw invalid(`${where} has a relation without a description or a strength ≥ 0`);
      }
    }
  }

  const plans = new Map<string, NamePlan>();
  for (const [nameKey, counts] of typeCounts) {
    let type = "";
    let most = 0;
    for (const [candidate, count] of counts) {
      if (count > most) [type, most] = [candidate, count];
    }
    plans.set(nameKey, { name: firstNames.get(nameKey) ?? nameKey, type });
  }

  const vectors = graph.entityVectors ?? [];
  if (vectors.length > 0 && !isFilled(graph.entityVectorSpace)) {
    throw invalid("entity vectors were given without the space they are in (entityVectorSpace)");
  }
  let dimensions: number | undefined;
  for (const { nameKey, vector } of vectors) {
    const plan = plans.get(nameKey);
    if (!plan) throw invalid(`a vector was given for "${String(nameKey)}", which no chunk names`);
    if (plan.vector) throw invalid(`two vectors were given for "${nameKey}"`);
    checkVector(vector, `the vector of "${nameKey}"`);
    dimensions ??= vector.length;
    if (vector.length !== dimensions) {
      throw invalid(`entity vectors have ${dimensions} and ${vector.length} dimensions in one space`);
    }
    plan.vector = vector;
  }
  const { mergeDistance } = graph;
  if (mergeDistance !== undefined && !(Number.isFinite(mergeDistance) && mergeDistance >= 0 && mergeDistance <= 2)) {
    throw invalid("mergeDistance must be a cosine distance from 0 to 2");
  }
  return plans;
}

/** What a store found for one name, in the order they are tried. */
export interface EntityCandidates {
  /** The entity with this name key, or the one it was merged into earlier (an alias). */
  named?: number;
  /** The nearest entity of the same type by name vector, when `named` is absent and the name has a vector. */
  nearest?: { key: number; distance: number };
}

/**
 * The merge order: a name joins the entity that has its name key (or has it as an alias); failing that, the nearest
 * entity of its type within `mergeDistance`, recording the name as that entity's alias; failing that, a new entity.
 */
export function chooseEntity(
  candidates: EntityCandidates,
  mergeDistance: number,
): { key: number; alias: boolean } | undefined {
  if (candidates.named !== undefined) return { key: candidates.named, alias: false };
  const { nearest } = candidates;
  if (nearest && nearest.distance <= mergeDistance) return { key: nearest.key, alias: true };
  return undefined;
}

/** What one chunk's extraction leaves in the graph once its names have entity keys. */
export interface ChunkSources {
  entities: { entityKey: number; description: string }[];
  /** One per unordered pair (`sourceKey` < `targetKey`), the chunk's strongest statement of it. */
  relations: { sourceKey: number; targetKey: number; description: string; strength: number }[];
}

/**
 * The sources a chunk's extraction gives once names have keys: two names that became one entity still give it one
 * source (their distinct descriptions joined); a relation is undirected, one per pair and chunk, its strongest
 * statement standing for the chunk; a relation of an entity with itself (two merged names) is dropped.
 */
export function chunkSources(
  extraction: { entities: { nameKey: string; description: string }[]; relations: KeyedRelation[] },
  keyOf: (nameKey: string) => number,
): ChunkSources {
  const descriptions = new Map<number, string[]>();
  for (const entity of extraction.entities) {
    const key = keyOf(entity.nameKey);
    const texts = descriptions.get(key);
    if (texts) texts.push(entity.description);
    else descriptions.set(key, [entity.description]);
  }
  const strongest = new Map<string, ChunkSources["relations"][number]>();
  for (const relation of extraction.relations) {
    const [sourceKey, targetKey] = [keyOf(relation.sourceKey), keyOf(relation.targetKey)].sort((a, b) => a - b) as [number, number];
    if (sourceKey === targetKey) continue;
    const pair = `${sourceKey}:${targetKey}`;
    const held = strongest.get(pair);
    if (!held || relation.strength > held.strength) {
      strongest.set(pair, { sourceKey, targetKey, description: relation.description.trim(), strength: relation.strength });
    }
  }
  return {
    entities: [...descriptions].map(([entityKey, texts]) => ({ entityKey, description: joinDescriptions(texts) })),
    relations: [...strongest.values()],
  };
}

/** Joins the distinct non-empty descriptions one chunk gives of what became one entity (e.g. two names merged). */
const joinDescriptions = (descriptions: string[]): string =>
  [...new Set(descriptions.map((text) => text.trim()).filter((text) => text !== ""))].join(" ");

/**
 * A relation as read back from the chunks that state it: its strength summed over them, its description that of the
 * strongest (the first of those tied, in the order given); undefined when no source is left.
 */
export function gatherRelation<Source extends { strength: number }>(
  ends: { sourceKey: number; targetKey: number },
  sources: Source[],
  describe: (source: Source) => string,
  toSource: (source: Source) => GraphSource,
  /** Where `sources` are only its first ones: its strongest source and the sum of all its sources' strengths. */
  whole?: { strongest: Source; strength: number },
): GraphRelation | undefined {
  const [first, ...rest] = sources;
  const strongest = whole?.strongest ?? (first && rest.reduce((best, source) => (source.strength > best.strength ? source : best), first));
  if (!strongest) return undefined;
  return {
    sourceKey: ends.sourceKey,
    targetKey: ends.targetKey,
    description: describe(strongest),
    strength: whole?.strength ?? sources.reduce((sum, source) => sum + source.strength, 0),
    sources: sources.map(toSource),
  };
}
