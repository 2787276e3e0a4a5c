// The VectorIndex part of the Postgres store: pgvector with an HNSW index per vector space, and the vector writes a
// commit, a write-back and a removal make in their own transactions.

import type { PoolClient } from "pg";
import { checkVector } from "../../graph/merge-graph.js";
import { VideoRagError } from "../../spec/index.js";
import type { VectorIndex, VectorMatch, VectorQuery, VectorRecord, VectorSpace } from "../../spec/index.js";
import { checkRecord } from "../store-checks.js";
import { vectorText, type PostgresContext } from "./postgres-context.js";

async function readyKey(client: PoolClient, id: string): Promise<number | undefined> {
  const { rows } = await client.query<{ key: number }>(`SELECT key FROM videos WHERE id = $1 AND status = 'ready'`, [id]);
  return rows[0]?.key;
}

async function readyKeys(client: PoolClient, ids: string[]): Promise<number[]> {
  const { rows } = await client.query<{ key: number }>(`SELECT key FROM videos WHERE status = 'ready' AND id = ANY($1::text[])`, [ids]);
  return rows.map((row) => row.key);
}

/** Drops the vector spaces left with no vector, with their HNSW index. */
export async function pruneSpaces(client: PoolClient): Promise<void> {
  const { rows } = await client.query<{ key: number }>(
    `DELETE FROM vector_spaces s WHERE NOT EXISTS (SELECT 1 FROM vectors x WHERE x.space_key = s.key) RETURNING key`,
  );
  for (const { key } of rows) await client.query(`DROP INDEX IF EXISTS vectors_hnsw_${Number(key)}`);
}

/** Writes vectors, creating spaces (and their HNSW index) on first use; a wrong dimension is ARGUMENT_INVALID. */
export async function writeVectors(client: PoolClient, videoKey: number, videoId: string, records: VectorRecord[]): Promise<void> {
  const spaces = new Map<string, { key: number; dimensions: number }>();
  for (const record of records) {
    checkRecord(record, videoId);
    let space = spaces.get(record.space);
    if (!space) {
      const found = await client.query<{ key: number; dimensions: number }>(`SELECT key, dimensions FROM vector_spaces WHERE name = $1`, [record.space]);
      space = found.rows[0];
      if (!space) {
        const dimensions = record.vector.length;
        // Two writers creating one space: the second waits on the unique name, then reads the first one's row.
        const inserted = await client.query<{ key: number }>(
          `INSERT INTO vector_spaces (name, dimensions) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING key`,
          [record.space, dimensions],
        );
        const key = inserted.rows[0]?.key;
        if (key === undefined) {
          space = (await client.query<{ key: number; dimensions: number }>(`SELECT key, dimensions FROM vector_spaces WHERE name = $1`, [record.space])).rows[0];
        } else {
          space = { key, dimensions };
          // HNSW needs one dimension per index: a partial index per space over its vectors cast to that dimension.
          if (dimensions <= 2000) {
            await client.query(
              `CREATE INDEX IF NOT EXISTS vectors_hnsw_${Number(key)} ON vectors
                USING hnsw ((embedding::vector(${Number(dimensions)})) vector_cosine_ops) WHERE space_key = ${Number(key)}`,
            );
          }
        }
      }
      if (!space) throw new VideoRagError("STORE_FAILED", `the vector space ${record.space} vanished while being written`);
      spaces.set(record.space, space);
    }
    if (record.vector.length !== space.dimensions) {
      throw new VideoRagError(
        "ARGUMENT_INVALID",
        `space "${record.space}" holds ${space.dimensions}-dimensional vectors; ${videoId} clip ${record.clipIndex} ` +
          `brought one with ${record.vector.length} dimensions`,
      );
    }
  }
  if (records.length === 0) return;
  await client.query(
    `INSERT INTO vectors (space_key, video_key, owner, clip_index, time_second, embedding)
      SELECT v.space_key, $1, v.owner, v.clip_index, v.time_second, v.embedding::vector
      FROM unnest($2::integer[], $3::text[], $4::integer[], $5::float8[], $6::text[]) AS v(space_key, owner, clip_index, time_second, embedding)
      ON CONFLICT (video_key, space_key, owner, clip_index, (coalesce(time_second, -1))) DO UPDATE SET embedding = excluded.embedding`,
    [
      videoKey,
      records.map((record) => spaces.get(record.space)?.key),
      records.map((record) => record.owner),
      records.map((record) => record.clipIndex),
      records.map((record) => record.timeSecond ?? null),
      records.map((record) => vectorText(record.vector)),
    ],
  );
}

