// The core model runtime: batching, retries with backoff, timeouts, concurrency limits and the on-disk output cache,
// once, for every provider. Providers implement src/spec/providers.ts and are wrapped here.
export { cacheKey, hashFile } from "./cache-key.js";
export { generateJson, parseJsonReply } from "./generate-json.js";
export { createLimiter, type Limiter } from "./limiter.js";
export {
  createMemoryModelCache,
  createModelCache,
  type CacheEntryInfo,
  type ModelCache,
  type ModelCacheStats,
} from "./model-cache.js";
export {
  createModelRuntime,
  type ModelCallStats,
  type ModelRuntime,
  type ModelRuntimeOptions,
  type RuntimeEvent,
} from "./model-runtime.js";
export { mapConcurrent } from "./map-concurrent.js";
