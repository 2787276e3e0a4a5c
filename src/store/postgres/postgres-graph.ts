// The GraphStore part of the Postgres store: entities, relations and the chunks they come from as a search reads them,
// and the synthesised descriptions it sets. Its writes during a commit or a write-back are in postgres-graph-writes.ts.

import type { PoolClient } from "pg";
import { gatherRelation } from "../../graph/merge-graph.js";
import { VideoRagError } from "../../spec/index.js";
import type { Chunk, EntityDescriptionUpdate, EntityMatch, GraphEntity, GraphRelation, GraphSource, GraphStats, GraphStore } from "../../spec/index.js";
import { toChunk, toGraphEntity, type ChunkRow, type EntityRow } from "../shared-graph-rows.js";
import { toEntityMatches } from "../shared-matches.js";
import { checkCount, commonEntityShare, defaultChunksPerEntity, defaultRelationsPerEntity, entityFieldWeights, termWeights } from "../store-checks.js";
import { prepared } from "./prepared.js";
import { chunkBlocks, SegmentBlocks, withSegmentBlocks, type BlockColumns, type ChunkTextColumns, type DescriptionColumns } from "./packed-rows.js";
import type { PostgresContext } from "./postgres-context.js";
import { entityFields, entityKeysByName, forgetEntities, indexEntities } from "./postgres-graph-writes.js";

interface SourceRow {
  owner_key: number;
  video_id: string;
  chunk_index: number;
  clip_start: number;
  clip_end: number;
  description: string;
  strength: number;
  /** Read with a limit: its place among its owner's sources, from 1. */
  turn?: number;
  /** Read with a limit, of a relation: whether it is the source its description comes from. */
  strongest?: boolean;
  /** Read with a limit, of a relation: the sum of all its sources' strengths. */
  total?: number;
}

/** A source row as read, its description still packed (see packed-rows.ts). */
type StoredSourceRow = Omit<SourceRow, "description"> & DescriptionColumns & ChunkTextColumns & { video_key: number };

/**
 * A source as the Store gives it. Its description is read when first used: a relation's sources are many, and graph
 * retrieval reads their chunks, not their text; decoding each excerpt's segment blocks up front was most of its time.
 */
const toSource = (row: SourceRow): GraphSource =>
  lazyDescription({ videoId: row.video_id, chunkIndex: row.chunk_index, clipStart: row.clip_start, clipEnd: row.clip_end }, () => row.description);

/** Gives `target` an enumerable `description` computed by `describe` when first read, then kept. */
function lazyDescription<Target extends object>(target: Target, describe: () => string): Target & { description: string } {
  let description: string | undefined;
  return Object.defineProperty(target, "description", { enumerable: true, get: () => (description ??= describe()) }) as Target & { description: string };
}

const entityColumns = `e.key, e.name_key, e.name, e.type, e.description, e.stale, e.change_sequence`;
// Reads a graph search makes.
const entitiesByKey = prepared(`SELECT ${entityColumns} FROM entities e WHERE e.key = ANY($1::bigint[])`);
/** Up to $3 chunks of each entity, round-robin over its videos (so a limit keeps chunks from as many as it can). */
const chunksOfEntities = prepared(
  `SELECT entity_key AS "entityKey", video_id AS "videoId", chunk_index AS "chunkIndex" FROM (
      SELECT entity_key, video_id, chunk_index,
        row_number() OVER (PARTITION BY entity_key ORDER BY turn, video_id COLLATE "C", chunk_index) AS position
      FROM (
        SELECT s.entity_key, v.id AS video_id, s.chunk_index,
          row_number() OVER (PARTITION BY s.entity_key, s.video_key ORDER BY s.chunk_index) AS turn
        FROM entity_sources s JOIN videos v ON v.key = s.video_key
        WHERE s.entity_key = ANY($1::bigint[]) AND v.status = 'ready' AND ($2::text[] IS NULL OR v.id = ANY($2::text[]))
      ) ranked
    ) positioned WHERE position <= $3 ORDER BY entity_key, position`,
);
const relationsAmongEntities = prepared(`SELECT key, source_key, target_key FROM relations WHERE source_key = ANY($1::bigint[]) AND target_key = ANY($1::bigint[])`);
/** Chunks by video id and index, in the order asked, with the segment blocks their text is packed from. */
const chunksAt = prepared(
  withSegmentBlocks(
    `SELECT k.position, c.video_key, v.id AS video_id, c.chunk_index, c.clip_start, c.clip_end, c.start_second, c.end_second, c.text,
        c.packed_text, c.packed_first_block, c.packed_last_block, c.token_count
      FROM unnest($1::text[], $2::integer[]) WITH ORDINALITY AS k(video_id, chunk_index, position)
        JOIN videos v ON v.id = k.video_id AND v.status = 'ready'
        JOIN chunks c ON c.video_key = v.key AND c.chunk_index = k.chunk_index`,
    chunkBlocks,
  ),
);
/** The sources of entities or relations in ready videos, ordered by owner, video id and chunk, with their chunks' text. */
const readySourcesOf = {
  entity_sources: prepared(readySourcesSql("entity_sources", "entity_key", false)),
  relation_sources: prepared(readySourcesSql("relation_sources", "relation_key", false)),
};
/**
 * The first $2 sources of each owner, as `readySourcesOf` orders them (`turn`); a relation's also with its strongest
 * source (`strongest`, the one its description comes from) and the sum of all its sources' strengths (`total`).
 */
