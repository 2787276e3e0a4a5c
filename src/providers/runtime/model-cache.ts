// The cache of model outputs: one SQLite table keyed by cacheKey(), so a second ingest of the same media makes no model
// calls. JSON values are stored as text and Float32Array vectors as their raw bytes; the memory version stores the
// same encoding, so tests see what the file would give back.

import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { VideoRagError } from "../../spec/index.js";

/** What a cached output is about, recorded so the cache can be cleared and counted per model. */
export interface CacheEntryInfo {
  model: string;
  /** The method that produced it, e.g. "embed" or "chat". */
  kind: string;
}

/** How much the cache holds, in all and per model id. */
export interface ModelCacheStats {
  entries: number;
  sizeBytes: number;
  models: Record<string, { entries: number; sizeBytes: number }>;
}

/** Model outputs by cache key. A value is JSON-serialisable data or a Float32Array; `get` returns a fresh copy. */
export interface ModelCache {
  get(key: string): unknown;
  set(key: string, value: unknown, entry: CacheEntryInfo): void;
  /** Removes every entry, or only those of one model id; returns how many were removed. */
  clear(model?: string): number;
  stats(): ModelCacheStats;
  close(): void;
}

type Encoded = string | Buffer;

function encode(value: unknown): Encoded {
  if (value instanceof Float32Array) return Buffer.from(value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength));
  const json = JSON.stringify(value);
  if (json === undefined) throw new TypeError("the model cache stores JSON values and Float32Arrays only");
  return json;
}

function decode(encoded: Encoded): unknown {
  if (typeof encoded === "string") return JSON.parse(encoded);
  // Copied into a fresh buffer: SQLite's bytes need not be 4-byte aligned.
  const bytes = new Uint8Array(encoded.byteLength);
  bytes.set(encoded);
  return new Float32Array(bytes.buffer);
}

function summarise(rows: { model: string; entries: number; sizeBytes: number }[]): ModelCacheStats {
  const stats: ModelCacheStats = { entries: 0, sizeBytes: 0, models: {} };
  for (const row of rows) {
    stats.entries += row.entries;
    stats.sizeBytes += row.sizeBytes;
    stats.models[row.model] = { entries: row.entries, sizeBytes: row.sizeBytes };
  }
  return stats;
}

const schema = `
  CREATE TABLE IF NOT EXISTS outputs (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    kind TEXT NOT NULL,
    value BLOB NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS outputs_model ON outputs (model);
`;

/** Opens (creating if needed) the SQLite model cache at `path`. Fails with STORE_FAILED naming the path. */
export function createModelCache(path: string): ModelCache {
  const failed = (action: string, error: unknown): VideoRagError =>
    new VideoRagError("STORE_FAILED", `the model cache could not ${action}: ${error instanceof Error ? error.message : String(error)}`, {
      subject: path,
      cause: error,
    });
  const guard = <T>(action: string, work: () => T): T => {
    try {
      return work();
    } catch (error) {
      throw failed(action, error);
    }
  };

  const db = guard("be opened", () => {
    mkdirSync(dirname(path), { recursive: true });
    const opened = new Database(path);
    opened.pragma("journal_mode = WAL");
    // An ingest and a server may share one cache; a writer waits briefly for the other instead of failing.
    opened.pragma("busy_timeout = 5000");
    opened.exec(schema);
    return opened;
  });
  const statements = {
    get: db.prepare("SELECT value FROM outputs WHERE key = ?").pluck(),
    set: db.prepare("INSERT OR REPLACE INTO outputs (key, model, kind, value, created_at) VALUES (?, ?, ?, ?, ?)"),
    clearAll: db.prepare("DELETE FROM outputs"),
    clearModel: db.prepare("DELETE FROM outputs WHERE model = ?"),
    stats: db.prepare(
      "SELECT model, COUNT(*) AS entries, SUM(length(CAST(value AS BLOB))) AS sizeBytes FROM outputs GROUP BY model ORDER BY model",
    ),
  };

  return {
    get(key) {
      const encoded = guard("be read", () => statements.get.get(key)) as Encoded | undefined;
      return encoded === undefined ? undefined : decode(encoded);
    },
    set(key, value, entry) {
      const encoded = encode(value);
      guard("be written", () => statements.set.run(key, entry.model, entry.kind, encoded, new Date().toISOString()));
    },
    clear(model) {
      return guard("be cleared", () => (model === undefined ? statements.clearAll.run() : statements.clearModel.run(model)).changes);
    },
    stats() {
      return summarise(guard("be read", () => statements.stats.all()) as { model: string; entries: number; sizeBytes: number }[]);
    },
    close() {
      if (db.open) db.close();
    },
  };
}

/** A model cache that lives as long as the process: for tests, and for runs without a library folder. */
export function createMemoryModelCache(): ModelCache {
  const entries = new Map<string, CacheEntryInfo & { encoded: Encoded }>();
  return {
    get(key) {
      const entry = entries.get(key);
      return entry === undefined ? undefined : decode(entry.encoded);
    },
    set(key, value, entry) {
      entries.set(key, { model: entry.model, kind: entry.kind, encoded: encode(value) });
    },
    clear(model) {
      let removed = 0;
      for (const [key, entry] of entries) {
        if (model !== undefined && entry.model !== model) continue;
        entries.delete(key);
        removed++;
      }
      return removed;
    },
    stats() {
      const byModel = new Map<string, { model: string; entries: number; sizeBytes: number }>();
      for (const { model, encoded } of entries.values()) {
        const row = byModel.get(model) ?? { model, entries: 0, sizeBytes: 0 };
        row.entries++;
        row.sizeBytes += Buffer.byteLength(encoded);
        byModel.set(model, row);
      }
      return summarise([...byModel.values()]);
    },
    close() {},
  };
}
