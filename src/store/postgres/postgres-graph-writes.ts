// The graph's writes in the Postgres store, each inside a transaction its caller holds: a video's chunks, entities,
// relations and their sources merged into the library's graph (graph/merge-graph.ts decides, this writes), and taken
// out again, with the entities' BM25 documents kept in step. The catalog, the extraction ledger and the GraphStore call them.

import type { PoolClient } from "pg";
import { chooseEntity, chunkSources, defaultMergeDistance, planGraph, type EntityCandidates } from "../../graph/merge-graph.js";
import { VideoRagError } from "../../spec/index.js";
import type { Chunk, VideoGraph } from "../../spec/index.js";
import { chunkTextBlocks, encodeExcerpt, excerptSource, packChunkText, SegmentText } from "../packed-text.js";
import type { FieldLoader, LexicalIndex } from "./lexical-index.js";
import { chunkBlocks, SegmentBlocks, withSegmentBlocks, type BlockColumns, type ChunkTextColumns } from "./packed-rows.js";
import { vectorText } from "./postgres-context.js";

/** The entities and relations a video's graph sources named, for `pruneGraph` once they are gone. */
export interface TouchedGraph {
  entityKeys: number[];
  relationKeys: number[];
}

/** Writes chunk rows: the text, or '' and its pieces of the segments' text (`packed`) with the blocks those name. */
async function insertChunks(client: PoolClient, videoKey: number, chunks: (Omit<Chunk, "videoId"> & { packed: Buffer | undefined })[]): Promise<void> {
  if (chunks.length === 0) return;
  const blocks = chunks.map((chunk) => (chunk.packed ? chunkTextBlocks(chunk.packed) : undefined));
  await client.query(
    `INSERT INTO chunks (video_key, chunk_index, clip_start, clip_end, start_second, end_second, text, packed_text, packed_first_block, packed_last_block, token_count)
      SELECT $1, * FROM unnest($2::integer[], $3::integer[], $4::integer[], $5::float8[], $6::float8[], $7::text[], $8::bytea[], $9::integer[], $10::integer[], $11::integer[])`,
    [
      videoKey,
      chunks.map((chunk) => chunk.index),
      chunks.map((chunk) => chunk.clipStart),
      chunks.map((chunk) => chunk.clipEnd),
      chunks.map((chunk) => chunk.startSecond),
      chunks.map((chunk) => chunk.endSecond),
      chunks.map((chunk) => (chunk.packed ? "" : chunk.text)),
      chunks.map((chunk) => chunk.packed ?? null),
      blocks.map((range) => range?.[0] ?? null),
      blocks.map((range) => range?.[1] ?? null),
      chunks.map((chunk) => chunk.tokenCount),
    ],
  );
}

/** A video's chunks with their text (unpacked), for packing them again. */
export async function readChunkTexts(client: PoolClient, videoKey: number): Promise<{ index: number; startSecond: number; endSecond: number; text: string }[]> {
  type Row = ChunkTextColumns & { video_key: number; chunk_index: number; start_second: number; end_second: number };
  const read = await client.query<Row & BlockColumns>(
    withSegmentBlocks(
      `SELECT video_key, chunk_index, start_second, end_second, text, packed_text, packed_first_block, packed_last_block FROM chunks WHERE video_key = $1`,
      chunkBlocks,
    ),
    [videoKey],
  );
  const { rows, blocks } = SegmentBlocks.split(read.rows);
  return rows.map((row) => ({ index: row.chunk_index, startSecond: row.start_second, endSecond: row.end_second, text: blocks.chunkText(row.video_key, row.chunk_index, row) }));
}

/** Packs chunks' text (as `readChunkTexts` read it) against their video's segments as they are now, where it packs. */
export async function packChunksAgain(
  client: PoolClient,
  videoKey: number,
  chunks: { index: number; startSecond: number; endSecond: number; text: string }[],
  segments: SegmentText,
): Promise<void> {
  const packed = chunks.map((chunk) => packChunkText(chunk.text, segments, chunk.startSecond, chunk.endSecond));
  const blocks = packed.map((text) => (text ? chunkTextBlocks(text) : undefined));
  await client.query(
    `UPDATE chunks c SET text = u.text, packed_text = u.packed, packed_first_block = u.first, packed_last_block = u.last
      FROM unnest($2::integer[], $3::text[], $4::bytea[], $5::integer[], $6::integer[]) AS u(chunk_index, text, packed, first, last)
      WHERE c.video_key = $1 AND c.chunk_index = u.chunk_index`,
    [
      videoKey,
      chunks.map((chunk) => chunk.index),
      chunks.map((chunk, at) => (packed[at] ? "" : chunk.text)),
      packed.map((text) => text ?? null),
      blocks.map((range) => range?.[0] ?? null),
      blocks.map((range) => range?.[1] ?? null),
    ],
  );
}

