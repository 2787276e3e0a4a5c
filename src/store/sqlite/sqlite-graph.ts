// The SQLite store's GraphStore: reads of the knowledge graph (entity search, entities and relations with their sources,
// chunks, statistics) and the synthesised descriptions written back to it. The graph's other writes, made when videos
// commit, are written back or go, are in sqlite-graph-writes.ts.

import type Database from "better-sqlite3";
import type {
  Chunk,
  EntityDescriptionUpdate,
  EntityMatch,
  GraphEntity,
  GraphRelation,
  GraphSource,
  GraphStats,
  GraphStore,
} from "../../spec/index.js";
import { gatherRelation } from "../../graph/merge-graph.js";
import { toChunk, toGraphEntity, type ChunkRow as ChunkColumns, type EntityRow } from "../shared-graph-rows.js";
import { toEntityMatches } from "../shared-matches.js";
import {
  checkCount,
  checkDescriptions,
  checkLimit,
  commonEntityShare,
  defaultChunksPerEntity,
  defaultRelationsPerEntity,
  entityFieldWeights,
  termWeights,
} from "../store-checks.js";
import type { SqliteContext } from "./sqlite-context.js";
import type { SqliteGraphWrites } from "./sqlite-graph-writes.js";
import type { ChunkTextRow, PackedReader } from "./sqlite-packed-reader.js";
import { rankByBm25 } from "./sqlite-text-index.js";

interface SourceRow {
  /** The entity or relation the source is of. */
  owner_key: number;
  video_id: string;
  video_key: number;
  chunk_index: number;
  clip_start: number;
  clip_end: number;
  /** '' where `excerpt` holds it as pieces of the chunk's text. */
  description: string;
  excerpt: Buffer | null;
  strength: number;
  /** Read with a limit, of a relation: its place among the relation's sources, from 1. */
  turn?: number;
  /** Read with a limit, of a relation: 1 for the source its description comes from. */
  strongest?: number;
  /** Read with a limit, of a relation: the sum of all its sources' strengths. */
  total?: number;
}

interface RelationRow {
  key: number;
  source_key: number;
  target_key: number;
}

interface ChunkRow extends ChunkTextRow, ChunkColumns {
  video_key: number;
}

const toSource = (row: SourceRow, reader: PackedReader): GraphSource => ({
  videoId: row.video_id,
  chunkIndex: row.chunk_index,
  clipStart: row.clip_start,
  clipEnd: row.clip_end,
  description: reader.description(row),
});

/** The entities of some ready videos (their ids a JSON array), each once or more. */
const entitiesOfVideos = `SELECT s.entity_key FROM json_each(?) j CROSS JOIN videos v ON v.id = j.value
  CROSS JOIN entity_sources s ON s.video_key = v.key WHERE v.status = 'ready'`;

/**
 * The knowledge graph's reads; lists of keys travel as one JSON array, read with json_each. Joins that check a video is
 * ready are CROSS JOINs, which SQLite never reorders: left to itself, the planner would start from every ready video
 * (the status index) and probe the sources of each, which grows with the library instead of with the answer.
 */
