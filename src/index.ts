// videorag: ask questions of a library of videos; answers cite the video and the second.
export { openLibrary, defaultLibraryPath } from "./library.js";
export type { Library, LibraryOptions, AskOptions, SearchOptions } from "./library.js";
export type { IngestEvent, IngestOptions, IngestReport, IngestResult } from "./ingest/index.js";
export { VideoRagError, errorCodes } from "./spec/index.js";
export type * from "./spec/model.js";
export type { ErrorCode } from "./spec/errors.js";
/** The seam `openLibrary({ store })` accepts; SQLite is the default. */
export type { Store } from "./spec/store.js";
export { loadConfig, configSchema, type VideoRagConfig, type VideoRagConfigInput, type LoadedConfig } from "./config/index.js";
export type * from "./spec/providers.js";
export {
  chooseProviders,
  createClipEncoder,
  createMobilenetTagger,
  createModelRuntime,
  createOpenAiEmbedder,
  createOpenAiLanguageModel,
  createOpenAiTranscriber,
  createSentenceEmbedder,
  createWhisperTranscriber,
  createYoloxDetector,
  diagnose,
  listModels,
  modelManifest,
  pullModels,
  verifyModels,
} from "./providers/index.js";
