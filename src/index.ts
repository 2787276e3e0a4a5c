// videorag: ask questions of a library of videos; answers cite the video and the second.
export { openLibrary, defaultLibraryPath } from "./library.js";
export type { Library, LibraryOptions, AskOptions, SearchOptions } from "./library.js";
export type { IngestEvent, IngestOptions, IngestReport, IngestResult } from "./ingest/index.js";
export { VideoRagError, errorCodes } from "./spec/index.js";
export type * from "./spec/model.js";
export type { ErrorCode } from "./spec/errors.js";