/** The VectorIndex over a shared context. */
export class PostgresVectorIndex implements VectorIndex {
  constructor(private readonly context: PostgresContext) {}

  async addVectors(videoId: string, records: VectorRecord[]): Promise<void> {
    await this.context.write(`cannot add vectors to ${videoId}`, async (client) => {
      const key = await readyKey(client, videoId);
      if (key === undefined) throw new VideoRagError("VIDEO_NOT_FOUND", `no video ${videoId} to add vectors to`, { subject: videoId });
      await writeVectors(client, key, videoId, records);
    });
  }

  /**
   * Nearest first by cosine distance. Restricted to some videos, the search is exact over their vectors; over a whole
   * space it reads the space's HNSW index (approximate, with `ef_search` at least 100 and an iterative scan so an owner
   * filter still fills the limit).
   */
  async searchVectors(query: VectorQuery): Promise<VectorMatch[]> {
    if (!(query.limit >= 0) || !Number.isFinite(query.limit)) throw new VideoRagError("ARGUMENT_INVALID", "a vector search needs a limit ≥ 0");
    checkVector(query.vector, "the query vector");
    if (query.vector.every((value) => value === 0)) {
      throw new VideoRagError("ARGUMENT_INVALID", "the query vector is all zeros, so no cosine distance can be taken");
    }
    return this.context.write("cannot search vectors", async (client) => {
      const space = (await client.query<{ key: number; dimensions: number }>(`SELECT key, dimensions FROM vector_spaces WHERE name = $1`, [query.space])).rows[0];
      if (!space) return [];
      if (space.dimensions !== query.vector.length) {
        throw new VideoRagError(
          "ARGUMENT_INVALID",
          `space "${query.space}" holds ${space.dimensions}-dimensional vectors; the query vector has ${query.vector.length} dimensions`,
        );
      }
      const limit = Math.floor(query.limit);
      if (limit === 0) return [];
      const parameters: unknown[] = [vectorText(query.vector), limit];
      let filters = "";
      if (query.owner !== undefined) {
        parameters.push(query.owner);
        filters += ` AND x.owner = $${parameters.length}`;
      }
      let distance = `(x.embedding::vector(${Number(space.dimensions)}) <=> $1::vector(${Number(space.dimensions)}))`;
      if (query.videoIds) {
        const keys = await readyKeys(client, query.videoIds);
        if (keys.length === 0) return [];
        parameters.push(keys);
        filters += ` AND x.video_key = ANY($${parameters.length}::bigint[])`;
        // Not the indexed expression: the planner scans these videos' vectors exactly instead of the whole index.
        distance = `(x.embedding <=> $1::vector)`;
      } else {
        await client.query(`SET LOCAL hnsw.ef_search = ${Math.min(1000, Math.max(100, limit * 2))}`);
        await client.query(`SET LOCAL hnsw.iterative_scan = strict_order`);
      }
      const { rows } = await client.query<{ video_id: string; clip_index: number; time_second: number | null; distance: number }>(
        `SELECT v.id AS video_id, m.clip_index, m.time_second, m.distance FROM (
            SELECT x.video_key, x.clip_index, x.time_second, ${distance}::float8 AS distance, x.key
            FROM vectors x WHERE x.space_key = ${Number(space.key)}${filters}
            ORDER BY ${distance}, x.key LIMIT $2
          ) m JOIN videos v ON v.key = m.video_key AND v.status = 'ready'
          ORDER BY m.distance, m.key`,
        parameters,
      );
      return rows
        .filter((row) => Number.isFinite(row.distance))
        .map((row) => ({ videoId: row.video_id, clipIndex: row.clip_index, ...(row.time_second === null ? {} : { timeSecond: row.time_second }), distance: row.distance }));
    });
  }

  async vectorSpaces(): Promise<VectorSpace[]> {
    return this.context.read("cannot list vector spaces", async (client) =>
      (
        await client.query<VectorSpace>(
          `SELECT s.name AS space, s.dimensions, count(*)::integer AS count FROM vector_spaces s JOIN vectors x ON x.space_key = s.key
            GROUP BY s.key ORDER BY s.name COLLATE "C"`,
        )
      ).rows,
    );
  }

  async vectorCount(videoId?: string): Promise<number> {
    return this.context.read("cannot count vectors", async (client) => {
      const { rows } =
        videoId === undefined
          ? await client.query<{ count: number }>(`SELECT count(*) AS count FROM vectors`)
          : await client.query<{ count: number }>(
              `SELECT count(*) AS count FROM vectors x JOIN videos v ON v.key = x.video_key WHERE v.id = $1 AND v.status = 'ready'`,
              [videoId],
            );
      return rows[0]?.count ?? 0;
    });
  }
}
