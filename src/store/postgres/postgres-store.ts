// The Store on PostgreSQL with pgvector, for libraries shared by several machines: ingest workers write, any number of
// servers read. Same behaviour as the SQLite store (one conformance suite), with Postgres's tools: transactions under
// READ COMMITTED retried on deadlock, identity keys and a sequence for change numbers, pgvector with an HNSW index per
// vector space, and BM25 computed in SQL from term statistics (lexical-index.ts) so ranking matches SQLite's.
// This file opens a library and composes the store from its parts, one file each: postgres-catalog.ts,
// postgres-text-index.ts, postgres-vectors.ts, postgres-graph.ts (with postgres-graph-writes.ts), postgres-ledger.ts,
// postgres-chapters.ts and postgres-speakers.ts, over the state they share (postgres-context.ts).

import pg from "pg";
import { VideoRagError } from "../../spec/index.js";
import type { Store } from "../../spec/index.js";
import { composeStore } from "../compose-store.js";
import { redactUrl } from "./postgres-url.js";
import { defaultReadAtOnce } from "./lexical-index.js";
import { PostgresCatalog } from "./postgres-catalog.js";
import { PostgresChapters } from "./postgres-chapters.js";
import { PostgresContext, storeError } from "./postgres-context.js";
import { PostgresGraph } from "./postgres-graph.js";
import { PostgresLedger } from "./postgres-ledger.js";
import { migrationHooks } from "./postgres-migrations.js";
import { migratePostgres } from "./postgres-schema.js";
import { PostgresSpeakers } from "./postgres-speakers.js";
import { PostgresTextIndex } from "./postgres-text-index.js";
import { PostgresVectorIndex } from "./postgres-vectors.js";

export interface PostgresStoreOptions {
  /** Connections kept open (default 4): one per concurrent reader or writer of this process. */
  maxConnections?: number;
  /** Give up connecting after this long (default 10 s). */
  connectTimeoutMs?: number;
  /**
   * Postings a lexical search reads with its terms' statistics, in one statement, when its terms' lists hold no more
   * (default 20,000); longer lists are read as MaxScore needs them. 0 always prunes (tests of pruning use it).
   */
  readPostingsAtOnce?: number;
}

/**
 * Opens a library database, creating its tables (and the pgvector extension) when it is new. Throws STORE_UNAVAILABLE
 * when the server cannot be reached, STORE_FAILED when the database cannot be used (no pgvector, no rights, newer schema).
 */
export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<Store> {
  const where = redactUrl(url);
  const pool = new pg.Pool({
    connectionString: url,
    max: options.maxConnections ?? 4,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    // Keys, counts and sizes are bigint: read them as numbers (a library stays far below 2^53 rows).
    types: { getTypeParser: (oid: number, format?: "text" | "binary") => (oid === 20 ? Number : pg.types.getTypeParser(oid, format ?? "text")) } as pg.CustomTypesConfig,
  });
  // An idle connection dropped by a restarting server must not end the process; the next query reconnects.
  pool.on("error", () => undefined);
  try {
    const client = await pool.connect();
    try {
      await migratePostgres(client, where, migrationHooks);
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end().catch(() => undefined);
    const failure = storeError(error, "cannot open the library", where);
    if (/extension "vector"/.test(failure.message)) {
      throw new VideoRagError(
        "STORE_FAILED",
        `cannot open the library at ${where}: the pgvector extension is not available there (install your distribution's ` +
          "postgresql-NN-pgvector package, or run the pgvector/pgvector image, then `CREATE EXTENSION vector` as a superuser)",
        { cause: error, subject: where },
      );
    }
    throw failure;
  }
  const context = new PostgresContext(pool, where, options.readPostingsAtOnce ?? defaultReadAtOnce);
  return composeStore({
    catalog: new PostgresCatalog(context),
    textIndex: new PostgresTextIndex(context),
    vectorIndex: new PostgresVectorIndex(context),
    graph: new PostgresGraph(context),
    ledger: new PostgresLedger(context),
    chapters: new PostgresChapters(context),
    speakers: new PostgresSpeakers(context),
    close: () => context.close(),
  });
}