function prepareGraphStatements(db: Database.Database) {
  const entityColumns = `e.key, e.name_key, e.name, e.type, e.description, e.stale, e.change_sequence`;
  const readySources = (table: "entity_sources" | "relation_sources", owner: "entity_key" | "relation_key") =>
    `SELECT s.${owner} AS owner_key, v.id AS video_id, s.video_key, s.chunk_index, c.clip_start, c.clip_end, s.description,
        s.excerpt, ${table === "relation_sources" ? "s.strength" : "0"} AS strength
      FROM ${table} s CROSS JOIN videos v ON v.key = s.video_key
      CROSS JOIN chunks c ON c.video_key = s.video_key AND c.chunk_index = s.chunk_index
      WHERE s.${owner} IN (SELECT value FROM json_each(?)) AND v.status = 'ready'
      ORDER BY s.${owner}, v.id, s.chunk_index`;
  // The first sources of each owner: numbered (sources and videos only) before their chunks are joined; a relation's
  // also with its strongest source (its description) and the sum of all its sources' strengths.
  const firstSources = (table: "entity_sources" | "relation_sources", owner: "entity_key" | "relation_key") => {
    const summed = table === "relation_sources";
    const sources = `SELECT s.${owner} AS owner_key, v.id AS video_id, s.video_key, s.chunk_index, s.description, s.excerpt,
          ${summed ? "s.strength" : "0"} AS strength,
          ROW_NUMBER() OVER (PARTITION BY s.${owner} ORDER BY v.id, s.chunk_index) AS turn
          ${summed ? `, MAX(s.strength) OVER (PARTITION BY s.${owner}) AS top, SUM(s.strength) OVER (PARTITION BY s.${owner}) AS total` : ""}
        FROM ${table} s CROSS JOIN videos v ON v.key = s.video_key
        WHERE s.${owner} IN (SELECT value FROM json_each(?)) AND v.status = 'ready'`;
    // The strongest is the first source of the greatest strength, in the order the turns took.
    return `SELECT s.owner_key, s.video_id, s.video_key, s.chunk_index, c.clip_start, c.clip_end, s.description,
        s.excerpt, s.strength${summed ? ", s.turn, s.strongest, s.total" : ""}
      FROM (${summed ? `SELECT s.*, s.turn = MIN(s.turn) FILTER (WHERE s.strength = s.top) OVER (PARTITION BY s.owner_key) AS strongest FROM (${sources}) s` : sources}) s
      CROSS JOIN chunks c ON c.video_key = s.video_key AND c.chunk_index = s.chunk_index
      WHERE s.turn <= ?${summed ? " OR s.strongest" : ""}
      ORDER BY s.owner_key, s.video_id, s.chunk_index`;
  };
  return {
    chunk: db.prepare(`SELECT v.id AS video_id, c.video_key, c.chunk_index, c.clip_start, c.clip_end, c.start_second,
        c.end_second, c.text, c.packed_text, c.token_count
      FROM chunks c JOIN videos v ON v.key = c.video_key WHERE v.id = ? AND v.status = 'ready' AND c.chunk_index = ?`),
    entityByKey: db.prepare(`SELECT ${entityColumns} FROM entities e WHERE e.key = ?`),
    entitiesByKeys: db.prepare(`SELECT ${entityColumns} FROM entities e WHERE e.key IN (SELECT value FROM json_each(?))`),
    staleEntities: db.prepare(`SELECT ${entityColumns} FROM entities e WHERE e.stale = 1
      ORDER BY e.change_sequence, e.key LIMIT ?`),
    setDescription: db.prepare(`UPDATE entities SET description = @description, stale = 0
      WHERE key = @key AND (@changeSequence IS NULL OR change_sequence = @changeSequence)`),
    entitySources: db.prepare(readySources("entity_sources", "entity_key")),
    firstEntitySources: db.prepare(firstSources("entity_sources", "entity_key")),
    relationSources: db.prepare(readySources("relation_sources", "relation_key")),
    firstRelationSources: db.prepare(firstSources("relation_sources", "relation_key")),
    // Round-robin over an entity's videos (every video's first chunk, then every second one, …), so a limit keeps
    // chunks from as many videos as it can rather than every chunk of the first few.
    entityChunks: db.prepare(`SELECT entity_key AS entityKey, video_id AS videoId, chunk_index AS chunkIndex FROM (
        SELECT entity_key, video_id, chunk_index,
          ROW_NUMBER() OVER (PARTITION BY entity_key ORDER BY turn, video_id, chunk_index) AS position
        FROM (
          SELECT s.entity_key, v.id AS video_id, s.chunk_index,
            ROW_NUMBER() OVER (PARTITION BY s.entity_key, s.video_key ORDER BY s.chunk_index) AS turn
          FROM entity_sources s CROSS JOIN videos v ON v.key = s.video_key
          WHERE s.entity_key IN (SELECT value FROM json_each(@entityKeys)) AND v.status = 'ready'
            AND (@videoIds IS NULL OR v.id IN (SELECT value FROM json_each(@videoIds)))
        )
      ) WHERE position <= @limit ORDER BY entity_key, position`),
    entitiesOfVideos: db.prepare(entitiesOfVideos).pluck(),
    relationsAmong: db.prepare(`SELECT key, source_key, target_key FROM relations
      WHERE source_key IN (SELECT value FROM json_each(@keys)) AND target_key IN (SELECT value FROM json_each(@keys))`),
    relationsOf: db.prepare(`SELECT r.key, r.source_key, r.target_key
      FROM (SELECT key, source_key, target_key FROM relations WHERE source_key = @key
        UNION ALL SELECT key, source_key, target_key FROM relations WHERE target_key = @key) r
        CROSS JOIN relation_sources s ON s.relation_key = r.key CROSS JOIN videos v ON v.key = s.video_key
      WHERE v.status = 'ready'
      GROUP BY r.key ORDER BY sum(s.strength) DESC, r.key LIMIT @limit`),
    graphStats: db.prepare(`SELECT
        (SELECT count(*) FROM chunks) AS chunks,
        (SELECT count(*) FROM entities) AS entities,
        (SELECT count(*) FROM relations) AS relations,
        (SELECT count(*) FROM (SELECT 1 FROM entity_sources GROUP BY entity_key HAVING min(video_key) < max(video_key)))
          AS crossVideoEntities`),
    videoEntities: db.prepare(`SELECT e.key, e.name, e.type, e.description, COUNT(*) AS score
        FROM videos v CROSS JOIN entity_sources s ON s.video_key = v.key CROSS JOIN entities e ON e.key = s.entity_key
        WHERE v.id = ? AND v.status = 'ready' GROUP BY e.key ORDER BY score DESC, e.name LIMIT ?`),
  };
}

