// A video's clip documents → its VideoGraph: chunks, the entities and relations read from each (by a language model, or
// the lite extractor), every entity keyed by its normalised name, and optionally name vectors for merging by meaning.
// Storage and the merge across videos happen in the store.

import { mapConcurrent } from "../providers/runtime/index.js";
import { VideoRagError, entitySpace } from "../spec/index.js";
import { stopwordsFor } from "../text/index.js";
import type {
  Chunk,
  ClipDocument,
  ExtractedEntity,
  ExtractedRelation,
  KeyedEntity,
  KeyedRelation,
  LanguageModel,
  TextEmbedder,
  VideoGraph,
} from "../spec/index.js";
import { chunkBodyText, chunkClips } from "./chunk-clips.js";
import { liteEntityDescription } from "./describe-entity.js";
import { entityNameKey } from "./entity-name-key.js";
import { extractLiteEntities, liteExtractorId } from "./lite-entities.js";
import { extractEntitiesWithModel } from "./model-entities.js";

export interface BuildVideoGraphOptions {
  /** Reads entities and relations; the lite extractor (no model) when absent. */
  model?: LanguageModel;
  /** Embeds entity names into `entityVectors`. */
  embedder?: TextEmbedder;
  /** Chunk budget in tokens (words × 1.3). Default 1200. */
  maxTokens?: number;
  /** With a model: ask a second time for missed entities. Default true. */
  glean?: boolean;
  signal?: AbortSignal;
  /** Called after each chunk is read. */
  onProgress?: (done: number, total: number) => void;
  /** The video's language (ISO 639-1): the lite extractor reads it by that language's rules, not English's. */
  language?: string;
}

type VideoExtraction = VideoGraph["extractions"][number];

/**
 * Builds a video's graph. Chunks are read by `model` (up to its `maxConcurrency` at once) or by the lite extractor;
 * the entity names ("name (type)") are embedded once per video when an `embedder` is given. `modelCalls` counts chat
 * and embedding calls.
 */
export async function buildVideoGraph(
  clips: ClipDocument[],
  options: BuildVideoGraphOptions,
): Promise<{ graph: VideoGraph; modelCalls: number; liteChunks: number }> {
  const { model, embedder, signal } = options;
  const chunks = chunkClips(clips, { maxTokens: options.maxTokens });
  let modelCalls = 0;
  let liteChunks = 0;
  let done = 0;
  const extractions = await mapConcurrent(chunks, model?.capabilities.maxConcurrency ?? 1, async (chunk) => {
    throwIfAborted(signal);
    let read: { entities: ExtractedEntity[]; relations: ExtractedRelation[] };
    const lite = (): { entities: ExtractedEntity[]; relations: ExtractedRelation[] } => extractLiteEntities(chunkBodyText(chunk.text), { language: options.language });
    if (model) {
      try {
        const { calls, ...extraction } = await extractEntitiesWithModel(model, chunk.text, { signal, glean: options.glean });
        modelCalls += calls;
        read = extraction;
      } catch (error) {
        // A model that cannot keep to the JSON shape (small local models) leaves this chunk to the lite extractor;
        // a server that is down or refuses stops the stage, to be resumed.
        if (!(VideoRagError.isInstance(error) && error.code === "MODEL_OUTPUT_INVALID")) throw error;
        modelCalls += 2; // the call and its repair turn
        liteChunks++;
        read = lite();
      }
    } else {
      liteChunks++;
      read = lite();
    }
    options.onProgress?.(++done, chunks.length);
    return keyExtraction(chunk.index, read, options.language);
  });

  const graph = videoGraph(model?.id ?? liteExtractorId, chunks, extractions);
  if (embedder) {
    const { vectors, calls } = await embedEntityNames(embedder, graph.extractions, signal);
    modelCalls += calls;
    graph.entityVectors = vectors;
    graph.entityVectorSpace = entitySpace(embedder);
  }
  return { graph, modelCalls, liteChunks };
}