const firstSourcesOf = {
  entity_sources: prepared(readySourcesSql("entity_sources", "entity_key", true)),
  relation_sources: prepared(readySourcesSql("relation_sources", "relation_key", true)),
};

/**
 * `limited`: only the first $2 sources of each owner, numbered from sources and videos alone before their chunks are
 * joined (without, the subquery is a plain join the planner flattens); of a relation, also its strongest source and its
 * total strength, so that neither needs every source read.
 */
function readySourcesSql(table: "entity_sources" | "relation_sources", owner: "entity_key" | "relation_key", limited: boolean): string {
  const summed = limited && table === "relation_sources";
  const sources = `SELECT s.${owner} AS owner_key, s.video_key, v.id AS video_id, s.chunk_index, s.description, s.excerpt,
          ${table === "relation_sources" ? "s.strength" : "0::float8"} AS strength
          ${limited ? `, row_number() OVER (PARTITION BY s.${owner} ORDER BY v.id COLLATE "C", s.chunk_index) AS turn` : ""}
          ${summed ? `, max(s.strength) OVER (PARTITION BY s.${owner}) AS top, sum(s.strength) OVER (PARTITION BY s.${owner}) AS total` : ""}
        FROM ${table} s JOIN videos v ON v.key = s.video_key
        WHERE s.${owner} = ANY($1::bigint[]) AND v.status = 'ready'`;
  // The strongest is the first source of the greatest strength, found in the one order the turns took (one sort).
  return withSegmentBlocks(
    `SELECT row_number() OVER (ORDER BY s.owner_key, s.video_id COLLATE "C", s.chunk_index) AS position, s.owner_key, s.video_key, s.video_id,
        s.chunk_index, c.clip_start, c.clip_end, s.description, s.excerpt, c.text, c.packed_text, c.packed_first_block, c.packed_last_block, s.strength
        ${limited ? ", s.turn" : ""}${summed ? ", s.strongest, s.total" : ""}
      FROM (
        ${summed ? `SELECT s.*, s.turn = min(s.turn) FILTER (WHERE s.strength = s.top) OVER (PARTITION BY s.owner_key) AS strongest FROM (${sources}) s` : sources}
      ) s JOIN chunks c ON c.video_key = s.video_key AND c.chunk_index = s.chunk_index
      ${limited ? `WHERE s.turn <= $2${summed ? " OR s.strongest" : ""}` : ""}`,
    chunkBlocks,
  );
}

/** The GraphStore over a shared context. */
export class PostgresGraph implements GraphStore {
  constructor(private readonly context: PostgresContext) {}

  /** Entities with their sources: every one, or the first `limit` of each. */
  private async withSources(client: PoolClient, rows: EntityRow[], limit?: number): Promise<GraphEntity[]> {
    if (rows.length === 0) return [];
    const sources = new Map<number, GraphSource[]>();
    for (const row of await this.readySources(client, "entity_sources", rows.map((entity) => entity.key), limit)) {
      const own = sources.get(row.owner_key) ?? [];
      own.push(toSource(row));
      sources.set(row.owner_key, own);
    }
    return rows.map((row) => toGraphEntity(row, sources.get(row.key) ?? []));
  }

  /** The sources of these owners: every one, or the first `limit` of each (and a relation's strongest). */
  private async readySources(client: PoolClient, table: "entity_sources" | "relation_sources", keys: number[], limit?: number): Promise<SourceRow[]> {
    if (limit === 0 && table === "entity_sources") return [];
    const read = await client.query<StoredSourceRow & { position: number } & BlockColumns>(
      limit === undefined ? { ...readySourcesOf[table], values: [keys] } : { ...firstSourcesOf[table], values: [keys, limit] },
    );
    const { rows, blocks } = SegmentBlocks.split(read.rows, this.context.blockCache);
    return rows
      .sort((x, y) => x.position - y.position)
      .map((row) =>
        lazyDescription(
          {
            owner_key: row.owner_key,
            video_id: row.video_id,
            chunk_index: row.chunk_index,
            clip_start: row.clip_start,
            clip_end: row.clip_end,
            strength: row.strength,
            ...(limit === undefined ? {} : { turn: Number(row.turn), strongest: row.strongest, total: row.total }),
          },
          () => blocks.description(row.video_key, row.chunk_index, row),
        ),
      );
  }

