// The Store on PostgreSQL with pgvector, for libraries shared by several machines: ingest workers write, any number of
// servers read. Same behaviour as the SQLite store (one conformance suite), with Postgres's tools: transactions under
// READ COMMITTED retried on deadlock, identity keys and a sequence for change numbers, pgvector with an HNSW index per
// vector space, and BM25 computed in SQL from term statistics (lexical-index.ts) so ranking matches SQLite's.

import pg from "pg";
import type { PoolClient } from "pg";
import { checkVector, chooseEntity, chunkSources, defaultMergeDistance, gatherRelation, planGraph, type EntityCandidates } from "../../graph/merge-graph.js";
import { VideoRagError } from "../../spec/index.js";
import type {
  Chunk,
  ClipDocument,
  ClipMatch,
  ClipSignals,
  ClipStageState,
  ClipStageStatus,
  ClipWriteBack,
  EntityDescriptionUpdate,
  EntityMatch,
  ExtractionStatus,
  Frame,
  GraphEntity,
  GraphRelation,
  GraphSource,
  GraphStats,
  LexicalQuery,
  Segment,
  SegmentRange,
  SegmentSource,
  StageRecord,
  Store,
  VectorMatch,
  VectorQuery,
  VectorRecord,
  VectorSpace,
  Video,
  VideoContent,
  VideoGraph,
  VideoMatch,
} from "../../spec/index.js";
import {
  checkCount,
  checkRecord,
  defaultChunksPerEntity,
  defaultFieldWeights,
  defaultRelationsPerEntity,
  entityFieldWeights,
  hasToken,
  termWeights,
  videoDocument,
} from "../store-checks.js";
import { Fts5Tokens } from "./fts5-tokens.js";
import { redactUrl } from "./postgres-url.js";
import {
  blockMayHold,
  chunkTextBlocks,
  deflateSegmentBlocks,
  encodeExcerpt,
  encodeFrames,
  encodeSegmentBlocks,
  excerptSource,
  framesInWindow,
  packChunkText,
  SegmentBlockView,
  segmentsInWindow,
  SegmentText,
  transcriptRuns,
} from "../packed-text.js";
import { BlockCache } from "../block-cache.js";
import { prepared } from "./prepared.js";
import { buildPostingLists, defaultReadAtOnce, LexicalIndex, type FieldLoader, type LexicalDocument } from "./lexical-index.js";
import { chunkBlocks, SegmentBlocks, transcriptBlocks, withSegmentBlocks, type BlockColumns, type ChunkTextColumns, type DescriptionColumns, type TranscriptColumns } from "./packed-rows.js";
import { migratePostgres } from "./postgres-schema.js";

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
function storeError(error: unknown, action: string, where: string): VideoRagError {
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
const vectorText = (vector: Float32Array): string => `[${Array.from(vector).join(",")}]`;

interface VideoRow {
  key: number;
  id: string;
  status: "pending" | "ready";
  path: string;
  title: string;
  kind: "media" | "transcript";
  duration_seconds: number;
  size_bytes: number;
  width: number | null;
  height: number | null;
  has_audio: boolean;
  has_video: boolean;
  times_estimated: boolean;
  ingested_at: string;
  clip_count: number;
  fingerprint: string | null;
}

function toVideo(row: VideoRow): Video {
  return {
    id: row.id,
    path: row.path,
    title: row.title,
    durationSeconds: row.duration_seconds,
    kind: row.kind,
    sizeBytes: row.size_bytes,
    ...(row.width === null ? {} : { width: row.width }),
    ...(row.height === null ? {} : { height: row.height }),
    hasAudio: row.has_audio,
    hasVideo: row.has_video,
    timesEstimated: row.times_estimated,
    ingestedAt: row.ingested_at,
    clipCount: row.clip_count,
  };
}

interface EntityRow {
  key: number;
  name_key: string;
  name: string;
  type: string;
  description: string;
  stale: boolean;
  change_sequence: number;
}

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

interface TouchedGraph {
  entityKeys: number[];
  relationKeys: number[];
}

const videoColumns = `key, id, status, path, title, kind, duration_seconds, size_bytes, width, height, has_audio, has_video,
  times_estimated, ingested_at, clip_count, fingerprint`;
// Reads every search makes (see prepared.ts).
const readyVideos = prepared(`SELECT ${videoColumns} FROM videos WHERE id = ANY($1::text[]) AND status = 'ready'`);
const videoIdsByKey = prepared(`SELECT key, id FROM videos WHERE status = 'ready' AND key = ANY($1::bigint[])`);
const clipsByKey = prepared(
  `SELECT c.key, v.id AS video_id, c.clip_index, c.start_second, c.end_second FROM clips c JOIN videos v ON v.key = c.video_key
    WHERE c.key = ANY($1::bigint[])`,
);
/** The segment blocks that may hold a segment of one of the ranges (see `segmentsInWindow`). */
const segmentBlocksOfRanges = prepared(
  `SELECT v.id AS video_id, b.video_key, b.block_index, b.min_start_second, b.max_start_second, b.max_end_second, b.data
    FROM videos v JOIN segment_blocks b ON b.video_key = v.key
    WHERE v.status = 'ready' AND v.id = ANY($1::text[])
      AND EXISTS (SELECT 1 FROM unnest($1::text[], $2::float8[], $3::float8[]) AS r(video_id, start_second, end_second)
        WHERE r.video_id = v.id AND b.min_start_second < r.end_second AND (b.max_end_second > r.start_second OR b.max_start_second >= r.start_second))`,
);
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

/** Writes videos' segments as blocks (see packed-text.ts). */
async function insertSegmentBlocks(client: PoolClient, videos: { videoKey: number; segments: Segment[] }[]): Promise<void> {
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
async function readChunkTexts(client: PoolClient, videoKey: number): Promise<{ index: number; startSecond: number; endSecond: number; text: string }[]> {
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

/**
 * Schema 3's migration, a few hundred videos at a time: each video's row of segment arrays (schema 2) packed into
 * blocks, and its frames, a row each, into one list.
 */
async function packSegmentsAndFrames(client: PoolClient): Promise<void> {
  for (let after = 0; ; ) {
    const { rows } = await client.query<{ video_key: number; start_seconds: number[]; end_seconds: number[]; texts: string[]; sources: SegmentSource[]; clip_indexes: (number | null)[] }>(
      `SELECT video_key, start_seconds, end_seconds, texts, sources, clip_indexes FROM segments WHERE video_key > $1 ORDER BY video_key LIMIT 500`,
      [after],
    );
    if (rows.length === 0) break;
    await insertSegmentBlocks(
      client,
      rows.map((row) => ({
        videoKey: row.video_key,
        segments: row.texts.map((text, at) => {
          const clipIndex = row.clip_indexes[at];
          return {
            startSecond: row.start_seconds[at] as number,
            endSecond: row.end_seconds[at] as number,
            text,
            source: row.sources[at] as SegmentSource,
            ...(clipIndex === null || clipIndex === undefined ? {} : { clipIndex }),
          };
        }),
      })),
    );
    after = (rows.at(-1) as { video_key: number }).video_key;
  }
  for (let after = 0; ; ) {
    const { rows } = await client.query<{ video_key: number; times: number[]; hashes: (string | null)[] }>(
      `SELECT video_key, array_agg(time_second ORDER BY time_second) AS times, array_agg(hash ORDER BY time_second) AS hashes FROM frames
        WHERE video_key IN (SELECT DISTINCT video_key FROM frames WHERE video_key > $1 ORDER BY video_key LIMIT 500) GROUP BY video_key ORDER BY video_key`,
      [after],
    );
    if (rows.length === 0) break;
    await client.query(`INSERT INTO frame_lists (video_key, frames) SELECT * FROM unnest($1::bigint[], $2::bytea[])`, [
      rows.map((row) => row.video_key),
      rows.map((row) => encodeFrames(row.times.map((timeSecond, at) => ({ timeSecond, ...(row.hashes[at] ? { hash: row.hashes[at] as string } : {}) })))),
    ]);
    after = (rows.at(-1) as { video_key: number }).video_key;
  }
  await client.query(`DROP TABLE segments; DROP TABLE frames`);
}

/**
 * Schema 4's migration, a few hundred videos at a time: each clip transcript that is a run of its video's segments as
 * that run, each chunk text as pieces of the segments' text, each source description as an excerpt of its chunk's text.
 */
async function packText(client: PoolClient): Promise<void> {
  for (let after = 0; ; ) {
    const keys = (await client.query<{ key: number }>(`SELECT key FROM videos WHERE key > $1 ORDER BY key LIMIT 500`, [after])).rows.map((row) => row.key);
    if (keys.length === 0) break;
    after = keys.at(-1) as number;
    const segments = new Map<number, Segment[]>(keys.map((key) => [key, []]));
    const { rows: blocks } = await client.query<{ video_key: number; data: Buffer }>(
      `SELECT video_key, data FROM segment_blocks WHERE video_key = ANY($1::bigint[]) ORDER BY video_key, block_index`,
      [keys],
    );
    for (const block of blocks) segments.get(block.video_key)?.push(...new SegmentBlockView(block.data).segments());

    const clips = new Map<number, ClipText[]>(keys.map((key) => [key, []]));
    for (const clip of await plainClipTexts(client, "video", keys)) clips.get(clip.videoKey)?.push(clip);
    const runs = [...clips].flatMap(([key, own]) =>
      transcriptRuns(own.map((clip) => clip.transcript), segments.get(key) ?? []).flatMap((run, at) => (run ? [{ key: (own[at] as ClipText).key, ...run }] : [])),
    );
    await client.query(
      `UPDATE clips c SET transcript = '', transcript_first = u.first, transcript_last = u.last FROM unnest($1::bigint[], $2::integer[], $3::integer[]) AS u(key, first, last)
        WHERE c.key = u.key`,
      [runs.map((run) => run.key), runs.map((run) => run.first), runs.map((run) => run.last)],
    );

    const { rows: chunks } = await client.query<{ video_key: number; chunk_index: number; start_second: number; end_second: number; text: string }>(
      `SELECT video_key, chunk_index, start_second, end_second, text FROM chunks WHERE video_key = ANY($1::bigint[])`,
      [keys],
    );
    const segmentTexts = new Map([...segments].map(([key, own]) => [key, new SegmentText(own)]));
    const packed = chunks.flatMap((chunk) => {
      const text = segmentTexts.get(chunk.video_key);
      const pieces = text && packChunkText(chunk.text, text, chunk.start_second, chunk.end_second);
      return pieces ? [{ chunk, pieces, blocks: chunkTextBlocks(pieces) }] : [];
    });
    await client.query(
      `UPDATE chunks c SET text = '', packed_text = u.packed, packed_first_block = u.first, packed_last_block = u.last
        FROM unnest($1::bigint[], $2::integer[], $3::bytea[], $4::integer[], $5::integer[]) AS u(video_key, chunk_index, packed, first, last)
        WHERE c.video_key = u.video_key AND c.chunk_index = u.chunk_index`,
      [
        packed.map((entry) => entry.chunk.video_key),
        packed.map((entry) => entry.chunk.chunk_index),
        packed.map((entry) => entry.pieces),
        packed.map((entry) => entry.blocks[0]),
        packed.map((entry) => entry.blocks[1]),
      ],
    );

    const sources = new Map(chunks.map((chunk) => [`${chunk.video_key}:${chunk.chunk_index}`, excerptSource(chunk.text)]));
    for (const [table, owner] of [["entity_sources", "entity_key"], ["relation_sources", "relation_key"]] as const) {
      const { rows } = await client.query<{ owner: number; video_key: number; chunk_index: number; description: string }>(
        `SELECT ${owner} AS owner, video_key, chunk_index, description FROM ${table} WHERE video_key = ANY($1::bigint[])`,
        [keys],
      );
      const excerpts = rows.flatMap((row) => {
        const source = sources.get(`${row.video_key}:${row.chunk_index}`);
        const excerpt = source && encodeExcerpt(row.description, source);
        return excerpt ? [{ row, excerpt }] : [];
      });
      await client.query(
        `UPDATE ${table} s SET description = '', excerpt = u.excerpt
          FROM unnest($1::bigint[], $2::bigint[], $3::integer[], $4::bytea[]) AS u(owner, video_key, chunk_index, excerpt)
          WHERE s.${owner} = u.owner AND s.video_key = u.video_key AND s.chunk_index = u.chunk_index`,
        [excerpts.map((entry) => entry.row.owner), excerpts.map((entry) => entry.row.video_key), excerpts.map((entry) => entry.row.chunk_index), excerpts.map((entry) => entry.excerpt)],
      );
    }
  }
}

/** A clip's text, as indexed and as `getClips` gives it. */
interface ClipText {
  key: number;
  videoKey: number;
  clipIndex: number;
  transcript: string;
  screen: string;
  visual: string;
}

type ClipTextRow = TranscriptColumns & { key: number; video_key: number; clip_index: number; screen: string; visual: string };
const clipTextColumns = "key, video_key, clip_index, transcript, transcript_first, transcript_last, screen, visual";
const clipTextsByKey = prepared(
  withSegmentBlocks(`SELECT ${clipTextColumns} FROM clips WHERE key = ANY($1::bigint[])`, transcriptBlocks),
);
const clipTextsByVideo = prepared(
  withSegmentBlocks(`SELECT ${clipTextColumns} FROM clips WHERE video_key = ANY($1::bigint[])`, transcriptBlocks),
);

/** Clips by video id and index, in the order asked, with their text (see `readClipTexts`). */
const clipsAt = prepared(
  withSegmentBlocks(
    `SELECT k.position, v.id AS video_id, c.key, c.video_key, c.clip_index, c.start_second, c.end_second, c.transcript, c.transcript_first,
        c.transcript_last, c.screen, c.visual
      FROM unnest($1::text[], $2::integer[]) WITH ORDINALITY AS k(video_id, clip_index, position)
        JOIN videos v ON v.id = k.video_id AND v.status = 'ready'
        JOIN clips c ON c.video_key = v.key AND c.clip_index = k.clip_index`,
    transcriptBlocks,
  ),
);
/** Clips' text by clip key or by video key, ordered by video and clip index; transcripts joined from their segments. */
async function readClipTexts(client: PoolClient, by: "key" | "video", keys: number[]): Promise<ClipText[]> {
  if (keys.length === 0) return [];
  const read = await client.query<ClipTextRow & BlockColumns>({
    ...(by === "key" ? clipTextsByKey : clipTextsByVideo),
    values: [keys],
  });
  const { rows, blocks } = SegmentBlocks.split(read.rows);
  return rows
    .map((row) => ({ key: row.key, videoKey: row.video_key, clipIndex: row.clip_index, transcript: blocks.transcript(row.video_key, row), screen: row.screen, visual: row.visual }))
    .sort((x, y) => x.videoKey - y.videoKey || x.clipIndex - y.clipIndex);
}

/** Clip documents as indexed. */
const clipDocuments = (clips: ClipText[]): LexicalDocument[] => clips.map((clip) => ({ key: clip.key, videoKey: clip.videoKey, fields: [clip.transcript, clip.screen, clip.visual] }));

/** Whole-video documents as indexed: each video's clips in index order (see `videoDocument`). */
function videoDocuments(clips: ClipText[]): LexicalDocument[] {
  const byVideo = new Map<number, ClipText[]>();
  for (const clip of clips) {
    const own = byVideo.get(clip.videoKey);
    if (own) own.push(clip);
    else byVideo.set(clip.videoKey, [clip]);
  }
  return [...byVideo].map(([videoKey, own]) => wholeVideo(videoKey, own));
}

/** A video's whole-video document, from its clips (none for a video without clips: it is still a document). */
const wholeVideo = (videoKey: number, clips: ClipText[]): LexicalDocument => ({
  key: videoKey,
  videoKey,
  fields: videoDocument([...clips].sort((x, y) => x.clipIndex - y.clipIndex)),
});

const asFields = (documents: LexicalDocument[]): Map<number, string[]> => new Map(documents.map((document) => [document.key, document.fields]));

/** Clip documents' text, for counting phrases. */
const clipFields: FieldLoader = async (client, keys) => asFields(clipDocuments(await readClipTexts(client, "key", keys)));

/** Whole-video documents' text, rebuilt from their clips as they were indexed. */
const videoFields: FieldLoader = async (client, keys) => asFields(videoDocuments(await readClipTexts(client, "video", keys)));

/** Schema 1–3's clip text, plain in the clip rows: what the schema 2 migration may index again. */
async function plainClipTexts(client: PoolClient, by: "key" | "video", keys: number[]): Promise<ClipText[]> {
  const { rows } = await client.query<{ key: number; video_key: number; clip_index: number; transcript: string; screen: string; visual: string }>(
    `SELECT key, video_key, clip_index, transcript, screen, visual FROM clips WHERE ${by === "key" ? "key" : "video_key"} = ANY($1::bigint[])
      ORDER BY video_key, clip_index`,
    [keys],
  );
  return rows.map((row) => ({ key: row.key, videoKey: row.video_key, clipIndex: row.clip_index, transcript: row.transcript, screen: row.screen, visual: row.visual }));
}

const entityFields: FieldLoader = async (client, keys) => {
  const { rows } = await client.query<{ key: number; names: string; description: string }>(
    `SELECT e.key, concat_ws(E'\\n', e.name, (SELECT string_agg(a.name, E'\\n' ORDER BY a.name_key) FROM entity_aliases a
        WHERE a.entity_key = e.key)) AS names, e.description
      FROM entities e WHERE e.key = ANY($1::bigint[])`,
    [keys],
  );
  return new Map(rows.map((row) => [row.key, [row.names, row.description]]));
};

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
      await migratePostgres(client, where, {
        buildPostingLists: (client) =>
          buildPostingLists(client, {
            clip: async (client, keys) => asFields(clipDocuments(await plainClipTexts(client, "key", keys))),
            video: async (client, keys) => asFields(videoDocuments(await plainClipTexts(client, "video", keys))),
            entity: entityFields,
          }),
        packSegmentsAndFrames,
        packText,
      });
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
  return new PostgresStore(pool, where, options.readPostingsAtOnce ?? defaultReadAtOnce);
}

class PostgresStore implements Store {
  private readonly tokens = new Fts5Tokens();
  private readonly lexical: LexicalIndex;
  /** Segment blocks decoded for reads before (see block-cache.ts). */
  private readonly blockCache = new BlockCache();
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
  private async read<T>(action: string, work: (client: PoolClient) => Promise<T>): Promise<T> {
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
  private async write<T>(action: string, work: (client: PoolClient) => Promise<T>): Promise<T> {
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

  private async readyKey(client: PoolClient, id: string): Promise<number | undefined> {
    const { rows } = await client.query<{ key: number }>(`SELECT key FROM videos WHERE id = $1 AND status = 'ready'`, [id]);
    return rows[0]?.key;
  }

  private async readyKeys(client: PoolClient, ids: string[]): Promise<number[]> {
    const { rows } = await client.query<{ key: number }>(`SELECT key FROM videos WHERE status = 'ready' AND id = ANY($1::text[])`, [ids]);
    return rows.map((row) => row.key);
  }

  /**
   * Forgets entities' BM25 documents before their text (name, aliases, description) changes or they go: the rows are
   * locked, in key order, so no other writer changes that text before `indexEntities` indexes it again.
   */
  private async forgetEntities(client: PoolClient, keys: number[]): Promise<void> {
    if (keys.length === 0) return;
    await client.query(`SELECT key FROM entities WHERE key IN (SELECT k FROM unnest($1::bigint[]) AS k) ORDER BY key FOR UPDATE`, [keys]);
    const fields = await entityFields(client, keys);
    await this.lexical.remove(client, "entity", [...fields].map(([key, texts]) => ({ key, fields: texts })));
  }

  /** Indexes entities from their name, aliases and description: new ones, or ones `forgetEntities` forgot. */
  private async indexEntities(client: PoolClient, keys: number[]): Promise<void> {
    if (keys.length === 0) return;
    const fields = await entityFields(client, keys);
    await this.lexical.add(client, "entity", [...fields].map(([key, texts]) => ({ key, fields: texts })));
  }

  /**
   * Removes what a video contributed except its row; returns what its graph sources named, for `pruneGraph`. Its BM25
   * documents are forgotten from its text as stored; a video committed before (`ready`) has a whole-video document even
   * with no clip.
   */
  private async clearContent(client: PoolClient, videoKey: number, ready: boolean): Promise<TouchedGraph> {
    const touched = await this.clearGraph(client, videoKey);
    const clips = await readClipTexts(client, "video", [videoKey]);
    await this.lexical.remove(client, "clip", clipDocuments(clips));
    if (ready) await this.lexical.remove(client, "video", [wholeVideo(videoKey, clips)]);
    for (const table of ["clips", "segment_blocks", "frame_lists", "clip_stages"]) {
      await client.query(`DELETE FROM ${table} WHERE video_key = $1`, [videoKey]);
    }
    await client.query(`DELETE FROM vectors WHERE video_key = $1`, [videoKey]);
    await this.pruneSpaces(client);
    return touched;
  }

  private async clearGraph(client: PoolClient, videoKey: number): Promise<TouchedGraph> {
    const entities = await client.query<{ entity_key: number }>(`SELECT DISTINCT entity_key FROM entity_sources WHERE video_key = $1`, [videoKey]);
    const relations = await client.query<{ relation_key: number }>(`SELECT DISTINCT relation_key FROM relation_sources WHERE video_key = $1`, [videoKey]);
    await client.query(`DELETE FROM entity_sources WHERE video_key = $1`, [videoKey]);
    await client.query(`DELETE FROM relation_sources WHERE video_key = $1`, [videoKey]);
    await client.query(`DELETE FROM chunks WHERE video_key = $1`, [videoKey]);
    return { entityKeys: entities.rows.map((row) => row.entity_key), relationKeys: relations.rows.map((row) => row.relation_key) };
  }

  /** Deletes relations and entities left with no source among those touched, marks the surviving ones stale. */
  private async pruneGraph(client: PoolClient, touched: TouchedGraph): Promise<void> {
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
      await this.forgetEntities(client, orphans);
      await client.query(`DELETE FROM entities WHERE key = ANY($1::bigint[])`, [orphans]);
    }
    await this.markStale(client, touched.entityKeys);
  }

  /** Marks entities stale at a new change number, after every earlier one; keys sorted so writers lock alike. */
  private async markStale(client: PoolClient, keys: number[]): Promise<void> {
    if (keys.length === 0) return;
    await client.query(
      `UPDATE entities SET stale = true, change_sequence = (SELECT nextval('entity_change'))
        WHERE key IN (SELECT k FROM unnest($1::bigint[]) AS k ORDER BY k)`,
      [[...new Set(keys)].sort((a, b) => a - b)],
    );
  }

  private async pruneSpaces(client: PoolClient): Promise<void> {
    const { rows } = await client.query<{ key: number }>(
      `DELETE FROM vector_spaces s WHERE NOT EXISTS (SELECT 1 FROM vectors x WHERE x.space_key = s.key) RETURNING key`,
    );
    for (const { key } of rows) await client.query(`DROP INDEX IF EXISTS vectors_hnsw_${Number(key)}`);
  }

  /**
   * Writes clip rows, each transcript as its run of the video's segments where one gives it back (see packed-text.ts),
   * and their BM25 documents; returns the clips' text as indexed.
   */
  private async insertClips(client: PoolClient, videoKey: number, clips: ClipDocument[], segments: Segment[]): Promise<ClipText[]> {
    if (clips.length === 0) return [];
    const runs = transcriptRuns(clips.map((clip) => clip.transcript), segments);
    const { rows } = await client.query<{ key: number; clip_index: number }>(
      `INSERT INTO clips (video_key, clip_index, start_second, end_second, transcript, transcript_first, transcript_last, screen, visual)
        SELECT $1, * FROM unnest($2::integer[], $3::float8[], $4::float8[], $5::text[], $6::integer[], $7::integer[], $8::text[], $9::text[])
        RETURNING key, clip_index`,
      [
        videoKey,
        clips.map((clip) => clip.index),
        clips.map((clip) => clip.startSecond),
        clips.map((clip) => clip.endSecond),
        clips.map((clip, at) => (runs[at] ? "" : clip.transcript)),
        runs.map((run) => run?.first ?? null),
        runs.map((run) => run?.last ?? null),
        clips.map((clip) => clip.screen),
        clips.map((clip) => clip.visual),
      ],
    );
    const keys = new Map(rows.map((row) => [row.clip_index, row.key]));
    const texts = clips.map((clip) => ({ key: keys.get(clip.index) as number, videoKey, clipIndex: clip.index, transcript: clip.transcript, screen: clip.screen, visual: clip.visual }));
    await this.lexical.add(client, "clip", clipDocuments(texts));
    return texts;
  }

  /** A video's segments in the order they were written. */
  private async readSegments(client: PoolClient, videoKey: number): Promise<Segment[]> {
    const { rows } = await client.query<{ data: Buffer }>(`SELECT data FROM segment_blocks WHERE video_key = $1 ORDER BY block_index`, [videoKey]);
    return rows.flatMap((row) => new SegmentBlockView(row.data).segments());
  }

  /** Replaces a video's segments with these, in this order. */
  private async writeSegments(client: PoolClient, videoKey: number, segments: Segment[]): Promise<void> {
    await client.query(`DELETE FROM segment_blocks WHERE video_key = $1`, [videoKey]);
    await insertSegmentBlocks(client, [{ videoKey, segments }]);
  }

  private async upsertClipStages(client: PoolClient, videoKey: number, records: VideoContent["clipStages"] = []): Promise<void> {
    if (records.length === 0) return;
    await client.query(
      `INSERT INTO clip_stages (video_key, clip_index, stage, key, status, error)
        SELECT $1, * FROM unnest($2::integer[], $3::text[], $4::text[], $5::text[], $6::text[])
        ON CONFLICT (video_key, clip_index, stage) DO UPDATE SET key = excluded.key, status = excluded.status, error = excluded.error`,
      [
        videoKey,
        records.map((record) => record.clipIndex),
        records.map((record) => record.stage),
        records.map((record) => record.key),
        records.map((record) => record.status),
        records.map((record) => record.error ?? null),
      ],
    );
  }

  /** Writes vectors, creating spaces (and their HNSW index) on first use; a wrong dimension is ARGUMENT_INVALID. */
  private async writeVectors(client: PoolClient, videoKey: number, videoId: string, records: VectorRecord[]): Promise<void> {
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

  /**
   * Merges a video's graph into the library's (graph/merge-graph.ts decides; this writes). Names are looked up together;
   * new entities are inserted in name order, and a name another writer inserted meanwhile is read back, not duplicated.
   */
  /**
   * Merges a video's graph into the library's. Chunk texts are kept as pieces of the video's segments (`segments`, as
   * stored) and source descriptions as excerpts of their chunk's text, where that is shorter (see packed-text.ts).
   */
  private async writeGraph(client: PoolClient, videoKey: number, videoId: string, graph: VideoGraph, clipIndexes: Set<number>, segments: SegmentText): Promise<void> {
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
    const named = await this.entityKeysByName(client, nameKeys);
    const entityKeys = new Map<string, number>();
    const aliases: { nameKey: string; key: number; name: string }[] = [];
    const fresh: string[] = [];
    for (const [nameKey, plan] of plans) {
      const candidates: EntityCandidates = { named: named.get(nameKey) };
      if (candidates.named === undefined && plan.vector && space !== undefined) {
        candidates.nearest = await this.nearestEntity(client, space, plan.type, plan.vector);
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
    await this.forgetEntities(client, aliased);
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
      const created = await this.entityKeysByName(client, fresh);
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
    await this.indexEntities(client, [...new Set([...newKeys, ...aliased])]);
    await this.markStale(client, [...entityKeys.values()]);

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
  private async entityKeysByName(client: PoolClient, nameKeys: string[]): Promise<Map<string, number>> {
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

  private async nearestEntity(client: PoolClient, space: string, type: string, vector: Float32Array): Promise<EntityCandidates["nearest"]> {
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

  /** Entities with their sources: every one, or the first `limit` of each. */
  private async withSources(client: PoolClient, rows: EntityRow[], limit?: number): Promise<GraphEntity[]> {
    if (rows.length === 0) return [];
    const sources = new Map<number, GraphSource[]>();
    for (const row of await this.readySources(client, "entity_sources", rows.map((entity) => entity.key), limit)) {
      const own = sources.get(row.owner_key) ?? [];
      own.push(toSource(row));
      sources.set(row.owner_key, own);
    }
    return rows.map((row) => ({
      key: row.key,
      nameKey: row.name_key,
      name: row.name,
      type: row.type,
      description: row.description,
      descriptionStale: row.stale,
      changeSequence: row.change_sequence,
      sources: sources.get(row.key) ?? [],
    }));
  }

  /** The sources of these owners: every one, or the first `limit` of each (and a relation's strongest). */
  private async readySources(client: PoolClient, table: "entity_sources" | "relation_sources", keys: number[], limit?: number): Promise<SourceRow[]> {
    if (limit === 0 && table === "entity_sources") return [];
    const read = await client.query<StoredSourceRow & { position: number } & BlockColumns>(
      limit === undefined ? { ...readySourcesOf[table], values: [keys] } : { ...firstSourcesOf[table], values: [keys, limit] },
    );
    const { rows, blocks } = SegmentBlocks.split(read.rows, this.blockCache);
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

  async listVideos(): Promise<Video[]> {
    return this.read("cannot list videos", async (client) =>
      (await client.query<VideoRow>(`SELECT ${videoColumns} FROM videos WHERE status = 'ready' ORDER BY ingested_at DESC, key DESC`)).rows.map(toVideo),
    );
  }

  async getVideo(id: string): Promise<Video | undefined> {
    return (await this.getVideos([id]))[0];
  }

  async getVideos(ids: string[]): Promise<(Video | undefined)[]> {
    if (ids.length === 0) return [];
    return this.read("cannot read videos", async (client) => {
      const { rows } = await client.query<VideoRow>({ ...readyVideos, values: [ids] });
      const byId = new Map(rows.map((row) => [row.id, toVideo(row)]));
      return ids.map((id) => byId.get(id));
    });
  }

  async getFingerprint(id: string): Promise<string | undefined> {
    return this.read("cannot read a fingerprint", async (client) => {
      const row = (await client.query<{ fingerprint: string | null }>(`SELECT fingerprint FROM videos WHERE id = $1 AND status = 'ready'`, [id])).rows[0];
      return row?.fingerprint ?? undefined;
    });
  }

  async removeVideo(id: string): Promise<boolean> {
    return this.write(`cannot remove ${id}`, async (client) => {
      const row = (await client.query<{ key: number; status: string }>(`SELECT key, status FROM videos WHERE id = $1 FOR UPDATE`, [id])).rows[0];
      if (!row) return false;
      await this.pruneGraph(client, await this.clearContent(client, row.key, row.status === "ready"));
      await client.query(`DELETE FROM videos WHERE key = $1`, [row.key]);
      return row.status === "ready";
    });
  }

  async loadStages(videoId: string): Promise<StageRecord[]> {
    return this.read("cannot load stages", async (client) =>
      (
        await client.query<{ stage: string; key: string; output: string }>(
          `SELECT s.stage, s.key, s.output FROM stages s JOIN videos v ON v.key = s.video_key WHERE v.id = $1 ORDER BY s.position`,
          [videoId],
        )
      ).rows.map((row) => ({ stage: row.stage, key: row.key, output: JSON.parse(row.output) as unknown })),
    );
  }

  async saveStage(videoId: string, record: StageRecord): Promise<void> {
    await this.write(`cannot save stage ${record.stage}`, async (client) => {
      // A video being ingested for the first time exists only as a pending row, which no reader ever lists.
      await client.query(`INSERT INTO videos (id, status) VALUES ($1, 'pending') ON CONFLICT (id) DO NOTHING`, [videoId]);
      await client.query(
        `INSERT INTO stages (video_key, stage, key, output) SELECT key, $1, $2, $3 FROM videos WHERE id = $4
          ON CONFLICT (video_key, stage) DO UPDATE SET key = excluded.key, output = excluded.output`,
        [record.stage, record.key, JSON.stringify(record.output ?? null), videoId],
      );
    });
  }

  async discardStages(videoId: string): Promise<void> {
    await this.write("cannot discard stages", async (client) => {
      const row = (await client.query<{ key: number; status: string }>(`SELECT key, status FROM videos WHERE id = $1 FOR UPDATE`, [videoId])).rows[0];
      if (!row) return;
      if (row.status === "pending") await client.query(`DELETE FROM videos WHERE key = $1`, [row.key]);
      else await client.query(`DELETE FROM stages WHERE video_key = $1`, [row.key]);
    });
  }

  async commitVideo(content: VideoContent): Promise<void> {
    const { video } = content;
    await this.write(`cannot commit ${video.id}`, async (client) => {
      // The row is locked first, so two workers committing the same video take turns instead of interleaving.
      await client.query(`INSERT INTO videos (id, status) VALUES ($1, 'pending') ON CONFLICT (id) DO NOTHING`, [video.id]);
      const existing = (await client.query<{ key: number; status: string }>(`SELECT key, status FROM videos WHERE id = $1 FOR UPDATE`, [video.id])).rows[0];
      if (!existing) throw new VideoRagError("STORE_FAILED", `the row of ${video.id} vanished while committing`);
      const key = existing.key;
      const replaced = await this.clearContent(client, key, existing.status === "ready");
      await client.query(`DELETE FROM stages WHERE video_key = $1`, [key]);
      await client.query(
        `UPDATE videos SET status = 'ready', path = $2, title = $3, kind = $4, duration_seconds = $5, size_bytes = $6, width = $7,
          height = $8, has_audio = $9, has_video = $10, times_estimated = $11, ingested_at = $12, clip_count = $13, fingerprint = $14
          WHERE key = $1`,
        [
          key, video.path, video.title, video.kind, video.durationSeconds, video.sizeBytes, video.width ?? null, video.height ?? null,
          video.hasAudio, video.hasVideo, video.timesEstimated, new Date().toISOString(), content.clips.length, content.fingerprint,
        ],
      );
      await this.writeSegments(client, key, content.segments);
      const clips = await this.insertClips(client, key, content.clips, content.segments);
      await this.lexical.add(client, "video", [wholeVideo(key, clips)]);
      if (content.frames.length > 0) await client.query(`INSERT INTO frame_lists (video_key, frames) VALUES ($1, $2)`, [key, encodeFrames(content.frames)]);
      const signals = content.signals ?? [];
      if (signals.length > 0) {
        await client.query(
          `UPDATE clips c SET speech_seconds = s.speech_seconds, speech_regions = s.speech_regions, screen_changes = s.screen_changes
            FROM unnest($2::integer[], $3::float8[], $4::text[], $5::integer[]) AS s(clip_index, speech_seconds, speech_regions, screen_changes)
            WHERE c.video_key = $1 AND c.clip_index = s.clip_index`,
          [
            key,
            signals.map((signal) => signal.clipIndex),
            signals.map((signal) => signal.speechSeconds ?? null),
            signals.map((signal) => (signal.speechRegions ? JSON.stringify(signal.speechRegions) : null)),
            signals.map((signal) => signal.screenChanges),
          ],
        );
      }
      await this.upsertClipStages(client, key, content.clipStages);
      await this.writeVectors(client, key, video.id, content.vectors ?? []);
      if (content.graph) {
        await this.writeGraph(client, key, video.id, content.graph, new Set(content.clips.map((clip) => clip.index)), new SegmentText(content.segments));
      }
      await this.pruneGraph(client, replaced);
    });
  }

  async addVectors(videoId: string, records: VectorRecord[]): Promise<void> {
    await this.write(`cannot add vectors to ${videoId}`, async (client) => {
      const key = await this.readyKey(client, videoId);
      if (key === undefined) throw new VideoRagError("VIDEO_NOT_FOUND", `no video ${videoId} to add vectors to`, { subject: videoId });
      await this.writeVectors(client, key, videoId, records);
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
    return this.write("cannot search vectors", async (client) => {
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
        const keys = await this.readyKeys(client, query.videoIds);
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
    return this.read("cannot list vector spaces", async (client) =>
      (
        await client.query<VectorSpace>(
          `SELECT s.name AS space, s.dimensions, count(*)::integer AS count FROM vector_spaces s JOIN vectors x ON x.space_key = s.key
            GROUP BY s.key ORDER BY s.name COLLATE "C"`,
        )
      ).rows,
    );
  }

  async vectorCount(videoId?: string): Promise<number> {
    return this.read("cannot count vectors", async (client) => {
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

  /** The query's field weights, checked as SQLite's store checks them. */
  private lexicalQuery(query: LexicalQuery): { weights: number[]; limit: number } {
    const field = { ...defaultFieldWeights, ...query.fieldWeights };
    const weights = [field.transcript, field.screen, field.visual];
    if (!weights.every((weight) => Number.isFinite(weight) && weight >= 0) || !(query.limit >= 0) || !Number.isFinite(query.limit)) {
      throw new VideoRagError("ARGUMENT_INVALID", "a search needs a limit ≥ 0 and field weights that are numbers ≥ 0");
    }
    return { weights, limit: Math.floor(query.limit) };
  }

  private async searchIndex(client: PoolClient, index: "clip" | "video", query: LexicalQuery): Promise<[number, number][]> {
    const { weights, limit } = this.lexicalQuery(query);
    const terms = termWeights(query.terms);
    const phrases = (query.phrases ?? []).filter(hasToken);
    if (limit === 0 || (terms.size === 0 && phrases.length === 0)) return [];
    return this.lexical.search(
      client,
      index,
      { terms, phrases, fieldWeights: weights, limit, ...(query.videoIds ? { videoIds: query.videoIds } : {}) },
      index === "clip" ? clipFields : videoFields,
    );
  }

  async searchClips(query: LexicalQuery): Promise<ClipMatch[]> {
    return this.read("cannot search clips", async (client) => {
      const matches = await this.searchIndex(client, "clip", query);
      if (matches.length === 0) return [];
      const { rows } = await client.query<{ key: number; video_id: string; clip_index: number; start_second: number; end_second: number }>({
        ...clipsByKey,
        values: [matches.map(([key]) => key)],
      });
      const byKey = new Map(rows.map((row) => [row.key, row]));
      return matches.flatMap(([key, score]) => {
        const row = byKey.get(key);
        return row ? [{ videoId: row.video_id, clipIndex: row.clip_index, startSecond: row.start_second, endSecond: row.end_second, score }] : [];
      });
    });
  }

  async searchVideos(query: LexicalQuery): Promise<VideoMatch[]> {
    return this.read("cannot search videos", async (client) => {
      const matches = await this.searchIndex(client, "video", query);
      if (matches.length === 0) return [];
      const { rows } = await client.query<{ key: number; id: string }>({ ...videoIdsByKey, values: [matches.map(([key]) => key)] });
      const ids = new Map(rows.map((row) => [row.key, row.id]));
      return matches.flatMap(([key, score]) => {
        const videoId = ids.get(key);
        return videoId === undefined ? [] : [{ videoId, score }];
      });
    });
  }

  async getClips(keys: { videoId: string; clipIndex: number }[]): Promise<ClipDocument[]> {
    if (keys.length === 0) return [];
    return this.read("cannot read clips", async (client) => {
      const read = await client.query<ClipTextRow & { position: number; video_id: string; start_second: number; end_second: number } & BlockColumns>({
        ...clipsAt,
        values: [keys.map((key) => key.videoId), keys.map((key) => key.clipIndex)],
      });
      const { rows, blocks } = SegmentBlocks.split(read.rows, this.blockCache);
      return rows
        .sort((x, y) => x.position - y.position)
        .map((row) => ({
          videoId: row.video_id,
          index: row.clip_index,
          startSecond: row.start_second,
          endSecond: row.end_second,
          transcript: blocks.transcript(row.video_key, row),
          screen: row.screen,
          visual: row.visual,
        }));
    });
  }

  async getSegments(videoId: string, startSecond: number, endSecond: number): Promise<(Segment & { source: SegmentSource })[]> {
    return (await this.getSegmentRanges([{ videoId, startSecond, endSecond }]))[0] ?? [];
  }

  async getSegmentRanges(ranges: SegmentRange[]): Promise<(Segment & { source: SegmentSource })[][]> {
    if (ranges.length === 0) return [];
    return this.read("cannot read segments", async (client) => {
      const { rows } = await client.query<{ video_id: string; video_key: number; block_index: number; min_start_second: number; max_start_second: number; max_end_second: number; data: Buffer }>({
        ...segmentBlocksOfRanges,
        values: [ranges.map((range) => range.videoId), ranges.map((range) => range.startSecond), ranges.map((range) => range.endSecond)],
      });
      // Each block is decoded once, however many of the ranges it serves.
      const blocks = new Map<string, { videoKey: number; blockIndex: number; minStartSecond: number; maxStartSecond: number; maxEndSecond: number; data: Buffer; view?: SegmentBlockView }[]>();
      for (const row of rows) {
        const block = { videoKey: row.video_key, blockIndex: row.block_index, minStartSecond: row.min_start_second, maxStartSecond: row.max_start_second, maxEndSecond: row.max_end_second, data: row.data };
        const ofVideo = blocks.get(row.video_id);
        if (ofVideo) ofVideo.push(block);
        else blocks.set(row.video_id, [block]);
      }
      return ranges.map(({ videoId, startSecond, endSecond }) => {
        const holding = (blocks.get(videoId) ?? []).filter((block) => blockMayHold(block, startSecond, endSecond));
        return segmentsInWindow(holding.map((block) => ({ blockIndex: block.blockIndex, view: (block.view ??= this.blockCache.decode(block.videoKey, block.blockIndex, block.data)) })), startSecond, endSecond);
      });
    });
  }



  async termDocumentFrequency(terms: string[]): Promise<{ frequencies: Map<string, number>; documentCount: number }> {
    // A term with no token counts 0 there, as FTS5 has nothing to match it with.
    return this.read("cannot count terms", (client) => this.lexical.documentFrequency(client, "clip", terms, clipFields));
  }

  async searchEntities(query: { terms: { text: string; weight: number }[]; limit: number; videoIds?: string[] }): Promise<EntityMatch[]> {
    if (!(query.limit >= 0) || !Number.isFinite(query.limit)) throw new VideoRagError("ARGUMENT_INVALID", "an entity search needs a limit ≥ 0");
    return this.read("cannot search entities", async (client) => {
      const limit = Math.floor(query.limit);
      const terms = termWeights(query.terms);
      if (limit === 0 || terms.size === 0) return [];
      const fieldWeights = [entityFieldWeights.name, entityFieldWeights.description];
      let matches: [number, number][];
      if (query.videoIds) {
        // Entities with a source in those videos: ranked among all, then kept, as SQLite's filtered MATCH does.
        const all = await this.lexical.search(client, "entity", { terms, phrases: [], fieldWeights, limit: Number.MAX_SAFE_INTEGER }, entityFields);
        const { rows } = await client.query<{ key: number }>(
          `SELECT DISTINCT s.entity_key AS key FROM entity_sources s JOIN videos v ON v.key = s.video_key
            WHERE v.status = 'ready' AND v.id = ANY($1::text[]) AND s.entity_key = ANY($2::bigint[])`,
          [query.videoIds, all.map(([key]) => key)],
        );
        const kept = new Set(rows.map((row) => row.key));
        matches = all.filter(([key]) => kept.has(key)).slice(0, limit);
      } else {
        matches = await this.lexical.search(client, "entity", { terms, phrases: [], fieldWeights, limit }, entityFields);
      }
      if (matches.length === 0) return [];
      const { rows } = await client.query<EntityRow>({ ...entitiesByKey, values: [matches.map(([key]) => key)] });
      const byKey = new Map(rows.map((row) => [row.key, row]));
      return matches.flatMap(([key, score]) => {
        const row = byKey.get(key);
        return row ? [{ key, name: row.name, type: row.type, description: row.description, score }] : [];
      });
    });
  }

  async getEntity(reference: number | string, options: { sourceLimit?: number } = {}): Promise<GraphEntity | undefined> {
    if (options.sourceLimit !== undefined) checkCount(options.sourceLimit, "the source limit");
    return this.read("cannot read an entity", async (client) => {
      const key = typeof reference === "number" ? reference : (await this.entityKeysByName(client, [reference])).get(reference);
      if (key === undefined || !Number.isSafeInteger(key)) return undefined;
      const row = (await client.query<EntityRow>(`SELECT ${entityColumns} FROM entities e WHERE e.key = $1`, [key])).rows[0];
      return row ? (await this.withSources(client, [row], options.sourceLimit))[0] : undefined;
    });
  }

  async entityChunks(entityKeys: number[], options: { limitPerEntity?: number; videoIds?: string[] } = {}): Promise<{ entityKey: number; videoId: string; chunkIndex: number }[]> {
    const limit = options.limitPerEntity ?? defaultChunksPerEntity;
    checkCount(limit, "limitPerEntity");
    if (entityKeys.length === 0 || limit === 0) return [];
    return this.read("cannot read entity chunks", async (client) => {
      const { rows } = await client.query<{ entityKey: number; videoId: string; chunkIndex: number }>({ ...chunksOfEntities, values: [entityKeys, options.videoIds ?? null, limit] });
      return rows;
    });
  }

  async relationsAmong(entityKeys: number[]): Promise<GraphRelation[]> {
    if (entityKeys.length < 2) return [];
    return this.read("cannot read relations", async (client) => {
      const { rows } = await client.query<{ key: number; source_key: number; target_key: number }>({ ...relationsAmongEntities, values: [entityKeys] });
      return (await this.withRelationSources(client, rows)).sort((a, b) => b.strength - a.strength || a.sourceKey - b.sourceKey || a.targetKey - b.targetKey);
    });
  }

  async relationsOf(entityKey: number, limit = defaultRelationsPerEntity, options: { sourceLimit?: number } = {}): Promise<GraphRelation[]> {
    checkCount(limit, "the relation limit");
    if (options.sourceLimit !== undefined) checkCount(options.sourceLimit, "the source limit");
    if (limit === 0) return [];
    return this.read("cannot read relations", async (client) => {
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
    return this.read("cannot read chunks", async (client) => {
      type Row = ChunkTextColumns & { position: number; video_key: number; video_id: string; chunk_index: number; clip_start: number; clip_end: number; start_second: number; end_second: number; token_count: number };
      const read = await client.query<Row & BlockColumns>({ ...chunksAt, values: [keys.map((key) => key.videoId), keys.map((key) => key.chunkIndex)] });
      const { rows, blocks } = SegmentBlocks.split(read.rows, this.blockCache);
      return rows
        .sort((x, y) => x.position - y.position)
        .map((row) => ({
          videoId: row.video_id,
          index: row.chunk_index,
          clipStart: row.clip_start,
          clipEnd: row.clip_end,
          startSecond: row.start_second,
          endSecond: row.end_second,
          text: blocks.chunkText(row.video_key, row.chunk_index, row),
          tokenCount: row.token_count,
        }));
    });
  }

  async staleEntities(limit: number): Promise<GraphEntity[]> {
    checkCount(limit, "the stale entity limit");
    return this.read("cannot list stale entities", async (client) => {
      const { rows } = await client.query<EntityRow>(`SELECT ${entityColumns} FROM entities e WHERE e.stale ORDER BY e.change_sequence, e.key LIMIT $1`, [limit]);
      return this.withSources(client, rows);
    });
  }

  async setEntityDescriptions(updates: EntityDescriptionUpdate[]): Promise<number> {
    for (const update of updates) {
      if (typeof update.description !== "string") throw new VideoRagError("ARGUMENT_INVALID", `entity ${update.key}'s description must be text`);
    }
    if (updates.length === 0) return 0;
    return this.write("cannot describe entities", async (client) => {
      const keys = updates.map((update) => update.key);
      await this.forgetEntities(client, keys);
      const { rows } = await client.query<{ key: number }>(
        `UPDATE entities e SET description = u.description, stale = false
          FROM unnest($1::bigint[], $2::text[], $3::bigint[]) AS u(key, description, change_sequence)
          WHERE e.key = u.key AND (u.change_sequence IS NULL OR e.change_sequence = u.change_sequence)
          RETURNING e.key`,
        [updates.map((update) => update.key), updates.map((update) => update.description), updates.map((update) => update.changeSequence ?? null)],
      );
      await this.indexEntities(client, keys);
      return rows.length;
    });
  }

  async graphStats(): Promise<GraphStats> {
    return this.read("cannot count the graph", async (client) => {
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
    return this.read("cannot list a video's entities", async (client) => {
      const { rows } = await client.query<EntityMatch>(
        `SELECT e.key, e.name, e.type, e.description, count(*)::integer AS score
          FROM videos v JOIN entity_sources s ON s.video_key = v.key JOIN entities e ON e.key = s.entity_key
          WHERE v.id = $1 AND v.status = 'ready' GROUP BY e.key ORDER BY score DESC, e.name COLLATE "C" LIMIT $2`,
        [videoId, Math.floor(limit)],
      );
      return rows;
    });
  }

  async getFrames(videoId: string, startSecond: number, endSecond: number): Promise<Frame[]> {
    return this.read("cannot read frames", async (client) => {
      const { rows } = await client.query<{ frames: Buffer }>(
        `SELECT f.frames FROM frame_lists f JOIN videos v ON v.key = f.video_key WHERE v.id = $1 AND v.status = 'ready'`,
        [videoId],
      );
      const packed = rows[0]?.frames;
      return packed ? framesInWindow(packed, startSecond, endSecond) : [];
    });
  }

  async clipSignals(videoId: string, clipIndexes?: number[]): Promise<ClipSignals[]> {
    return this.read("cannot read clip signals", async (client) => {
      const { rows } = await client.query<{ clip_index: number; speech_seconds: number | null; speech_regions: string | null; screen_changes: number; asked: number }>(
        `SELECT c.clip_index, c.speech_seconds, c.speech_regions, c.screen_changes, c.asked
          FROM clips c JOIN videos v ON v.key = c.video_key WHERE v.id = $1 AND v.status = 'ready' ORDER BY c.clip_index`,
        [videoId],
      );
      const wanted = clipIndexes ? new Set(clipIndexes) : undefined;
      return rows
        .filter((row) => !wanted || wanted.has(row.clip_index))
        .map((row) => ({
          clipIndex: row.clip_index,
          ...(row.speech_seconds === null ? {} : { speechSeconds: row.speech_seconds }),
          ...(row.speech_regions === null ? {} : { speechRegions: JSON.parse(row.speech_regions) as [number, number][] }),
          screenChanges: row.screen_changes,
          asked: row.asked,
        }));
    });
  }

  async markAsked(clips: { videoId: string; clipIndex: number }[]): Promise<void> {
    if (clips.length === 0) return;
    await this.write("cannot mark clips asked", async (client) => {
      // One count per mention, as one UPDATE per clip would give; in key order, so two writers lock alike.
      await client.query(
        `UPDATE clips c SET asked = c.asked + k.times
          FROM (SELECT v.key AS video_key, k.clip_index, count(*)::integer AS times
            FROM unnest($1::text[], $2::integer[]) AS k(video_id, clip_index) JOIN videos v ON v.id = k.video_id AND v.status = 'ready'
            GROUP BY v.key, k.clip_index ORDER BY 1, 2) k
          WHERE c.video_key = k.video_key AND c.clip_index = k.clip_index`,
        [clips.map((clip) => clip.videoId), clips.map((clip) => clip.clipIndex)],
      );
    });
  }

  async clipStages(filter: { videoId?: string; statuses?: ClipStageStatus[] } = {}): Promise<ClipStageState[]> {
    return this.read("cannot read clip stages", async (client) => {
      const { rows } = await client.query<{ video_id: string; clip_index: number; stage: string; key: string; status: ClipStageStatus; error: string | null }>(
        `SELECT v.id AS video_id, s.clip_index, s.stage, s.key, s.status, s.error
          FROM clip_stages s JOIN videos v ON v.key = s.video_key
          WHERE v.status = 'ready' AND ($1::text IS NULL OR v.id = $1) AND ($2::text[] IS NULL OR s.status = ANY($2::text[]))
          ORDER BY v.key, s.clip_index, s.stage COLLATE "C"`,
        [filter.videoId ?? null, filter.statuses ?? null],
      );
      return rows.map((row) => ({
        videoId: row.video_id,
        clipIndex: row.clip_index,
        stage: row.stage,
        key: row.key,
        status: row.status,
        ...(row.error === null ? {} : { error: row.error }),
      }));
    });
  }

  async writeBack(update: ClipWriteBack): Promise<void> {
    await this.write(`cannot write back to ${update.videoId}`, async (client) => {
      const row = (await client.query<{ key: number }>(`SELECT key FROM videos WHERE id = $1 AND status = 'ready' FOR UPDATE`, [update.videoId])).rows[0];
      if (!row) throw new VideoRagError("VIDEO_NOT_FOUND", `no video ${update.videoId} to write back to`, { subject: update.videoId });
      const videoKey = row.key;
      const segmentsChange = update.replaces.length > 0 || update.segments.length > 0;
      // The last document given for a clip wins.
      const documents = [...new Map(update.documents.map((document) => [document.index, document])).values()];
      // What is derived from the text about to change is read first, as it reads now: clip transcripts are runs of
      // segment positions, chunk texts are pieces of the segments' text, and BM25 documents are forgotten from their text.
      const before = segmentsChange || documents.length > 0 ? await readClipTexts(client, "video", [videoKey]) : [];
      const chunks = segmentsChange && !update.graph ? await readChunkTexts(client, videoKey) : [];
      let segments: Segment[] | undefined;
      if (segmentsChange) {
        // Each clip's text from the replaced sources goes; the new segments follow what is kept, as rows inserted later would.
        const replaced = new Map(update.replaces.map((replace) => [replace.clipIndex, new Set<SegmentSource>(replace.sources)]));
        const kept = (await this.readSegments(client, videoKey)).filter(
          (segment) => !(segment.clipIndex !== undefined && replaced.get(segment.clipIndex)?.has(segment.source as SegmentSource)),
        );
        segments = [...kept, ...update.segments];
        await this.writeSegments(client, videoKey, segments);
      }
      if (segmentsChange || documents.length > 0) {
        const texts = new Map(before.map((clip) => [clip.clipIndex, clip]));
        const changed = documents.map((document) => {
          const old = texts.get(document.index);
          if (!old) throw new VideoRagError("ARGUMENT_INVALID", `${update.videoId} has no clip ${document.index}`, { subject: update.videoId });
          return { ...old, transcript: document.transcript, screen: document.screen, visual: document.visual };
        });
        if (changed.length > 0) {
          await this.lexical.remove(client, "clip", clipDocuments(changed.map((clip) => texts.get(clip.clipIndex) as ClipText)));
          await this.lexical.remove(client, "video", [wholeVideo(videoKey, before)]);
        }
        for (const clip of changed) texts.set(clip.clipIndex, clip);
        // Positions move when segments go, so every clip's run is found again; clips that did not change keep their text.
        const clips = [...texts.values()];
        const runs = transcriptRuns(clips.map((clip) => clip.transcript), segments ?? (await this.readSegments(client, videoKey)));
        await client.query(
          `UPDATE clips c SET transcript = u.transcript, transcript_first = u.first, transcript_last = u.last, screen = u.screen, visual = u.visual
            FROM unnest($1::bigint[], $2::text[], $3::integer[], $4::integer[], $5::text[], $6::text[]) AS u(key, transcript, first, last, screen, visual)
            WHERE c.key = u.key`,
          [
            clips.map((clip) => clip.key),
            clips.map((clip, at) => (runs[at] ? "" : clip.transcript)),
            runs.map((run) => run?.first ?? null),
            runs.map((run) => run?.last ?? null),
            clips.map((clip) => clip.screen),
            clips.map((clip) => clip.visual),
          ],
        );
        if (changed.length > 0) {
          await this.lexical.add(client, "clip", clipDocuments(changed));
          await this.lexical.add(client, "video", [wholeVideo(videoKey, clips)]);
        }
      }
      const replaceFrames = update.replaceFrameVectors ?? [];
      if (replaceFrames.length > 0) {
        await client.query(`DELETE FROM vectors WHERE video_key = $1 AND clip_index = ANY($2::integer[]) AND owner = 'frame'`, [videoKey, replaceFrames]);
      }
      await this.writeVectors(client, videoKey, update.videoId, update.vectors);
      if (replaceFrames.length > 0) await this.pruneSpaces(client);
      if (update.graph) {
        // The old sources go before the new graph is written and their entities are pruned after, so an entity both
        // name keeps its key, description and aliases.
        const touched = await this.clearGraph(client, videoKey);
        const { rows: indexes } = await client.query<{ clip_index: number }>(`SELECT clip_index FROM clips WHERE video_key = $1`, [videoKey]);
        const segmentText = new SegmentText(segments ?? (await this.readSegments(client, videoKey)));
        await this.writeGraph(client, videoKey, update.videoId, update.graph, new Set(indexes.map((clip) => clip.clip_index)), segmentText);
        await this.pruneGraph(client, touched);
      } else if (chunks.length > 0) {
        // The chunks stay, but the segments they were packed against moved: they are packed against the new ones.
        const segmentText = new SegmentText(segments ?? []);
        const packed = chunks.map((chunk) => packChunkText(chunk.text, segmentText, chunk.startSecond, chunk.endSecond));
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
      await this.upsertClipStages(client, videoKey, update.stages);
    });
  }

  async refreshStageKey(stage: string, key: string): Promise<number> {
    return this.write(`cannot refresh stage ${stage}`, async (client) => {
      const { rowCount } = await client.query(`UPDATE clip_stages SET key = $2, status = 'pending', error = NULL WHERE stage = $1 AND key <> $2`, [stage, key]);
      return rowCount ?? 0;
    });
  }

  async extractionStatus(): Promise<ExtractionStatus> {
    return this.read("cannot read the extraction status", async (client) => {
      const stages: ExtractionStatus["stages"] = {};
      const counts = await client.query<{ stage: string; status: ClipStageStatus; count: number }>(
        `SELECT s.stage, s.status, count(*)::integer AS count FROM clip_stages s JOIN videos v ON v.key = s.video_key
          WHERE v.status = 'ready' GROUP BY s.stage, s.status`,
      );
      for (const row of counts.rows) {
        const entry = (stages[row.stage] ??= { done: 0, pending: 0, failed: 0 });
        entry[row.status] = row.count;
      }
      const { rows } = await client.query<{ video_id: string; clips: number; failed: number; pending: number }>(
        `SELECT v.id AS video_id, count(*)::integer AS clips,
            count(*) FILTER (WHERE coalesce(x.failed, 0) > 0)::integer AS failed,
            count(*) FILTER (WHERE coalesce(x.failed, 0) = 0 AND coalesce(x.pending, 0) > 0)::integer AS pending
          FROM videos v JOIN clips c ON c.video_key = v.key
            LEFT JOIN (SELECT video_key, clip_index, count(*) FILTER (WHERE status = 'pending') AS pending,
                count(*) FILTER (WHERE status = 'failed') AS failed
              FROM clip_stages WHERE status <> 'done' GROUP BY video_key, clip_index) x
              ON x.video_key = c.video_key AND x.clip_index = c.clip_index
          WHERE v.status = 'ready' GROUP BY v.key ORDER BY v.ingested_at DESC, v.key DESC`,
      );
      const byVideo = rows.map((row) => ({
        videoId: row.video_id,
        clips: row.clips,
        extractedClips: row.clips - row.failed - row.pending,
        pendingClips: row.pending,
        failedClips: row.failed,
      }));
      const sum = (pick: (entry: (typeof byVideo)[number]) => number): number => byVideo.reduce((total, entry) => total + pick(entry), 0);
      return {
        videos: byVideo.length,
        clips: sum((entry) => entry.clips),
        extractedClips: sum((entry) => entry.extractedClips),
        pendingClips: sum((entry) => entry.pendingClips),
        failedClips: sum((entry) => entry.failedClips),
        stages,
        byVideo,
      };
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.tokens.close();
    await this.vacuum;
    await this.pool.end();
  }
}
