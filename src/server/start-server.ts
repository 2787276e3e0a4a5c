// Starts the HTTP server on a library: loopback by default, a token required anywhere else, ingest jobs resumed from
// the library folder, and a shutdown that lets the current commit finish and leaves the running job queued.

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { serve, type ServerType } from "@hono/node-server";
import type { Library, LibraryOptions } from "../library.js";
import { packageVersion } from "../package-version.js";
import { VideoRagError } from "../spec/index.js";
import { createApp } from "./create-app.js";
import { createIngestJobs } from "./ingest-jobs.js";
import { startLibraryThreads } from "./library-threads.js";
import { isLoopback } from "./security-rules.js";

export interface ServerOptions {
  library: Library;
  /** Default 127.0.0.1. Any other address needs a token. */
  host?: string;
  /** Default 7860; 0 picks a free port. */
  port?: number;
  token?: string;
  mediaRoots?: string[];
  uploadLimitBytes?: number;
  corsOrigins?: string[];
  /** Host names clients may reach the server by beside loopback and `host` (a LAN name behind a token). */
  allowedHosts?: string[];
  /** The built web UI (default: the package's dist/web). */
  webRoot?: string;
  /** One line per request and job event (default: nothing). */
  log?: (line: string) => void;
  /**
   * Run questions and ingest on worker threads that open the library with these options (as `library` was opened):
   * both cores answer, and an ingest job neither waits for nor stalls them. Absent: everything on this thread.
   */
  threads?: { libraryOptions: LibraryOptions; queryThreads?: number };
}

export interface RunningServer {
  /** http://host:port */
  url: string;
  port: number;
  /** Stops taking requests, stops the running job at its next stage boundary (it stays queued), closes connections. */
  close(): Promise<void>;
}

const packageRoot = fileURLToPath(new URL("../..", import.meta.url));

/** Refuses an address beyond this machine without a token. */
export function checkExposure(host: string, token: string | undefined): void {
  if (!isLoopback(host) && !token) {
    throw new VideoRagError("ARGUMENT_INVALID", `--host ${host} exposes the library beyond this machine; set --token or VIDEORAG_TOKEN`);
  }
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const host = options.host ?? "127.0.0.1";
  checkExposure(host, options.token);
  const log = options.log ?? (() => undefined);
  const threads = options.threads
    ? // A Postgres library's threads need its URL (with the password), which the library does not keep: the options give it.
      await startLibraryThreads({ ...options.threads.libraryOptions, path: options.threads.libraryOptions.path ?? options.library.path }, { queryThreads: options.threads.queryThreads })
    : undefined;
  const jobs = createIngestJobs({ library: options.library, dir: join(options.library.path, "jobs"), log, ...(threads ? { ingest: threads.ingest } : {}) });
  const app = createApp({
    library: options.library,
    ...(threads ? { questions: threads } : {}),
    jobs,
    version: packageVersion(),
    token: options.token,
    mediaRoots: options.mediaRoots,
    uploadLimitBytes: options.uploadLimitBytes,
    corsOrigins: options.corsOrigins,
    bindHost: host,
    allowedHosts: options.allowedHosts,
    webRoot: options.webRoot ?? join(packageRoot, "dist", "web"),
    log,
  });
  const listening = new Promise<ServerType>((resolve, reject) => {
    const started = serve({ fetch: app.fetch, hostname: host, port: options.port ?? 7860 }, () => resolve(started));
    started.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        new VideoRagError("ARGUMENT_INVALID", error.code === "EADDRINUSE" ? `port ${options.port} is already in use` : `cannot listen on ${host}: ${error.message}`, {
          cause: error,
        }),
      ),
    );
  });
  let server: ServerType;
  try {
    server = await listening;
  } catch (error) {
    await threads?.close();
    throw error;
  }
  jobs.start();
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : (options.port ?? 7860);
  const urlHost = host.includes(":") ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    close: () =>
      (closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        await jobs.shutdown();
        // Server-sent event streams stay open until their clients leave; a shutdown does not wait for them.
        if ("closeAllConnections" in server) server.closeAllConnections();
        await stopped;
        await threads?.close();
      })()),
  };
}