/** The knowledge graph (GraphStore): its reads, and the descriptions written back to its entities. */
export class SqliteGraph implements GraphStore {
  private readonly statements;

  constructor(
    private readonly context: SqliteContext,
    private readonly writes: SqliteGraphWrites,
  ) {
    this.statements = prepareGraphStatements(context.db);
  }

  /** Entities with their ready sources, in the order of `rows`: every one, or the first `limit` of each. */
  private withSources(rows: EntityRow[], limit?: number): GraphEntity[] {
    return rows.length === 0 ? [] : this.context.snapshot(() => this.readSources(rows, limit));
  }

  private readSources(rows: EntityRow[], limit?: number): GraphEntity[] {
    const sources = new Map<number, GraphSource[]>();
    const reader = this.context.reader();
    const keys = JSON.stringify(rows.map((entity) => entity.key));
    const read = limit === undefined ? this.statements.entitySources.all(keys) : limit === 0 ? [] : this.statements.firstEntitySources.all(keys, limit);
    for (const row of read as SourceRow[]) {
      const own = sources.get(row.owner_key);
      if (own) own.push(toSource(row, reader));
      else sources.set(row.owner_key, [toSource(row, reader)]);
    }
    return rows.map((row) => toGraphEntity(row, sources.get(row.key) ?? []));
  }

  /**
   * Relations with their ready sources, in the order of `rows`: strength summed over the sources, description that of
   * the strongest (the first of those tied, by video and chunk). A relation with no ready source is left out. Every
   * source, or the first `limit` of each (description and strength are of all).
   */
  private withRelationSources(rows: RelationRow[], limit?: number): GraphRelation[] {
    return rows.length === 0 ? [] : this.context.snapshot(() => this.readRelationSources(rows, limit));
  }

  private readRelationSources(rows: RelationRow[], limit?: number): GraphRelation[] {
    const sources = new Map<number, SourceRow[]>();
    const whole = new Map<number, { strongest: SourceRow; strength: number }>();
    const keys = JSON.stringify(rows.map((relation) => relation.key));
    const read = limit === undefined ? this.statements.relationSources.all(keys) : this.statements.firstRelationSources.all(keys, limit);
    for (const row of read as SourceRow[]) {
      if (row.strongest) whole.set(row.owner_key, { strongest: row, strength: row.total ?? 0 });
      if (limit !== undefined && (row.turn ?? 0) > limit) continue;
      const own = sources.get(row.owner_key);
      if (own) own.push(row);
      else sources.set(row.owner_key, [row]);
    }
    const reader = this.context.reader();
    return rows.flatMap((row) => {
      const relation = gatherRelation(
        { sourceKey: row.source_key, targetKey: row.target_key },
        sources.get(row.key) ?? [],
        (source) => reader.description(source),
        (source) => toSource(source, reader),
        whole.get(row.key),
      );
      return relation ? [relation] : [];
    });
  }

  async searchEntities(query: { terms: { text: string; weight: number }[]; limit: number; videoIds?: string[] }): Promise<EntityMatch[]> {
    return this.context.guardedSnapshot("cannot search entities", () => {
      checkLimit(query.limit, "an entity search");
      const limit = Math.floor(query.limit);
      const weights = termWeights(query.terms);
      if (limit === 0 || weights.size === 0) return [];
      const videoIds = query.videoIds && JSON.stringify(query.videoIds);
      const filter = videoIds !== undefined && { sql: ` AND rowid IN (${entitiesOfVideos})`, parameters: [videoIds] };
      const bm25 = `bm25(entity_fts, ${entityFieldWeights.name}, ${entityFieldWeights.description})`;
      const ranking = { table: "entity_fts", bm25, weights, phrases: [], restriction: "", commonShare: commonEntityShare, limit };
      const within = (): number[] => this.statements.entitiesOfVideos.all(videoIds) as number[];
      const matches = rankByBm25(this.context, filter ? { ...ranking, filter, within } : ranking);
      if (matches.length === 0) return [];
      const rows = this.statements.entitiesByKeys.all(JSON.stringify(matches.map(([key]) => key))) as EntityRow[];
      return toEntityMatches(matches, rows);
    });
  }