  /** Relations with their sources: every one, or the first `limit` of each (description and strength are of all). */
  private async withRelationSources(client: PoolClient, rows: { key: number; source_key: number; target_key: number }[], limit?: number): Promise<GraphRelation[]> {
    if (rows.length === 0) return [];
    const sources = new Map<number, SourceRow[]>();
    const whole = new Map<number, { strongest: SourceRow; strength: number }>();
    for (const row of await this.readySources(client, "relation_sources", rows.map((relation) => relation.key), limit)) {
      if (row.strongest) whole.set(row.owner_key, { strongest: row, strength: row.total ?? 0 });
      if (limit !== undefined && (row.turn ?? 0) > limit) continue;
      const own = sources.get(row.owner_key) ?? [];
      own.push(row);
      sources.set(row.owner_key, own);
    }
    return rows.flatMap((row) => {
      const ends = { sourceKey: row.source_key, targetKey: row.target_key };
      const relation = gatherRelation(ends, sources.get(row.key) ?? [], (source) => source.description, toSource, whole.get(row.key));
      return relation ? [relation] : [];
    });
  }

  async searchEntities(query: { terms: { text: string; weight: number }[]; limit: number; videoIds?: string[] }): Promise<EntityMatch[]> {
    if (!(query.limit >= 0) || !Number.isFinite(query.limit)) throw new VideoRagError("ARGUMENT_INVALID", "an entity search needs a limit ≥ 0");
    return this.context.read("cannot search entities", async (client) => {
      const limit = Math.floor(query.limit);
      const terms = termWeights(query.terms);
      if (limit === 0 || terms.size === 0) return [];
      const fieldWeights = [entityFieldWeights.name, entityFieldWeights.description];
      let matches: [number, number][];
      if (query.videoIds) {
        // Entities with a source in those videos: ranked among all, then kept, as SQLite's filtered MATCH does.
        const all = await this.context.lexical.search(client, "entity", { terms, phrases: [], fieldWeights, limit: Number.MAX_SAFE_INTEGER, commonShare: commonEntityShare }, entityFields);
        const { rows } = await client.query<{ key: number }>(
          `SELECT DISTINCT s.entity_key AS key FROM entity_sources s JOIN videos v ON v.key = s.video_key
            WHERE v.status = 'ready' AND v.id = ANY($1::text[]) AND s.entity_key = ANY($2::bigint[])`,
          [query.videoIds, all.map(([key]) => key)],
        );
        const kept = new Set(rows.map((row) => row.key));
        matches = all.filter(([key]) => kept.has(key)).slice(0, limit);
      } else {
        matches = await this.context.lexical.search(client, "entity", { terms, phrases: [], fieldWeights, limit, commonShare: commonEntityShare }, entityFields);
      }
      if (matches.length === 0) return [];
      const { rows } = await client.query<EntityRow>({ ...entitiesByKey, values: [matches.map(([key]) => key)] });
      return toEntityMatches(matches, rows);
    });
  }

  async getEntity(reference: number | string, options: { sourceLimit?: number } = {}): Promise<GraphEntity | undefined> {
    if (options.sourceLimit !== undefined) checkCount(options.sourceLimit, "the source limit");
    return this.context.read("cannot read an entity", async (client) => {
      const key = typeof reference === "number" ? reference : (await entityKeysByName(client, [reference])).get(reference);
      if (key === undefined || !Number.isSafeInteger(key)) return undefined;
      const row = (await client.query<EntityRow>(`SELECT ${entityColumns} FROM entities e WHERE e.key = $1`, [key])).rows[0];
      return row ? (await this.withSources(client, [row], options.sourceLimit))[0] : undefined;
    });
  }

  async entityChunks(entityKeys: number[], options: { limitPerEntity?: number; videoIds?: string[] } = {}): Promise<{ entityKey: number; videoId: string; chunkIndex: number }[]> {
    const limit = options.limitPerEntity ?? defaultChunksPerEntity;
    checkCount(limit, "limitPerEntity");
    if (entityKeys.length === 0 || limit === 0) return [];
    return this.context.read("cannot read entity chunks", async (client) => {
      const { rows } = await client.query<{ entityKey: number; videoId: string; chunkIndex: number }>({ ...chunksOfEntities, values: [entityKeys, options.videoIds ?? null, limit] });
      return rows;
    });
  }

  async relationsAmong(entityKeys: number[]): Promise<GraphRelation[]> {
    if (entityKeys.length < 2) return [];
    return this.context.read("cannot read relations", async (client) => {
      const { rows } = await client.query<{ key: number; source_key: number; target_key: number }>({ ...relationsAmongEntities, values: [entityKeys] });
      return (await this.withRelationSources(client, rows)).sort((a, b) => b.strength - a.strength || a.sourceKey - b.sourceKey || a.targetKey - b.targetKey);
    });
  }

