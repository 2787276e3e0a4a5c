// The HTTP server: the API and the web UI over the library API.
export { createApp, type AppOptions } from "./create-app.js";
export { webVtt } from "./transcript-vtt.js";
export { createIngestJobs, type IngestJobs } from "./ingest-jobs.js";
export { isLoopback } from "./security-rules.js";
export { checkExposure, startServer, type RunningServer, type ServerOptions } from "./start-server.js";