/** Entity documents' text (name and aliases, description), as indexed. */
export const entityFields: FieldLoader = async (client, keys) => {
  const { rows } = await client.query<{ key: number; names: string; description: string }>(
    `SELECT e.key, concat_ws(E'\\n', e.name, (SELECT string_agg(a.name, E'\\n' ORDER BY a.name_key) FROM entity_aliases a
        WHERE a.entity_key = e.key)) AS names, e.description
      FROM entities e WHERE e.key = ANY($1::bigint[])`,
    [keys],
  );
  return new Map(rows.map((row) => [row.key, [row.names, row.description]]));
};

/**
 * Forgets entities' BM25 documents before their text (name, aliases, description) changes or they go: the rows are
 * locked, in key order, so no other writer changes that text before `indexEntities` indexes it again.
 */
export async function forgetEntities(lexical: LexicalIndex, client: PoolClient, keys: number[]): Promise<void> {
  if (keys.length === 0) return;
  await client.query(`SELECT key FROM entities WHERE key IN (SELECT k FROM unnest($1::bigint[]) AS k) ORDER BY key FOR UPDATE`, [keys]);
  const fields = await entityFields(client, keys);
  await lexical.remove(client, "entity", [...fields].map(([key, texts]) => ({ key, fields: texts })));
}

/** Indexes entities from their name, aliases and description: new ones, or ones `forgetEntities` forgot. */
export async function indexEntities(lexical: LexicalIndex, client: PoolClient, keys: number[]): Promise<void> {
  if (keys.length === 0) return;
  const fields = await entityFields(client, keys);
  await lexical.add(client, "entity", [...fields].map(([key, texts]) => ({ key, fields: texts })));
}

/** Deletes a video's chunks and graph sources; returns what the sources named, for `pruneGraph`. */
export async function clearGraph(client: PoolClient, videoKey: number): Promise<TouchedGraph> {
  const entities = await client.query<{ entity_key: number }>(`SELECT DISTINCT entity_key FROM entity_sources WHERE video_key = $1`, [videoKey]);
  const relations = await client.query<{ relation_key: number }>(`SELECT DISTINCT relation_key FROM relation_sources WHERE video_key = $1`, [videoKey]);
  await client.query(`DELETE FROM entity_sources WHERE video_key = $1`, [videoKey]);
  await client.query(`DELETE FROM relation_sources WHERE video_key = $1`, [videoKey]);
  await client.query(`DELETE FROM chunks WHERE video_key = $1`, [videoKey]);
  return { entityKeys: entities.rows.map((row) => row.entity_key), relationKeys: relations.rows.map((row) => row.relation_key) };
}

/** Deletes relations and entities left with no source among those touched, marks the surviving ones stale. */
export async function pruneGraph(lexical: LexicalIndex, client: PoolClient, touched: TouchedGraph): Promise<void> {
  if (touched.relationKeys.length > 0) {
    await client.query(
      `DELETE FROM relations r WHERE r.key = ANY($1::bigint[]) AND NOT EXISTS (SELECT 1 FROM relation_sources s WHERE s.relation_key = r.key)`,
      [touched.relationKeys],
    );
  }
  if (touched.entityKeys.length === 0) return;
  const { rows } = await client.query<{ key: number }>(
    `SELECT k AS key FROM unnest($1::bigint[]) AS k WHERE NOT EXISTS (SELECT 1 FROM entity_sources s WHERE s.entity_key = k)`,
    [touched.entityKeys],
  );
  const orphans = rows.map((row) => row.key);
  if (orphans.length > 0) {
    await forgetEntities(lexical, client, orphans);
    await client.query(`DELETE FROM entities WHERE key = ANY($1::bigint[])`, [orphans]);
  }
  await markStale(client, touched.entityKeys);
}

/** Marks entities stale at a new change number, after every earlier one; keys sorted so writers lock alike. */
async function markStale(client: PoolClient, keys: number[]): Promise<void> {
  if (keys.length === 0) return;
  await client.query(
    `UPDATE entities SET stale = true, change_sequence = (SELECT nextval('entity_change'))
      WHERE key IN (SELECT k FROM unnest($1::bigint[]) AS k ORDER BY k)`,
    [[...new Set(keys)].sort((a, b) => a - b)],
  );
}