  async relationsOf(entityKey: number, limit = defaultRelationsPerEntity, options: { sourceLimit?: number } = {}): Promise<GraphRelation[]> {
    checkCount(limit, "the relation limit");
    if (options.sourceLimit !== undefined) checkCount(options.sourceLimit, "the source limit");
    if (limit === 0) return [];
    return this.context.read("cannot read relations", async (client) => {
      const { rows } = await client.query<{ key: number; source_key: number; target_key: number }>(
        `SELECT r.key, r.source_key, r.target_key
          FROM relations r JOIN relation_sources s ON s.relation_key = r.key JOIN videos v ON v.key = s.video_key
          WHERE (r.source_key = $1 OR r.target_key = $1) AND v.status = 'ready'
          GROUP BY r.key ORDER BY sum(s.strength) DESC, r.key LIMIT $2`,
        [entityKey, limit],
      );
      return this.withRelationSources(client, rows, options.sourceLimit);
    });
  }

  async getChunks(keys: { videoId: string; chunkIndex: number }[]): Promise<Chunk[]> {
    if (keys.length === 0) return [];
    return this.context.read("cannot read chunks", async (client) => {
      type Row = ChunkRow & ChunkTextColumns & { position: number; video_key: number };
      const read = await client.query<Row & BlockColumns>({ ...chunksAt, values: [keys.map((key) => key.videoId), keys.map((key) => key.chunkIndex)] });
      const { rows, blocks } = SegmentBlocks.split(read.rows, this.context.blockCache);
      return rows
        .sort((x, y) => x.position - y.position)
        .map((row) => toChunk(row, blocks.chunkText(row.video_key, row.chunk_index, row)));
    });
  }

  async staleEntities(limit: number): Promise<GraphEntity[]> {
    checkCount(limit, "the stale entity limit");
    return this.context.read("cannot list stale entities", async (client) => {
      const { rows } = await client.query<EntityRow>(`SELECT ${entityColumns} FROM entities e WHERE e.stale ORDER BY e.change_sequence, e.key LIMIT $1`, [limit]);
      return this.withSources(client, rows);
    });
  }

  async setEntityDescriptions(updates: EntityDescriptionUpdate[]): Promise<number> {
    for (const update of updates) {
      if (typeof update.description !== "string") throw new VideoRagError("ARGUMENT_INVALID", `entity ${update.key}'s description must be text`);
    }
    if (updates.length === 0) return 0;
    return this.context.write("cannot describe entities", async (client) => {
      const keys = updates.map((update) => update.key);
      await forgetEntities(this.context.lexical, client, keys);
      const { rows } = await client.query<{ key: number }>(
        `UPDATE entities e SET description = u.description, stale = false
          FROM unnest($1::bigint[], $2::text[], $3::bigint[]) AS u(key, description, change_sequence)
          WHERE e.key = u.key AND (u.change_sequence IS NULL OR e.change_sequence = u.change_sequence)
          RETURNING e.key`,
        [updates.map((update) => update.key), updates.map((update) => update.description), updates.map((update) => update.changeSequence ?? null)],
      );
      await indexEntities(this.context.lexical, client, keys);
      return rows.length;
    });
  }

  async graphStats(): Promise<GraphStats> {
    return this.context.read("cannot count the graph", async (client) => {
      const { rows } = await client.query<GraphStats>(
        `SELECT (SELECT count(*) FROM chunks)::integer AS chunks, (SELECT count(*) FROM entities)::integer AS entities,
          (SELECT count(*) FROM relations)::integer AS relations,
          (SELECT count(*) FROM (SELECT 1 FROM entity_sources GROUP BY entity_key HAVING min(video_key) < max(video_key)) x)::integer
            AS "crossVideoEntities"`,
      );
      return rows[0] as GraphStats;
    });
  }

  async videoEntities(videoId: string, limit: number): Promise<EntityMatch[]> {
    if (!(limit >= 0) || !Number.isFinite(limit)) throw new VideoRagError("ARGUMENT_INVALID", "listing entities needs a limit ≥ 0");
    return this.context.read("cannot list a video's entities", async (client) => {
      const { rows } = await client.query<EntityMatch>(
        `SELECT e.key, e.name, e.type, e.description, count(*)::integer AS score
          FROM videos v JOIN entity_sources s ON s.video_key = v.key JOIN entities e ON e.key = s.entity_key
          WHERE v.id = $1 AND v.status = 'ready' GROUP BY e.key ORDER BY score DESC, e.name COLLATE "C" LIMIT $2`,
        [videoId, Math.floor(limit)],
      );
      return rows;
    });
  }
}
