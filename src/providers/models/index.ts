// The local model folder: which models the engine knows, what of them is on disk, and fetching the rest.
export { modelsDir, type ModelsDirOptions } from "./models-dir.js";
export { findManifestModel, findModel, modelManifest, type ModelEntry, type ModelFile, type ModelKind } from "./manifest.js";
export {
  listModels,
  sha256File,
  verifyModels,
  type FileCheck,
  type FileCheckStatus,
  type ManifestOption,
  type ModelListing,
  type ModelStatus,
  type ModelVerification,
} from "./verify-models.js";
export { pullModels, type PulledFile, type PullOptions, type PullResult } from "./pull-models.js";
export { missingModelFiles, modelNotFound, requireModel } from "./require-model.js";
