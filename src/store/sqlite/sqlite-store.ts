// The default Store: one SQLite file (WAL) with metadata tables, resumable stage rows, FTS5 indexes for BM25 (over clip
// documents, whole videos and chapters), a table of embedding vectors searched with sqlite-vec, and the knowledge graph
// (chunks, entities, relations and the chunks that stated each), merged across videos as they commit. Each part of the
// Store is a file of its own (sqlite-catalog.ts, sqlite-text-index.ts, sqlite-vectors.ts, sqlite-graph.ts,
// sqlite-ledger.ts, sqlite-chapters.ts, sqlite-speakers.ts) over the state they share (sqlite-context.ts); this file opens the library and
// composes them.

import { createRequire } from "node:module";
import Database from "better-sqlite3";
import type * as SqliteVec from "sqlite-vec";
import type { Store } from "../../spec/index.js";
import { composeStore } from "../compose-store.js";
import { SqliteCatalog } from "./sqlite-catalog.js";
import { SqliteChapters } from "./sqlite-chapters.js";
import { SqliteContext, storeError } from "./sqlite-context.js";
import { SqliteGraph } from "./sqlite-graph.js";
import { SqliteGraphWrites } from "./sqlite-graph-writes.js";
import { SqliteLedger } from "./sqlite-ledger.js";
import { migrate } from "./sqlite-schema.js";
import { SqliteSpeakers } from "./sqlite-speakers.js";
import { rebuildLexicalIndexes, reindexSpaceless, SqliteTextIndex } from "./sqlite-text-index.js";
import { SqliteVectorIndex } from "./sqlite-vectors.js";

export { rebuildLexicalIndexes };

export interface SqliteStoreOptions {
  /** How long a write waits for another process's write to finish before failing with STORE_LOCKED; default 5000. */
  busyTimeoutMs?: number;
  /**
   * Loads sqlite-vec into the connection; defaults to the `sqlite-vec` package. When it throws, the library still opens
   * and works, and only `searchVectors` fails (tests pass a failing loader to check that).
   */
  loadVectorExtension?: (db: { loadExtension(file: string): void }) => void;
  /**
   * Up to this many entity vectors of one type, a new name is compared with every one of them; beyond it, only with
   * those sharing a locality-sensitive bucket (about 2% of them; a near name is missed with probability ≤ 2%). Default
   * 2,000, where the exact comparison takes about 2 ms.
   */
  exactMergeScanLimit?: number;
}

const requireModule = createRequire(import.meta.url);

/** sqlite-vec is required when a library opens, not imported, so that a missing package breaks vector search only. */
function loadSqliteVec(db: { loadExtension(file: string): void }): void {
  (requireModule("sqlite-vec") as typeof SqliteVec).load(db);
}

/** See `SqliteStoreOptions.exactMergeScanLimit`. */
const defaultExactMergeScanLimit = 2000;

/** Opens (creating if needed) a library file. Throws STORE_FAILED when it cannot be opened or is from a newer version. */
export function openSqliteStore(path: string, options: SqliteStoreOptions = {}): Store {
  let db: Database.Database;
  try {
    db = new Database(path, { timeout: options.busyTimeoutMs ?? 5000 });
    db.pragma("journal_mode = WAL");
    // NORMAL is durable across application crashes in WAL mode; only an OS crash can lose the last commits.
    db.pragma("synchronous = NORMAL");
    db.pragma("foreign_keys = ON");
    // Reads through the OS page cache, shared by every connection (the server's threads, the CLI), instead of each
    // connection copying pages into a cache of its own; a larger private cache for what is still copied.
    db.pragma("mmap_size = 1073741824");
    db.pragma("cache_size = -65536");
    migrate(db, path, undefined, { rebuildLexicalIndexes, reindexSpaceless });
  } catch (error) {
    throw storeError(error, `cannot open the library ${path}`, path);
  }
  let vectorSearchUnavailable: string | undefined;
  try {
    (options.loadVectorExtension ?? loadSqliteVec)(db);
  } catch (error) {
    vectorSearchUnavailable = error instanceof Error ? error.message : String(error);
  }
  const context = new SqliteContext(db, path);
  const vectorIndex = new SqliteVectorIndex(context, vectorSearchUnavailable);
  const graphWrites = new SqliteGraphWrites(context, vectorSearchUnavailable, options.exactMergeScanLimit ?? defaultExactMergeScanLimit);
  const chapters = new SqliteChapters(context);
  const ledger = new SqliteLedger(context, vectorIndex, graphWrites, chapters);
  const speakers = new SqliteSpeakers(context);
  return composeStore({
    catalog: new SqliteCatalog(context, { ledger, vectors: vectorIndex, graphWrites, chapters, speakers }),
    textIndex: new SqliteTextIndex(context),
    vectorIndex,
    graph: new SqliteGraph(context, graphWrites),
    ledger,
    chapters,
    speakers,
    close: async () => {
      context.termLists.close();
      if (db.open) db.close();
    },
  });
}