/**
 * Merges a video's graph into the library's (graph/merge-graph.ts decides; this writes). Names are looked up together;
 * new entities are inserted in name order, and a name another writer inserted meanwhile is read back, not duplicated.
 */
/**
 * Merges a video's graph into the library's. Chunk texts are kept as pieces of the video's segments (`segments`, as
 * stored) and source descriptions as excerpts of their chunk's text, where that is shorter (see packed-text.ts).
 */
export async function writeGraph(lexical: LexicalIndex, client: PoolClient, videoKey: number, videoId: string, graph: VideoGraph, clipIndexes: Set<number>, segments: SegmentText): Promise<void> {
  const plans = planGraph(graph, videoId, clipIndexes);
  const excerptSources = new Map(graph.chunks.map((chunk) => [chunk.index, excerptSource(chunk.text)]));
  await insertChunks(
    client,
    videoKey,
    graph.chunks.map((chunk) => ({ ...chunk, tokenCount: Math.round(chunk.tokenCount), packed: packChunkText(chunk.text, segments, chunk.startSecond, chunk.endSecond) })),
  );
  /** A description as stored: '' and its excerpt of the chunk's text, or itself. */
  const described = (chunkIndex: number, description: string): [string, Buffer | null] => {
    const source = excerptSources.get(chunkIndex);
    const excerpt = source ? encodeExcerpt(description, source) : undefined;
    return excerpt ? ["", excerpt] : [description, null];
  };
  const space = graph.entityVectorSpace;
  const mergeDistance = graph.mergeDistance ?? defaultMergeDistance;
  const nameKeys = [...plans.keys()];
  const named = await entityKeysByName(client, nameKeys);
  const entityKeys = new Map<string, number>();
  const aliases: { nameKey: string; key: number; name: string }[] = [];
  const fresh: string[] = [];
  for (const [nameKey, plan] of plans) {
    const candidates: EntityCandidates = { named: named.get(nameKey) };
    if (candidates.named === undefined && plan.vector && space !== undefined) {
      candidates.nearest = await nearestEntity(client, space, plan.type, plan.vector);
    }
    const chosen = chooseEntity(candidates, mergeDistance);
    if (!chosen) {
      fresh.push(nameKey);
      continue;
    }
    if (chosen.alias) aliases.push({ nameKey, key: chosen.key, name: plan.name });
    entityKeys.set(nameKey, chosen.key);
  }
  // An alias is indexed text of its entity: the entity's document is forgotten before it changes.
  const aliased = [...new Set(aliases.map((alias) => alias.key))];
  await forgetEntities(lexical, client, aliased);
  for (const alias of aliases) {
    await client.query(`INSERT INTO entity_aliases (name_key, entity_key, name) VALUES ($1, $2, $3) ON CONFLICT (name_key) DO NOTHING`, [alias.nameKey, alias.key, alias.name]);
  }
  if (fresh.length > 0) {
    fresh.sort();
    await client.query(
      `INSERT INTO entities (name_key, name, type, change_sequence)
        SELECT n.name_key, n.name, n.type, 0
        FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS n(name_key, name, type, position) ORDER BY n.position
        ON CONFLICT (name_key) DO NOTHING`,
      [fresh, fresh.map((nameKey) => plans.get(nameKey)?.name), fresh.map((nameKey) => plans.get(nameKey)?.type)],
    );
    const created = await entityKeysByName(client, fresh);
    for (const nameKey of fresh) {
      const key = created.get(nameKey);
      if (key === undefined) throw new VideoRagError("STORE_FAILED", `the entity "${nameKey}" could not be written`);
      entityKeys.set(nameKey, key);
    }
  }
  if (space !== undefined) {
    // An entity first written without a vector (or in another space) becomes findable by meaning from now on.
    const withVectors = [...plans].filter(([, plan]) => plan.vector);
    if (withVectors.length > 0) {
      await client.query(
        `INSERT INTO entity_vectors (entity_key, space, type, embedding)
          SELECT e.key, $1, e.type, v.embedding::vector FROM unnest($2::bigint[], $3::text[]) AS v(key, embedding)
            JOIN entities e ON e.key = v.key
          ON CONFLICT (entity_key, space) DO NOTHING`,
        [space, withVectors.map(([nameKey]) => entityKeys.get(nameKey)), withVectors.map(([, plan]) => vectorText(plan.vector as Float32Array))],
      );
    }
  }
  const newKeys = fresh.map((nameKey) => entityKeys.get(nameKey) as number);
  await indexEntities(lexical, client, [...new Set([...newKeys, ...aliased])]);
  await markStale(client, [...entityKeys.values()]);

  const keyOf = (nameKey: string): number => entityKeys.get(nameKey) as number;
  const entitySources = { keys: [] as number[], chunks: [] as number[], descriptions: [] as string[], excerpts: [] as (Buffer | null)[] };
  const relationSources: { pair: [number, number]; chunk: number; description: string; excerpt: Buffer | null; strength: number }[] = [];
  for (const extraction of graph.extractions) {
    const sources = chunkSources(extraction, keyOf);
    for (const { entityKey, description } of sources.entities) {
      const [text, excerpt] = described(extraction.chunkIndex, description);
      entitySources.keys.push(entityKey);
      entitySources.chunks.push(extraction.chunkIndex);
      entitySources.descriptions.push(text);
      entitySources.excerpts.push(excerpt);
    }
    for (const relation of sources.relations) {
      const [text, excerpt] = described(extraction.chunkIndex, relation.description);
      relationSources.push({ pair: [relation.sourceKey, relation.targetKey], chunk: extraction.chunkIndex, description: text, excerpt, strength: relation.strength });
    }
  }
  if (entitySources.keys.length > 0) {
    await client.query(
      `INSERT INTO entity_sources (entity_key, video_key, chunk_index, description, excerpt)
        SELECT s.key, $1, s.chunk, s.description, s.excerpt
        FROM unnest($2::bigint[], $3::integer[], $4::text[], $5::bytea[]) AS s(key, chunk, description, excerpt)`,
      [videoKey, entitySources.keys, entitySources.chunks, entitySources.descriptions, entitySources.excerpts],
    );
  }
  if (relationSources.length > 0) {
    const pairs = [...new Map(relationSources.map((source) => [source.pair.join(":"), source.pair])).values()].sort((x, y) => x[0] - y[0] || x[1] - y[1]);
    await client.query(
      `INSERT INTO relations (source_key, target_key)
        SELECT * FROM unnest($1::bigint[], $2::bigint[]) AS p(source_key, target_key) ORDER BY 1, 2 ON CONFLICT DO NOTHING`,
      [pairs.map((pair) => pair[0]), pairs.map((pair) => pair[1])],
    );
    await client.query(
      `INSERT INTO relation_sources (relation_key, video_key, chunk_index, description, excerpt, strength)
        SELECT r.key, $1, s.chunk, s.description, s.excerpt, s.strength
        FROM unnest($2::bigint[], $3::bigint[], $4::integer[], $5::text[], $6::bytea[], $7::float8[])
          AS s(source_key, target_key, chunk, description, excerpt, strength)
          JOIN relations r ON r.source_key = s.source_key AND r.target_key = s.target_key`,
      [
        videoKey,
        relationSources.map((source) => source.pair[0]),
        relationSources.map((source) => source.pair[1]),
        relationSources.map((source) => source.chunk),
        relationSources.map((source) => source.description),
        relationSources.map((source) => source.excerpt),
        relationSources.map((source) => source.strength),
      ],
    );
  }
}

