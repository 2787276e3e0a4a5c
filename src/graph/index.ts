// The knowledge graph's read side: clips → chunks → entities and relations (by a language model or the lite extractor)
// → a VideoGraph for the store to merge, plus entity descriptions. Pure functions and model calls; no storage.
export { buildLiteVideoGraph, buildVideoGraph, type BuildVideoGraphOptions } from "./build-video-graph.js";
export { chunkClips, estimateTokens, type ChunkClipsOptions } from "./chunk-clips.js";
export { liteEntityDescription, synthesizeEntityDescription, type SynthesizeOptions } from "./describe-entity.js";
export { entityNameKey } from "./entity-name-key.js";
export { extractLiteEntities, liteExtractorId, type LiteEntitiesOptions } from "./lite-entities.js";
export { defaultEntityTypes, extractEntitiesWithModel, type ModelEntitiesOptions } from "./model-entities.js";
export { refreshEntityDescriptions, type RefreshDescriptionsOptions } from "./refresh-descriptions.js";
