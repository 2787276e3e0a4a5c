// What every part of the Postgres store shares: the pool with its reads and retried transactions, the mapping of `pg`'s
// errors to ours, the background vacuum of the posting lists, the lexical index and the cache of decoded segment blocks,
// and a video's segments as stored (segment blocks, and their speakers' labels), which the catalog and the extraction
// ledger both write.

import type pg from "pg";
import type { PoolClient } from "pg";
import { VideoRagError } from "../../spec/index.js";
import type { Segment } from "../../spec/index.js";
import { BlockCache } from "../block-cache.js";
import { deflateSegmentBlocks, encodeSegmentBlocks, SegmentBlockView } from "../packed-text.js";
import { speakerLabels } from "../shared-speaker-rows.js";
import { Fts5Tokens } from "./fts5-tokens.js";
import { LexicalIndex } from "./lexical-index.js";

// Postgres error classes that mean the server is gone or going (57P: operator intervention, 08: connection exception).
const unavailableCodes = /^(57P0[1-3]|08\d\d\d|ECONNREFUSED|ECONNRESET|ENOTFOUND|EHOSTUNREACH|ETIMEDOUT|EPIPE)$/;
// Deadlock and serialization failure: the transaction is tried again, as a whole.
const conflictCodes = new Set(["40P01", "40001"]);

function errorCode(error: unknown): string {
  return typeof error === "object" && error !== null ? String((error as { code?: unknown }).code ?? "") : "";
}

/**
 * The share of `lexical_postings`' blocks a store deletes before it vacuums the table (see `vacuumPostings`). Each vacuum
 * reads the table's index whole. Ingesting the 8,648 how-to transcripts vacuums 279 times at 10%, 1,213 at 2%, in the
 * same 400 s, for 95 against 92 MB of posting lists; the synthetic 100-hour library is 63 MB (62 at 2%, 65 at 20%).
 */
const vacuumAfter = 0.1;

/** Maps what `pg` throws to our codes: the server unreachable is STORE_UNAVAILABLE (retryable), the rest STORE_FAILED. */
export function storeError(error: unknown, action: string, where: string): VideoRagError {
  if (VideoRagError.isInstance(error)) return error;
  const code = errorCode(error);
  const message = error instanceof Error ? error.message : String(error);
  if (unavailableCodes.test(code) || /Connection terminated|connection timeout|Client has encountered a connection error/i.test(message)) {
    return new VideoRagError("STORE_UNAVAILABLE", `${action}: the database at ${where} cannot be reached (${message})`, {
      cause: error,
      retryable: true,
      subject: where,
    });
  }
  if (conflictCodes.has(code)) {
    return new VideoRagError("STORE_LOCKED", `${action}: other writers kept conflicting (${message})`, { cause: error, retryable: true, subject: where });
  }
  return new VideoRagError("STORE_FAILED", `${action}: ${message}`, { cause: error, subject: where });
}

/** A vector as pgvector's text form; float32 values print exactly and parse back to the same float32. */
export const vectorText = (vector: Float32Array): string => `[${Array.from(vector).join(",")}]`;