/** The lite extractor's graph, synchronously: the transcript-corpus path, where waiting on promises is pure cost. */
export function buildLiteVideoGraph(clips: ClipDocument[], options: { maxTokens?: number; language?: string } = {}): VideoGraph {
  const chunks = chunkClips(clips, { maxTokens: options.maxTokens });
  const { language } = options;
  const extractions = chunks.map((chunk) => keyExtraction(chunk.index, extractLiteEntities(chunkBodyText(chunk.text), { language }), language));
  return videoGraph(liteExtractorId, chunks, extractions);
}

function videoGraph(extractor: string, chunks: Omit<Chunk, "videoId">[], extractions: VideoExtraction[]): VideoGraph {
  return {
    extractor,
    chunks,
    extractions: extractions.filter((extraction) => extraction.entities.length > 0 || extraction.relations.length > 0),
  };
}

/**
 * Keys one chunk's entities by normalised name (dropping those with none), merging an entity named twice, and keys its
 * relations by their endpoints', dropping those whose endpoints vanished or coincide and merging repeated pairs.
 */
function keyExtraction(
  chunkIndex: number,
  read: { entities: ExtractedEntity[]; relations: ExtractedRelation[] },
  language: string | undefined,
): VideoExtraction {
  const stopwords = stopwordsFor(language) ?? new Set<string>();
  const entities = new Map<string, KeyedEntity>();
  for (const entity of read.entities) {
    const nameKey = entityNameKey(entity.name);
    // A key that is only function words of its language ("W-What" → "what", "Oh"; "Die") names nothing.
    if (nameKey === "" || nameKey.split(" ").every((word) => stopwords.has(word))) continue;
    const known = entities.get(nameKey);
    if (!known) entities.set(nameKey, { ...entity, nameKey });
    else known.description = liteEntityDescription([known.description, entity.description]);
  }
  const relations = new Map<string, KeyedRelation>();
  for (const relation of read.relations) {
    const source = entities.get(entityNameKey(relation.source));
    const target = entities.get(entityNameKey(relation.target));
    if (!source || !target || source === target) continue;
    const pair = source.nameKey < target.nameKey ? `${source.nameKey}\u0000${target.nameKey}` : `${target.nameKey}\u0000${source.nameKey}`;
    const known = relations.get(pair);
    if (known) {
      known.strength = Math.max(known.strength, relation.strength);
      continue;
    }
    relations.set(pair, {
      ...relation,
      source: source.name,
      target: target.name,
      sourceKey: source.nameKey,
      targetKey: target.nameKey,
    });
  }
  return { chunkIndex, entities: [...entities.values()], relations: [...relations.values()] };
}

/** One vector per distinct entity of the video, for "name (type)" as first written: the type separates "Apple"s. */
async function embedEntityNames(
  embedder: TextEmbedder,
  extractions: VideoExtraction[],
  signal: AbortSignal | undefined,
): Promise<{ vectors: { nameKey: string; vector: Float32Array }[]; calls: number }> {
  const firstSeen = new Map<string, KeyedEntity>();
  for (const extraction of extractions) {
    for (const entity of extraction.entities) if (!firstSeen.has(entity.nameKey)) firstSeen.set(entity.nameKey, entity);
  }
  const entities = [...firstSeen.values()];
  const vectors: { nameKey: string; vector: Float32Array }[] = [];
  const batchSize = Math.max(1, embedder.capabilities.maxBatchSize);
  let calls = 0;
  for (let start = 0; start < entities.length; start += batchSize) {
    throwIfAborted(signal);
    const batch = entities.slice(start, start + batchSize);
    const embedded = await embedder.embed(
      batch.map((entity) => `${entity.name} (${entity.type})`),
      { signal },
    );
    calls++;
    batch.forEach((entity, index) => {
      const vector = embedded[index];
      if (vector) vectors.push({ nameKey: entity.nameKey, vector });
    });
  }
  return { vectors, calls };
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new VideoRagError("INTERRUPTED", "building the video's graph was stopped", { cause: signal.reason });
}
