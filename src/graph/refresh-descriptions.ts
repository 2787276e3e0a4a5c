// Keeps each merged entity's one description in step with its sources: after a video is added or removed, the
// entities whose sources changed are re-described, by the language model when one is configured (the graph VideoRAG
// design's synthesised description) or by joining the distinct source descriptions.

import type { LanguageModel, Store } from "../spec/index.js";
import { liteEntityDescription, synthesizeEntityDescription } from "./describe-entity.js";

export interface RefreshDescriptionsOptions {
  model?: LanguageModel;
  signal?: AbortSignal;
  /** Entities read per round. */
  batchSize?: number;
  onProgress?: (done: number) => void;
}

/** Re-describes every stale entity; returns how many were described and how many model calls that took. */
export async function refreshEntityDescriptions(store: Store, options: RefreshDescriptionsOptions = {}): Promise<{ described: number; modelCalls: number }> {
  const batchSize = options.batchSize ?? 500;
  let described = 0;
  let modelCalls = 0;
  for (;;) {
    options.signal?.throwIfAborted();
    const stale = store.staleEntities(batchSize);
    if (stale.length === 0) break;
    for (const entity of stale) {
      const descriptions = [...new Set(entity.sources.map((source) => source.description.trim()).filter(Boolean))];
      // One source needs no synthesis: its own words are the description.
      let description = liteEntityDescription(descriptions);
      if (options.model && descriptions.length > 1) {
        description = await synthesizeEntityDescription(options.model, { name: entity.name, type: entity.type }, descriptions, { signal: options.signal });
        modelCalls++;
      }
      store.setEntityDescription(entity.key, description);
      described++;
    }
    options.onProgress?.(described);
  }
  return { described, modelCalls };
}
