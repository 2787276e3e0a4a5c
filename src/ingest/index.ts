// Ingest: files → resumable stages → one committed video each.
export * from "./types.js";
export { expandInputs, isMediaPath } from "./expand-inputs.js";
export { ingestMediaFile, type MediaIngestContext, type MediaIngestOptions } from "./ingest-media.js";
export { deferredStages, type DeferredStage, type ExtractionSettings } from "./clip-stages.js";
export { extractClips, type ClipKey, type ExtractionEvent, type ExtractionReport, type ExtractOptions } from "./extract-clips.js";
export { ingestTranscripts } from "./transcripts.js";
export { statedLanguage } from "./stated-language.js";
export { graphNote, runGraphStage, type GraphSettings, type StagedGraph } from "./graph-stage.js";
