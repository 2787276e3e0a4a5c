// Keeps each merged entity's one description in step with its sources: after a video is added or removed, the
// entities whose sources changed are re-described, by the language model when one is configured (the graph VideoRAG
// design's synthesised description) or by joining the distinct source descriptions.

import type { EntityDescriptionUpdate, LanguageModel, Store } from "../spec/index.js";
import { liteEntityDescription, synthesizeEntityDescription } from "./describe-entity.js";

export interface RefreshDescriptionsOptions {
  model?: LanguageModel;
  signal?: AbortSignal;
  /** Entities read per round. */
  batchSize?: number;
  onProgress?: (done: number) => void;
}

/** Lite descriptions written per transaction; with a model, each is written as soon as it is synthesised. */
const liteWriteBatch = 500;

/**
 * Re-describes every stale entity; returns how many were described and how many model calls that took. A description
 * is written only if the entity's sources did not change while it was being written (an ingest running alongside);
 * such an entity stays stale and is described again from its new sources in a later round.
 */
export async function refreshEntityDescriptions(store: Store, options: RefreshDescriptionsOptions = {}): Promise<{ described: number; modelCalls: number }> {
  const batchSize = options.batchSize ?? 500;
  const writeBatch = options.model ? 1 : liteWriteBatch;
  let described = 0;
  let modelCalls = 0;
  let pending: EntityDescriptionUpdate[] = [];
  const write = async (): Promise<void> => {
    const batch = pending;
    pending = [];
    if (batch.length > 0) described += await store.setEntityDescriptions(batch);
  };
  for (;;) {
    options.signal?.throwIfAborted();
    const stale = await store.staleEntities(batchSize);
    if (stale.length === 0) break;
    for (const entity of stale) {
      const descriptions = [...new Set(entity.sources.map((source) => source.description.trim()).filter(Boolean))];
      // One source needs no synthesis: its own words are the description.
      let description = liteEntityDescription(descriptions);
      if (options.model && descriptions.length > 1) {
        description = await synthesizeEntityDescription(options.model, { name: entity.name, type: entity.type }, descriptions, { signal: options.signal });
        modelCalls++;
      }
      pending.push({ key: entity.key, description, changeSequence: entity.changeSequence });
      if (pending.length >= writeBatch) await write();
    }
    await write();
    options.onProgress?.(described);
  }
  return { described, modelCalls };
}
