// How the queue modules reach Redis: BullMQ is imported only when a queue command runs, so the CLI starts fast without it.

import type { ConnectionOptions, Queue } from "bullmq";
import type { IngestJobData } from "./ingest-queue.js";

/** The BullMQ queue that carries ingest jobs. */
export const ingestQueueName = "videorag-ingest";

/** BullMQ, loaded on first use. */
export async function loadBullmq(): Promise<typeof import("bullmq")> {
  return import("bullmq");
}

/**
 * Connection options for a Redis URL. Short-lived commands (enqueue, status) give up after a few reconnects instead of
 * hanging on an unreachable server; a worker keeps reconnecting, so it outlives a Redis restart.
 */
export function connectionOptions(queueUrl: string, persistent = false): ConnectionOptions {
  return persistent
    ? { url: queueUrl, maxRetriesPerRequest: null }
    : { url: queueUrl, maxRetriesPerRequest: 3, retryStrategy: (times: number) => (times > 5 ? null : Math.min(times * 200, 1000)) };
}

/** `host:port` of a Redis URL, for messages: the URL may carry a password, which is never printed. */
export function queueHost(queueUrl: string): string {
  try {
    const url = new URL(queueUrl);
    return `${url.hostname}:${url.port || "6379"}`;
  } catch {
    return "(invalid Redis URL)";
  }
}

/** The ingest queue for a short-lived command (or, `persistent`, a worker's); close it when done. */
export async function openIngestQueue(queueUrl: string, persistent = false): Promise<Queue<IngestJobData>> {
  const { Queue } = await loadBullmq();
  const queue = new Queue<IngestJobData>(ingestQueueName, { connection: connectionOptions(queueUrl, persistent) });
  // Connection errors reach the caller as the failed command's rejection; unheard, BullMQ would print each one with its stack.
  queue.on("error", () => undefined);
  return queue;
}
