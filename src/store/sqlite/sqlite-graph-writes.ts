// The SQLite store's graph writes: a video's chunks, entities and relations merged into the library's graph when it
// commits or is written back, and taken out again (with the entities and relations left with no source) when it goes.

import type Database from "better-sqlite3";
import type { VideoGraph } from "../../spec/index.js";
import { chooseEntity, chunkSources, defaultMergeDistance, planGraph, type EntityCandidates } from "../../graph/merge-graph.js";
import { encodeExcerpt, excerptSource, packChunkText, type PieceSource, type SegmentText } from "../packed-text.js";
import type { SqliteContext } from "./sqlite-context.js";
import type { ChunkTextRow, PackedReader } from "./sqlite-packed-reader.js";
import { vectorBytes } from "./sqlite-vectors.js";
import { vectorBuckets } from "./vector-buckets.js";

/** The entities and relations a video's graph sources named, collected before they are deleted. */
export interface TouchedGraph {
  entityKeys: number[];
  relationKeys: number[];
}

/** A chunk's text as read before a write-back moves the segments it is packed against. */
export type ChunkText = { key: number; chunk_index: number; start_second: number; end_second: number; text: string };

/** The statements the graph is written with; lists of keys travel as one JSON array, read with json_each. */
function prepareGraphWriteStatements(db: Database.Database) {
  return {
    insertChunk: db.prepare(`INSERT INTO chunks (video_key, chunk_index, clip_start, clip_end, start_second, end_second,
        text, packed_text, token_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    videoChunkTexts: db.prepare(`SELECT key, chunk_index, start_second, end_second, text, packed_text FROM chunks
      WHERE video_key = ?`),
    setChunkText: db.prepare(`UPDATE chunks SET text = ?, packed_text = ? WHERE key = ?`),
    deleteChunks: db.prepare(`DELETE FROM chunks WHERE video_key = ?`),
    entityKeyByName: db.prepare(`SELECT key FROM entities WHERE name_key = @nameKey
      UNION ALL SELECT entity_key FROM entity_aliases WHERE name_key = @nameKey LIMIT 1`).pluck(),
    insertEntity: db.prepare(`INSERT INTO entities (name_key, name, type, description, stale, change_sequence)
      VALUES (?, ?, ?, '', 1, ?) RETURNING key`).pluck(),
    insertAlias: db.prepare(`INSERT INTO entity_aliases (name_key, entity_key, name) VALUES (?, ?, ?)`),
    // The vector is filed under the entity's type, which a later video may give differently.
    insertEntityVector: db.prepare(`INSERT INTO entity_vectors (entity_key, space, type, vector)
      SELECT key, ?, type, ? FROM entities WHERE key = ? ON CONFLICT (entity_key, space) DO NOTHING`),
    insertEntityBuckets: db.prepare(`INSERT OR IGNORE INTO entity_vector_buckets (space, type, bucket, entity_key)
      SELECT ?, e.type, j.value, e.key FROM entities e, json_each(?) j WHERE e.key = ?`),
    entityVectorCount: db.prepare(`SELECT count(*) FROM entity_vectors WHERE space = ? AND type = ?`).pluck(),
    insertEntitySource: db.prepare(`INSERT INTO entity_sources (entity_key, video_key, chunk_index, description, excerpt)
      VALUES (?, ?, ?, ?, ?)`),
    relationByPair: db.prepare(`SELECT key FROM relations WHERE source_key = ? AND target_key = ?`).pluck(),
    insertRelation: db.prepare(`INSERT INTO relations (source_key, target_key) VALUES (?, ?) RETURNING key`).pluck(),
    insertRelationSource: db.prepare(`INSERT INTO relation_sources (relation_key, video_key, chunk_index, description,
        excerpt, strength) VALUES (?, ?, ?, ?, ?, ?)`),
    nextChangeSequence: db.prepare(`UPDATE sequences SET value = value + 1 WHERE name = 'entity-change' RETURNING value`).pluck(),
    markStale: db.prepare(`UPDATE entities SET stale = 1, change_sequence = ?
      WHERE key IN (SELECT value FROM json_each(?))`),
    videoEntityKeys: db.prepare(`SELECT DISTINCT entity_key FROM entity_sources WHERE video_key = ?`).pluck(),
    videoRelationKeys: db.prepare(`SELECT DISTINCT relation_key FROM relation_sources WHERE video_key = ?`).pluck(),
    deleteEntitySources: db.prepare(`DELETE FROM entity_sources WHERE video_key = ?`),
    deleteRelationSources: db.prepare(`DELETE FROM relation_sources WHERE video_key = ?`),
    deleteOrphanRelations: db.prepare(`DELETE FROM relations WHERE key IN (SELECT value FROM json_each(?))
      AND NOT EXISTS (SELECT 1 FROM relation_sources WHERE relation_key = relations.key)`),
    orphanEntities: db.prepare(`SELECT value FROM json_each(?)
      WHERE NOT EXISTS (SELECT 1 FROM entity_sources WHERE entity_key = value)`).pluck(),
    deleteEntities: db.prepare(`DELETE FROM entities WHERE key IN (SELECT value FROM json_each(?))`),
  };
}

/** The graph writes of the transactions that commit, write back and remove videos; each runs inside its caller's. */
export class SqliteGraphWrites {
  private readonly statements;
  /**
   * The nearest entity vector of one space and type, among all of them or among those sharing a bucket with the name;
   * absent without sqlite-vec, and entities then merge by name only.
   */
  private readonly nearestEntityStatements: { all: Database.Statement; bucketed: Database.Statement } | undefined;

  constructor(
    private readonly context: SqliteContext,
    /** Why sqlite-vec could not be loaded, when it could not. */
    vectorSearchUnavailable: string | undefined,
    private readonly exactMergeScanLimit: number,
  ) {
    const db = context.db;
    this.statements = prepareGraphWriteStatements(db);
    const nearest = (from: string) =>
      db
        .prepare(
          `SELECT v.entity_key, vec_distance_cosine(v.vector, @vector) AS distance FROM ${from}
            WHERE v.space = @space AND v.type = @type AND length(v.vector) = @bytes
            ORDER BY distance NULLS LAST, v.entity_key LIMIT 1`,
        )
        .raw();
    // The bucketed search starts from the buckets (CROSS JOIN keeps that order), so only the vectors sharing one are read.
    this.nearestEntityStatements =
      vectorSearchUnavailable === undefined
        ? {
            all: nearest("entity_vectors v"),
            bucketed: nearest(`(SELECT DISTINCT entity_key FROM entity_vector_buckets WHERE space = @space AND type = @type
                AND bucket IN (SELECT value FROM json_each(@buckets))) b
              CROSS JOIN entity_vectors v ON v.entity_key = b.entity_key`),
          }
        : undefined;
  }

  /** The key of the entity with this name key, its own or an alias's; undefined when there is none. */
  entityKeyByName(nameKey: string): number | undefined {
    return this.statements.entityKeyByName.get({ nameKey }) as number | undefined;
  }

  /** Deletes a video's chunks and graph sources; returns what they named, for `pruneGraph` after the replacement is written. */
  clearGraph(videoKey: number): TouchedGraph {
    const touched: TouchedGraph = {
      entityKeys: this.statements.videoEntityKeys.all(videoKey) as number[],
      relationKeys: this.statements.videoRelationKeys.all(videoKey) as number[],
    };
    this.statements.deleteEntitySources.run(videoKey);
    this.statements.deleteRelationSources.run(videoKey);
    this.statements.deleteChunks.run(videoKey);
    return touched;
  }

  /**
   * After a video's sources went: deletes the relations and entities they named that have no source left, and marks the
   * surviving entities stale. Only what the video touched is looked at, so the cost does not grow with the library.
   */
  pruneGraph(touched: TouchedGraph): void {
    if (touched.relationKeys.length > 0) this.statements.deleteOrphanRelations.run(JSON.stringify(touched.relationKeys));
    if (touched.entityKeys.length === 0) return;
    const keys = JSON.stringify(touched.entityKeys);
    const orphans = this.statements.orphanEntities.all(keys) as number[];
    if (orphans.length > 0) {
      // FTS rows first: once the entity row is gone nothing says which words its contentless row holds.
      for (const key of orphans) this.context.lexical.forgetEntity(key);
      this.statements.deleteEntities.run(JSON.stringify(orphans));
    }
    this.statements.markStale.run(this.nextChangeSequence(), keys);
  }

  /**
   * The change number for entities going stale now: after every entity's, so older changes are served first and a
   * description written from sources read before this change is refused.
   */
  private nextChangeSequence(): number {
    return this.statements.nextChangeSequence.get() as number;
  }

  /**
   * Merges a video's graph into the library's inside the caller's transaction (see schema version 3). Each name finds
   * its entity by name key, then by alias, then by vector (same type, within the merge distance, recorded as an alias),
   * else becomes a new entity; every entity it touches goes stale.
   */
  writeGraph(videoKey: number, videoId: string, graph: VideoGraph, clipIndexes: Set<number>, segments: SegmentText): void {
    const plans = planGraph(graph, videoId, clipIndexes);
    const chunkTexts = new Map<number, PieceSource>();
    for (const chunk of graph.chunks) {
      const packed = packChunkText(chunk.text, segments, chunk.startSecond, chunk.endSecond);
      this.statements.insertChunk.run(
        videoKey, chunk.index, chunk.clipStart, chunk.clipEnd, chunk.startSecond, chunk.endSecond, packed ? "" : chunk.text,
        packed ?? null, chunk.tokenCount,
      );
      chunkTexts.set(chunk.index, excerptSource(chunk.text));
    }
    /** A description as stored: '' and its excerpt of the chunk, or itself. */
    const described = (chunkIndex: number, description: string): [string, Buffer | null] => {
      const source = chunkTexts.get(chunkIndex);
      const excerpt = source ? encodeExcerpt(description, source) : undefined;
      return excerpt ? ["", excerpt] : [description, null];
    };
    const sequence = this.nextChangeSequence();
    const space = graph.entityVectorSpace;
    const mergeDistance = graph.mergeDistance ?? defaultMergeDistance;
    const entityKeys = new Map<string, number>();
    const aliased = new Set<number>();
    /** Per type: whether its vectors are few enough to compare a new name with each (counted once per commit). */
    const exactScan = new Map<string, boolean>();
    for (const [nameKey, plan] of plans) {
      const candidates: EntityCandidates = { named: this.statements.entityKeyByName.get({ nameKey }) as number | undefined };
      if (candidates.named === undefined && plan.vector && space !== undefined) {
        let exact = exactScan.get(plan.type);
        if (exact === undefined) {
          exact = (this.statements.entityVectorCount.get(space, plan.type) as number) <= this.exactMergeScanLimit;
          exactScan.set(plan.type, exact);
        }
        candidates.nearest = this.nearestEntity(space, plan.type, plan.vector, exact);
      }
      const chosen = chooseEntity(candidates, mergeDistance);
      let key = chosen?.key;
      if (chosen?.alias) {
        // Its index row holds its names so far: forgotten before the first new alias, indexed again below.
        if (!aliased.has(chosen.key)) this.context.lexical.forgetEntity(chosen.key);
        this.statements.insertAlias.run(nameKey, chosen.key, plan.name);
        aliased.add(chosen.key);
      }
      if (key === undefined) {
        key = this.statements.insertEntity.get(nameKey, plan.name, plan.type, sequence) as number;
        this.context.lexical.indexEntity(key);
      }
      // An entity first written without a vector (or in another space) becomes findable by meaning from now on.
      if (plan.vector && space !== undefined && this.statements.insertEntityVector.run(space, vectorBytes(plan.vector), key).changes > 0) {
        this.statements.insertEntityBuckets.run(space, JSON.stringify(vectorBuckets(plan.vector)), key);
      }
      entityKeys.set(nameKey, key);
    }
    for (const key of aliased) this.context.lexical.indexEntity(key);
    if (entityKeys.size > 0) this.statements.markStale.run(sequence, JSON.stringify([...new Set(entityKeys.values())]));

    const keyOf = (nameKey: string): number => entityKeys.get(nameKey) as number;
    for (const extraction of graph.extractions) {
      const sources = chunkSources(extraction, keyOf);
      for (const { entityKey, description } of sources.entities) {
        this.statements.insertEntitySource.run(entityKey, videoKey, extraction.chunkIndex, ...described(extraction.chunkIndex, description));
      }
      for (const { sourceKey, targetKey, description, strength } of sources.relations) {
        const relationKey =
          (this.statements.relationByPair.get(sourceKey, targetKey) as number | undefined) ??
          (this.statements.insertRelation.get(sourceKey, targetKey) as number);
        this.statements.insertRelationSource.run(
          relationKey, videoKey, extraction.chunkIndex, ...described(extraction.chunkIndex, description), strength,
        );
      }
    }
  }

  /**
   * The entity of this type whose vector is nearest, among all its vectors (`exact`) or those sharing a bucket with this
   * one; undefined when there is none or it cannot be searched.
   */
  private nearestEntity(space: string, type: string, vector: Float32Array, exact: boolean): EntityCandidates["nearest"] {
    // A zero vector has no direction, so it is near nothing.
    if (!this.nearestEntityStatements || vector.every((value) => value === 0)) return undefined;
    const parameters = { vector: vectorBytes(vector), space, type, bytes: vector.byteLength };
    const statements = this.nearestEntityStatements;
    const row = (
      exact ? statements.all.get(parameters) : statements.bucketed.get({ ...parameters, buckets: JSON.stringify(vectorBuckets(vector)) })
    ) as [entityKey: number, distance: number | null] | undefined;
    return row && row[1] !== null ? { key: row[0], distance: row[1] } : undefined;
  }

  /** A video's chunk texts as they read now, with `reader`, before the segments they are packed against change. */
  chunkTexts(videoKey: number, reader: PackedReader): ChunkText[] {
    return (this.statements.videoChunkTexts.all(videoKey) as (ChunkTextRow & Omit<ChunkText, "text">)[]).map((chunk) => ({
      ...chunk,
      text: reader.chunkText(videoKey, chunk.chunk_index, chunk) ?? "",
    }));
  }

  /** Packs chunks read by `chunkTexts` against the segments that replaced those they were packed against. */
  repackChunks(chunks: ChunkText[], segments: SegmentText): void {
    for (const chunk of chunks) {
      const packed = packChunkText(chunk.text, segments, chunk.start_second, chunk.end_second);
      this.statements.setChunkText.run(packed ? "" : chunk.text, packed ?? null, chunk.key);
    }
  }
}