/** Entity keys by name key, an entity's own name winning over another's alias. */
export async function entityKeysByName(client: PoolClient, nameKeys: string[]): Promise<Map<string, number>> {
  if (nameKeys.length === 0) return new Map();
  const { rows } = await client.query<{ name_key: string; key: number; own: boolean }>(
    `SELECT name_key, key, true AS own FROM entities WHERE name_key = ANY($1::text[])
      UNION ALL SELECT name_key, entity_key, false FROM entity_aliases WHERE name_key = ANY($1::text[])`,
    [nameKeys],
  );
  const keys = new Map<string, number>();
  for (const row of rows) if (row.own || !keys.has(row.name_key)) keys.set(row.name_key, row.key);
  return keys;
}

async function nearestEntity(client: PoolClient, space: string, type: string, vector: Float32Array): Promise<EntityCandidates["nearest"]> {
  // A zero vector has no direction, so it is near nothing.
  if (vector.every((value) => value === 0)) return undefined;
  const { rows } = await client.query<{ key: number; distance: number }>(
    `SELECT entity_key AS key, (embedding <=> $1::vector)::float8 AS distance FROM entity_vectors
      WHERE space = $2 AND type = $3 AND vector_dims(embedding) = $4
      ORDER BY distance, entity_key LIMIT 1`,
    [vectorText(vector), space, type, vector.length],
  );
  const row = rows[0];
  return row && Number.isFinite(row.distance) ? { key: row.key, distance: row.distance } : undefined;
}