/** The state the parts of one store share; `close` ends it (idempotent). */
export class PostgresContext {
  private readonly tokens = new Fts5Tokens();
  readonly lexical: LexicalIndex;
  /** Segment blocks decoded for reads before (see block-cache.ts). */
  readonly blockCache = new BlockCache();
  private closed = false;
  /** The vacuum of the posting lists under way, if any (see `vacuumPostings`). */
  private vacuum: Promise<void> | undefined;
  /** Live posting blocks when the last vacuum ended, from which the next is due. */
  private postingBlocks = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly where: string,
    readAtOnce: number,
  ) {
    this.lexical = new LexicalIndex(this.tokens, readAtOnce);
  }

  /** Runs `work` on one connection outside a transaction (reads). */
  async read<T>(action: string, work: (client: PoolClient) => Promise<T>): Promise<T> {
    let client: PoolClient | undefined;
    let failed = false;
    try {
      client = await this.pool.connect();
      return await work(client);
    } catch (error) {
      failed = true;
      throw storeError(error, action, this.where);
    } finally {
      // A connection that saw an error may be broken (a restarted server): it is closed rather than reused.
      client?.release(failed);
    }
  }

  /**
   * Vacuums `lexical_postings` in the background once this store's writes have deleted `vacuumAfter` of its blocks.
   * Merges delete blocks about as fast as writes add them, and a deleted block's space is reused only once a vacuum has
   * passed. Autovacuum looks once a minute (`autovacuum_naptime`), so an ingest faster than that grows the table to its
   * peak of dead blocks: the synthetic 100-hour library was built in 52 s at 120 MB, and at 64 MB with a vacuum each
   * second. SKIP_LOCKED: a vacuum already running (another worker's, or autovacuum's) is enough. A vacuum that fails is
   * left to autovacuum; the write it follows has committed.
   */
  private vacuumPostings(): void {
    if (this.vacuum || this.closed || this.lexical.deletedBlocks < vacuumAfter * this.postingBlocks + 50) return;
    this.lexical.vacuumed();
    this.vacuum = (async () => {
      const client = await this.pool.connect();
      let failed = false;
      try {
        await client.query("VACUUM (SKIP_LOCKED) lexical_postings");
        const { rows } = await client.query<{ blocks: number }>(`SELECT reltuples AS blocks FROM pg_class WHERE oid = 'lexical_postings'::regclass`);
        this.postingBlocks = Math.max(0, Number(rows[0]?.blocks ?? 0));
      } catch {
        failed = true;
      } finally {
        client.release(failed);
      }
    })()
      .catch(() => undefined)
      .finally(() => {
        this.vacuum = undefined;
      });
  }

  /** Runs `work` in a transaction, tried again (from the start) when it deadlocks with another writer. */
  async write<T>(action: string, work: (client: PoolClient) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      let client: PoolClient | undefined;
      let failed = false;
      try {
        client = await this.pool.connect();
        await client.query("BEGIN");
        const result = await work(client);
        await client.query("COMMIT");
        this.vacuumPostings();
        return result;
      } catch (error) {
        failed = true;
        await client?.query("ROLLBACK").catch(() => undefined);
        if (conflictCodes.has(errorCode(error)) && attempt < 5) continue;
        throw storeError(error, action, this.where);
      } finally {
        client?.release(failed);
      }
    }
  }

  /** Closes the tokenizer, waits for a vacuum under way and ends the pool; closing again does nothing. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.tokens.close();
    await this.vacuum;
    await this.pool.end();
  }
}

/** Writes videos' segments as blocks (see packed-text.ts). */
export async function insertSegmentBlocks(client: PoolClient, videos: { videoKey: number; segments: Segment[] }[]): Promise<void> {
  const blocks = videos.flatMap(({ videoKey, segments }) => encodeSegmentBlocks(segments, deflateSegmentBlocks).map((block) => ({ videoKey, ...block })));
  if (blocks.length === 0) return;
  await client.query(
    `INSERT INTO segment_blocks (video_key, block_index, min_start_second, max_start_second, max_end_second, data)
      SELECT * FROM unnest($1::bigint[], $2::integer[], $3::float8[], $4::float8[], $5::float8[], $6::bytea[])`,
    [
      blocks.map((block) => block.videoKey),
      blocks.map((block) => block.blockIndex),
      blocks.map((block) => block.minStartSecond),
      blocks.map((block) => block.maxStartSecond),
      blocks.map((block) => block.maxEndSecond),
      blocks.map((block) => block.data),
    ],
  );
}

/** A video's segments in the order they were written. */
export async function readSegments(client: PoolClient, videoKey: number): Promise<Segment[]> {
  const { rows } = await client.query<{ data: Buffer }>(`SELECT data FROM segment_blocks WHERE video_key = $1 ORDER BY block_index`, [videoKey]);
  return rows.flatMap((row) => new SegmentBlockView(row.data).segments());
}

/** Replaces a video's segments with these, in this order, and the list of their speakers' labels (schema 6). */
export async function writeSegments(client: PoolClient, videoKey: number, segments: Segment[]): Promise<void> {
  await client.query(`DELETE FROM segment_blocks WHERE video_key = $1`, [videoKey]);
  await client.query(`DELETE FROM segment_speakers WHERE video_key = $1`, [videoKey]);
  await insertSegmentBlocks(client, [{ videoKey, segments }]);
  const labels = speakerLabels(segments);
  if (labels.length === 0) return;
  await client.query(`INSERT INTO segment_speakers (video_key, label, label_key) SELECT $1, * FROM unnest($2::text[], $3::text[])`, [
    videoKey,
    labels.map((entry) => entry.label),
    labels.map((entry) => entry.key),
  ]);
}
