// Ingest on many machines: jobs on a Redis queue (BullMQ, loaded only when used) and workers that run them.
export { ingestQueueName, queueHost } from "./connection.js";
export { enqueueIngest, ingestAttempts, ingestJobId, type EnqueuedJob, type EnqueueOptions, type IngestJobData } from "./ingest-queue.js";
export { runWorker, type IngestJobProgress, type IngestJobResult, type RunWorkerOptions, type WorkerEvent } from "./ingest-worker.js";
export { queueStatus, waitForJobs, type ActiveIngestJob, type FailedIngestJob, type IngestJobState, type QueueStatus } from "./queue-status.js";