  async getEntity(reference: number | string, options: { sourceLimit?: number } = {}): Promise<GraphEntity | undefined> {
    if (options.sourceLimit !== undefined) checkCount(options.sourceLimit, "the source limit");
    return this.context.guard("cannot read an entity", () => {
      const key = typeof reference === "number" ? reference : this.writes.entityKeyByName(reference);
      if (key === undefined || !Number.isInteger(key)) return undefined;
      const row = this.statements.entityByKey.get(key) as EntityRow | undefined;
      return row ? this.withSources([row], options.sourceLimit)[0] : undefined;
    });
  }

  async entityChunks(
    entityKeys: number[],
    options: { limitPerEntity?: number; videoIds?: string[] } = {},
  ): Promise<{ entityKey: number; videoId: string; chunkIndex: number }[]> {
    return this.context.guard("cannot read entity chunks", () => {
      const limit = options.limitPerEntity ?? defaultChunksPerEntity;
      checkCount(limit, "limitPerEntity");
      if (entityKeys.length === 0 || limit === 0) return [];
      return this.statements.entityChunks.all({
        entityKeys: JSON.stringify(entityKeys),
        videoIds: options.videoIds ? JSON.stringify(options.videoIds) : null,
        limit,
      }) as { entityKey: number; videoId: string; chunkIndex: number }[];
    });
  }

  async relationsAmong(entityKeys: number[]): Promise<GraphRelation[]> {
    return this.context.guard("cannot read relations", () => {
      if (entityKeys.length < 2) return [];
      const rows = this.statements.relationsAmong.all({ keys: JSON.stringify(entityKeys) }) as RelationRow[];
      return this.withRelationSources(rows).sort(
        (a, b) => b.strength - a.strength || a.sourceKey - b.sourceKey || a.targetKey - b.targetKey,
      );
    });
  }

  async relationsOf(entityKey: number, limit = defaultRelationsPerEntity, options: { sourceLimit?: number } = {}): Promise<GraphRelation[]> {
    return this.context.guard("cannot read relations", () => {
      checkCount(limit, "the relation limit");
      if (options.sourceLimit !== undefined) checkCount(options.sourceLimit, "the source limit");
      if (limit === 0) return [];
      return this.withRelationSources(this.statements.relationsOf.all({ key: entityKey, limit }) as RelationRow[], options.sourceLimit);
    });
  }

  async getChunks(keys: { videoId: string; chunkIndex: number }[]): Promise<Chunk[]> {
    return this.context.guardedSnapshot("cannot read chunks", () => {
      const reader = this.context.reader();
      return keys.flatMap(({ videoId, chunkIndex }) => {
        const row = this.statements.chunk.get(videoId, chunkIndex) as ChunkRow | undefined;
        return row ? [toChunk(row, reader.chunkText(row.video_key, row.chunk_index, row) ?? row.text)] : [];
      });
    });
  }

  async staleEntities(limit: number): Promise<GraphEntity[]> {
    return this.context.guard("cannot list stale entities", () => {
      checkCount(limit, "the stale entity limit");
      return this.withSources(this.statements.staleEntities.all(limit) as EntityRow[]);
    });
  }

  async setEntityDescriptions(updates: EntityDescriptionUpdate[]): Promise<number> {
    return this.context.guard("cannot describe entities", () => {
      checkDescriptions(updates);
      return this.context.db.transaction(() => {
        let set = 0;
        for (const { key, description, changeSequence } of updates) {
          this.context.lexical.forgetEntity(key);
          const changed = this.statements.setDescription.run({ key, description, changeSequence: changeSequence ?? null }).changes > 0;
          this.context.lexical.indexEntity(key);
          if (changed) set++;
        }
        return set;
      }).immediate();
    });
  }

  async graphStats(): Promise<GraphStats> {
    return this.context.guard("cannot count the graph", () => this.statements.graphStats.get() as GraphStats);
  }

  async videoEntities(videoId: string, limit: number): Promise<EntityMatch[]> {
    return this.context.guard("cannot list a video's entities", () => {
      checkLimit(limit, "listing entities");
      return this.statements.videoEntities.all(videoId, Math.floor(limit)) as EntityMatch[];
    });
  }
}
