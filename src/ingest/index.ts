// Ingest: files → resumable stages → one committed video each.
export * from "./types.js";
export { expandInputs, isMediaPath } from "./expand-inputs.js";
export { ingestMediaFile, type MediaIngestContext } from "./ingest-media.js";
export { ingestTranscripts } from "./transcripts.js";
export { graphNote, runGraphStage, type GraphSettings, type StagedGraph } from "./graph-stage.js";
