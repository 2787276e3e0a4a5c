// The default Store: one SQLite file (WAL) with metadata tables, resumable stage rows, two FTS5 indexes for BM25 (one
// over clip documents, one over whole videos), a table of embedding vectors searched with sqlite-vec, and the knowledge
// graph (chunks, entities, relations and the chunks that stated each), merged across videos as they commit.

import { createRequire } from "node:module";
import Database from "better-sqlite3";
import type * as SqliteVec from "sqlite-vec";
import { VideoRagError } from "../../spec/index.js";
import type {
  Chunk,
  ClipDocument,
  ClipSignals,
  ClipStageState,
  ClipStageStatus,
  ClipWriteBack,
  ExtractionStatus,
  Frame,
  ClipMatch,
  EntityDescriptionUpdate,
  EntityMatch,
  GraphEntity,
  GraphRelation,
  GraphSource,
  GraphStats,
  LexicalQuery,
  Segment,
  SegmentSource,
  SegmentRange,
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
import { checkVector, chooseEntity, chunkSources, defaultMergeDistance, gatherRelation, planGraph, type EntityCandidates } from "../../graph/merge-graph.js";
import {
  chunkTextBlocks,
  decodeExcerpt,
  encodeExcerpt,
  encodeFrames,
  encodeSegmentBlocks,
  excerptSource,
  framesInWindow,
  joinTranscript,
  packChunkText,
  deflateSegmentBlocks,
  segmentsInWindow,
  segmentsPerBlock,
  transcriptRuns,
  unpackChunkText,
  SegmentBlockView,
  SegmentText,
  type PieceSource,
  type TranscriptRun,
} from "../packed-text.js";
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
import { BlockCache } from "../block-cache.js";
import { migrate } from "./sqlite-schema.js";
import { vectorBuckets } from "./vector-buckets.js";

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

/** Integer term weights up to this are expressed by repeating the term in one FTS5 query (BM25 sums over phrases). */
const maxRepeatedWeight = 8;

/** See `SqliteStoreOptions.exactMergeScanLimit`. */
const defaultExactMergeScanLimit = 2000;

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
  has_audio: number;
  has_video: number;
  times_estimated: number;
  ingested_at: string;
  clip_count: number;
  fingerprint: string | null;
}

/** A clip's text columns as stored: `transcript` is '' where a run of the video's segments stands for it. */
interface ClipTextRow {
  transcript: string;
  transcript_first: number | null;
  transcript_last: number | null;
  screen: string;
  visual: string;
}

interface ClipRow extends ClipTextRow {
  video_id: string;
  video_key: number;
  clip_index: number;
  start_second: number;
  end_second: number;
}

/** A clip's text as the store returns it. */
interface ClipText {
  clipIndex: number;
  transcript: string;
  screen: string;
  visual: string;
}

/** A chunk's text columns as stored: `text` is '' where `packed_text` holds it as pieces of its segments' text. */
interface ChunkTextRow {
  text: string;
  packed_text: Buffer | null;
}

interface SpaceRow {
  key: number;
  dimensions: number;
}

type VectorRow = [videoKey: number, clipIndex: number, timeSecond: number | null, distance: number | null];

/** The float32 bytes of a vector, as stored and as sqlite-vec reads them (no copy). */
const vectorBytes = (vector: Float32Array): Buffer => Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);

/** Throws ARGUMENT_INVALID unless the vector is a non-empty Float32Array of finite numbers. */

/** Throws ARGUMENT_INVALID for a record that does not belong to the video or cannot be keyed. */

interface EntityRow {
  key: number;
  name_key: string;
  name: string;
  type: string;
  description: string;
  stale: number;
  change_sequence: number;
}

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

interface ChunkRow extends ChunkTextRow {
  video_id: string;
  video_key: number;
  chunk_index: number;
  clip_start: number;
  clip_end: number;
  start_second: number;
  end_second: number;
  token_count: number;
}

const toSource = (row: SourceRow, reader: PackedReader): GraphSource => ({
  videoId: row.video_id,
  chunkIndex: row.chunk_index,
  clipStart: row.clip_start,
  clipEnd: row.clip_end,
  description: reader.description(row),
});

/** True when every weight can be expressed by repeating its term in one FTS5 query. */
const repeatable = (weights: Map<string, number>): boolean =>
  [...weights.values()].every((weight) => Number.isInteger(weight) && weight <= maxRepeatedWeight);

/** The FTS5 token naming a video in the `video` column of both indexes. */
const videoToken = (key: number): string => `k${key}`;

/** Quotes text as an FTS5 string, so user words are never read as query syntax. */
const quote = (text: string): string => `"${text.replace(/"/g, '""')}"`;


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
    hasAudio: row.has_audio === 1,
    hasVideo: row.has_video === 1,
    timesEstimated: row.times_estimated === 1,
    ingestedAt: row.ingested_at,
    clipCount: row.clip_count,
  };
}

/** Maps what better-sqlite3 throws to our codes: a held lock is STORE_LOCKED (worth retrying), the rest STORE_FAILED. */
function storeError(error: unknown, action: string, path: string): VideoRagError {
  if (VideoRagError.isInstance(error)) return error;
  const code = typeof error === "object" && error !== null ? String((error as { code?: unknown }).code ?? "") : "";
  const message = error instanceof Error ? error.message : String(error);
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) {
    return new VideoRagError("STORE_LOCKED", `${action}: another process is writing to the library (${message})`, {
      cause: error,
      retryable: true,
      subject: path,
    });
  }
  return new VideoRagError("STORE_FAILED", `${action}: ${message}`, { cause: error, subject: path });
}

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
    migrate(db, path, undefined, { rebuildLexicalIndexes });
  } catch (error) {
    throw storeError(error, `cannot open the library ${path}`, path);
  }
  let vectorSearchUnavailable: string | undefined;
  try {
    (options.loadVectorExtension ?? loadSqliteVec)(db);
  } catch (error) {
    vectorSearchUnavailable = error instanceof Error ? error.message : String(error);
  }
  return new SqliteStore(db, path, vectorSearchUnavailable, options.exactMergeScanLimit ?? defaultExactMergeScanLimit);
}

type MatchRow = [key: number, score: number];

/** FTS5's command to forget a row of a contentless index, given the words it was indexed with (see schema version 9). */
const forgetRow = (table: string, columns: string[]): string =>
  `INSERT INTO ${table} (${table}, rowid, ${columns.join(", ")}) VALUES ('delete', ?, ${columns.map(() => "?").join(", ")})`;

/** How each lexical index is written and forgotten; a row is forgotten only where its docsize row says it is indexed. */
function prepareLexicalStatements(db: Database.Database) {
  const clipColumns = ["transcript", "screen", "visual", "video"];
  const entityColumns = ["name", "description"];
  return {
    indexClip: db.prepare(`INSERT INTO clip_fts (rowid, ${clipColumns.join(", ")}) VALUES (?, ?, ?, ?, ?)`),
    forgetClip: db.prepare(forgetRow("clip_fts", clipColumns)),
    clipIndexed: db.prepare(`SELECT 1 FROM clip_fts_docsize WHERE id = ?`).pluck(),
    indexVideo: db.prepare(`INSERT INTO video_fts (rowid, ${clipColumns.join(", ")}) VALUES (?, ?, ?, ?, ?)`),
    forgetVideo: db.prepare(forgetRow("video_fts", clipColumns)),
    videoIndexed: db.prepare(`SELECT 1 FROM video_fts_docsize WHERE id = ?`).pluck(),
    indexEntity: db.prepare(`INSERT INTO entity_fts (rowid, ${entityColumns.join(", ")}) VALUES (?, ?, ?)`),
    forgetEntity: db.prepare(forgetRow("entity_fts", entityColumns)),
    entityIndexed: db.prepare(`SELECT 1 FROM entity_fts_docsize WHERE id = ?`).pluck(),
    entityText: db.prepare(`SELECT e.name, e.description,
        (SELECT group_concat(a.name, char(10)) FROM entity_aliases a WHERE a.entity_key = e.key) AS aliases
      FROM entities e WHERE e.key = ?`),
    clipKeys: db.prepare(`SELECT clip_index, key FROM clips WHERE video_key = ?`).raw(),
  };
}

type LexicalStatements = ReturnType<typeof prepareLexicalStatements>;

/**
 * The three contentless lexical indexes, written from the text the store keeps and told that same text when a row
 * goes (schema version 9): FTS5 then takes the row's words out of bm25's statistics exactly. Every change to indexed
 * text forgets the row before the text changes and indexes it again after.
 */
class LexicalIndexes {
  constructor(private readonly statements: LexicalStatements) {}

  /** A video's clip documents and its whole-video document (see `videoDocument`), from its clips' text. */
  indexVideo(videoKey: number, clips: ClipText[]): void {
    const keys = this.clipKeys(videoKey);
    const token = videoToken(videoKey);
    for (const clip of clips) this.statements.indexClip.run(keys.get(clip.clipIndex), clip.transcript, clip.screen, clip.visual, token);
    this.indexWholeVideo(videoKey, clips);
  }

  /** Forgets a video's clip documents and whole-video document, given the clips' text as it was indexed. */
  forgetVideo(videoKey: number, clips: ClipText[]): void {
    const keys = this.clipKeys(videoKey);
    for (const clip of clips) {
      const key = keys.get(clip.clipIndex);
      if (key !== undefined) this.forgetClip(videoKey, key, clip);
    }
    this.forgetWholeVideo(videoKey, clips);
  }

  indexClip(videoKey: number, clipKey: number, clip: Omit<ClipText, "clipIndex">): void {
    this.statements.indexClip.run(clipKey, clip.transcript, clip.screen, clip.visual, videoToken(videoKey));
  }

  forgetClip(videoKey: number, clipKey: number, clip: Omit<ClipText, "clipIndex">): void {
    if (this.statements.clipIndexed.get(clipKey) === undefined) return;
    this.statements.forgetClip.run(clipKey, clip.transcript, clip.screen, clip.visual, videoToken(videoKey));
  }

  indexWholeVideo(videoKey: number, clips: ClipText[]): void {
    const [transcript, screen, visual] = videoDocument(clips);
    this.statements.indexVideo.run(videoKey, transcript, screen, visual, videoToken(videoKey));
  }

  forgetWholeVideo(videoKey: number, clips: ClipText[]): void {
    if (this.statements.videoIndexed.get(videoKey) === undefined) return;
    const [transcript, screen, visual] = videoDocument(clips);
    this.statements.forgetVideo.run(videoKey, transcript, screen, visual, videoToken(videoKey));
  }

  /** Indexes an entity's names (its name, then its aliases, a line each) and description as they are stored now. */
  indexEntity(entityKey: number): void {
    const text = this.entityText(entityKey);
    if (text) this.statements.indexEntity.run(entityKey, ...text);
  }

  /** Forgets an entity's row; call before its name, aliases or description change, or it goes. */
  forgetEntity(entityKey: number): void {
    const text = this.entityText(entityKey);
    if (text && this.statements.entityIndexed.get(entityKey) !== undefined) this.statements.forgetEntity.run(entityKey, ...text);
  }

  private entityText(entityKey: number): [names: string, description: string] | undefined {
    const row = this.statements.entityText.get(entityKey) as { name: string; aliases: string | null; description: string } | undefined;
    return row && [row.aliases === null ? row.name : `${row.name}\n${row.aliases}`, row.description];
  }

  private clipKeys(videoKey: number): Map<number, number> {
    return new Map(this.statements.clipKeys.all(videoKey) as [number, number][]);
  }
}

/**
 * Fills the empty lexical indexes of schema version 9 from the text the library keeps: every ready video's clips and
 * whole-video document, every entity. Inside the migration's transaction (exported for a test to compare with).
 */
export function rebuildLexicalIndexes(db: Database.Database): void {
  const packed = preparePackedStatements(db);
  const cache = new BlockCache();
  const indexes = new LexicalIndexes(prepareLexicalStatements(db));
  for (const videoKey of db.prepare(`SELECT key FROM videos WHERE status = 'ready'`).pluck().all() as number[]) {
    // A reader per video: a reader keeps every block it decoded.
    indexes.indexVideo(videoKey, new PackedReader(packed, cache).clipTexts(videoKey));
  }
  for (const entityKey of db.prepare(`SELECT key FROM entities`).pluck().all() as number[]) indexes.indexEntity(entityKey);
}

function preparePackedStatements(db: Database.Database) {
  return {
    blocks: db.prepare(`SELECT block_index, segments FROM segment_blocks WHERE video_key = ? AND block_index BETWEEN ? AND ?
      ORDER BY block_index`).raw(),
    clipTexts: db.prepare(`SELECT clip_index, transcript, transcript_first, transcript_last, screen, visual FROM clips
      WHERE video_key = ? AND clip_index BETWEEN ? AND ? ORDER BY clip_index`),
    chunkText: db.prepare(`SELECT text, packed_text FROM chunks WHERE video_key = ? AND chunk_index = ?`),
  };
}

type PackedStatements = ReturnType<typeof preparePackedStatements>;

/** Past any clip index or block index. */
const lastIndex = Number.MAX_SAFE_INTEGER;

/**
 * Reads packed text (see ../packed-text.ts and schema version 7) for one call: each block of segments and each chunk is
 * read once however many rows need it. Made anew for each call, so nothing read outlives a write.
 */
class PackedReader {
  private readonly blocks = new Map<string, SegmentBlockView>();
  private readonly chunks = new Map<string, string>();

  constructor(
    private readonly statements: PackedStatements,
    private readonly cache: BlockCache,
  ) {}

  /** A clip's transcript, joined from its run of segments where it has one. */
  transcript(videoKey: number, row: ClipTextRow): string {
    if (row.transcript_first === null || row.transcript_last === null) return row.transcript;
    const run: TranscriptRun = { first: row.transcript_first, last: row.transcript_last };
    this.loadBlocks(videoKey, Math.floor(run.first / segmentsPerBlock), Math.floor(run.last / segmentsPerBlock));
    return joinTranscript((blockIndex) => this.blocks.get(`${videoKey}:${blockIndex}`), run);
  }

  /** Every segment of a video, in the order written (positions as clip runs count them). */
  segments(videoKey: number): Segment[] {
    return this.blockViews(videoKey, 0, lastIndex).flatMap(({ view }) => view.segments());
  }

  /** A video's blocks from `first` to `last`. */
  blockViews(videoKey: number, first: number, last: number): { blockIndex: number; view: SegmentBlockView }[] {
    return (this.statements.blocks.all(videoKey, first, last) as [number, Buffer][]).map(([blockIndex, data]) => ({
      blockIndex,
      view: this.cache.decode(videoKey, blockIndex, data),
    }));
  }

  /** The text of a video's clips with indexes from `from` to `to`, in index order. */
  clipTexts(videoKey: number, from = 0, to = lastIndex): ClipText[] {
    return (this.statements.clipTexts.all(videoKey, from, to) as (ClipTextRow & { clip_index: number })[]).map((row) => ({
      clipIndex: row.clip_index,
      transcript: this.transcript(videoKey, row),
      screen: row.screen,
      visual: row.visual,
    }));
  }

  /** A chunk's text; undefined when the video has no such chunk. */
  chunkText(videoKey: number, chunkIndex: number, row?: ChunkTextRow): string | undefined {
    const key = `${videoKey}:${chunkIndex}`;
    let text = this.chunks.get(key);
    if (text === undefined) {
      const stored = row ?? (this.statements.chunkText.get(videoKey, chunkIndex) as ChunkTextRow | undefined);
      if (!stored) return undefined;
      if (stored.packed_text === null) {
        text = stored.text;
      } else {
        const [first, last] = chunkTextBlocks(stored.packed_text);
        this.loadBlocks(videoKey, first, last);
        const regions: string[] = [];
        for (let block = first; block <= last; block++) regions.push(this.blocks.get(`${videoKey}:${block}`)?.region ?? "");
        text = unpackChunkText(stored.packed_text, regions);
      }
      this.chunks.set(key, text);
    }
    return text;
  }

  /** A graph source's description, from its excerpt of the chunk where it has one. */
  description(row: SourceRow): string {
    if (row.excerpt === null) return row.description;
    return decodeExcerpt(row.excerpt, this.chunkText(row.video_key, row.chunk_index) ?? "");
  }

  private loadBlocks(videoKey: number, first: number, last: number): void {
    for (let block = first; block <= last; block++) {
      if (this.blocks.has(`${videoKey}:${block}`)) continue;
      for (const { blockIndex, view } of this.blockViews(videoKey, first, last)) this.blocks.set(`${videoKey}:${blockIndex}`, view);
      return;
    }
  }
}

/** The entities and relations a video's graph sources named, collected before they are deleted. */
interface TouchedGraph {
  entityKeys: number[];
  relationKeys: number[];
}

/**
 * The knowledge graph's statements; lists of keys travel as one JSON array, read with json_each. Joins that check a
 * video is ready are CROSS JOINs, which SQLite never reorders: left to itself, the planner would start from every ready
 * video (the status index) and probe the sources of each, which grows with the library instead of with the answer.
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
    insertChunk: db.prepare(`INSERT INTO chunks (video_key, chunk_index, clip_start, clip_end, start_second, end_second,
        text, packed_text, token_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    videoChunkTexts: db.prepare(`SELECT key, chunk_index, start_second, end_second, text, packed_text FROM chunks
      WHERE video_key = ?`),
    setChunkText: db.prepare(`UPDATE chunks SET text = ?, packed_text = ? WHERE key = ?`),
    deleteChunks: db.prepare(`DELETE FROM chunks WHERE video_key = ?`),
    chunk: db.prepare(`SELECT v.id AS video_id, c.video_key, c.chunk_index, c.clip_start, c.clip_end, c.start_second,
        c.end_second, c.text, c.packed_text, c.token_count
      FROM chunks c JOIN videos v ON v.key = c.video_key WHERE v.id = ? AND v.status = 'ready' AND c.chunk_index = ?`),
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
  };
}

class SqliteStore implements Store {
  private readonly statements;
  /** Search statements vary only in table and field weights, so a handful are compiled once and reused. */
  private readonly searchStatements = new Map<string, Database.Statement>();
  /**
   * The nearest entity vector of one space and type, among all of them or among those sharing a bucket with the name;
   * absent without sqlite-vec, and entities then merge by name only.
   */
  private readonly nearestEntityStatements: { all: Database.Statement; bucketed: Database.Statement } | undefined;
  private readonly packedStatements: PackedStatements;
  private readonly blockCache = new BlockCache();
  private readonly lexical: LexicalIndexes;

  constructor(
    private readonly db: Database.Database,
    private readonly path: string,
    /** Why sqlite-vec could not be loaded, when it could not. */
    private readonly vectorSearchUnavailable: string | undefined,
    private readonly exactMergeScanLimit: number,
  ) {
    const videoColumns = `key, id, status, path, title, kind, duration_seconds, size_bytes, width, height, has_audio,
      has_video, times_estimated, ingested_at, clip_count, fingerprint`;
    this.statements = {
      listVideos: db.prepare(`SELECT ${videoColumns} FROM videos WHERE status = 'ready' ORDER BY ingested_at DESC, key DESC`),
      videoById: db.prepare(`SELECT ${videoColumns} FROM videos WHERE id = ?`),
      videoKeysByIds: db.prepare(`SELECT key FROM videos WHERE status = 'ready' AND id IN (SELECT value FROM json_each(?))`),
      insertPending: db.prepare(`INSERT INTO videos (id, status) VALUES (?, 'pending') ON CONFLICT (id) DO NOTHING`),
      insertVideo: db.prepare(`INSERT INTO videos (id, status, path, title, kind, duration_seconds, size_bytes, width, height,
          has_audio, has_video, times_estimated, ingested_at, clip_count, fingerprint)
        VALUES (@id, 'ready', @path, @title, @kind, @durationSeconds, @sizeBytes, @width, @height, @hasAudio, @hasVideo,
          @timesEstimated, @ingestedAt, @clipCount, @fingerprint)
        ON CONFLICT (id) DO UPDATE SET status = 'ready', path = excluded.path, title = excluded.title, kind = excluded.kind,
          duration_seconds = excluded.duration_seconds, size_bytes = excluded.size_bytes, width = excluded.width,
          height = excluded.height, has_audio = excluded.has_audio, has_video = excluded.has_video,
          times_estimated = excluded.times_estimated, ingested_at = excluded.ingested_at,
          clip_count = excluded.clip_count, fingerprint = excluded.fingerprint
        RETURNING key`),
      deleteVideo: db.prepare(`DELETE FROM videos WHERE key = ?`),
      deleteClips: db.prepare(`DELETE FROM clips WHERE video_key = ?`),
      deleteSegmentBlocks: db.prepare(`DELETE FROM segment_blocks WHERE video_key = ?`),
      deleteFrames: db.prepare(`DELETE FROM frame_lists WHERE video_key = ?`),
      deleteStages: db.prepare(`DELETE FROM stages WHERE video_key = ?`),
      insertClip: db.prepare(`INSERT INTO clips (video_key, clip_index, start_second, end_second, transcript,
          transcript_first, transcript_last, screen, visual)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      insertSegmentBlock: db.prepare(`INSERT INTO segment_blocks (video_key, block_index, min_start_second,
          max_start_second, max_end_second, segments) VALUES (?, ?, ?, ?, ?, ?)`),
      // The blocks that can hold a segment in [start, end): the segment condition of getSegments, on the block's bounds.
      segmentBlocksInWindow: db.prepare(`SELECT b.video_key, b.block_index, b.segments FROM segment_blocks b
        JOIN videos v ON v.key = b.video_key
        WHERE v.id = @videoId AND v.status = 'ready' AND b.min_start_second < @end
          AND (b.max_end_second > @start OR b.max_start_second >= @start)
        ORDER BY b.block_index`).raw(),
      setClipSignals: db.prepare(`UPDATE clips SET speech_seconds = ?, speech_regions = ?, screen_changes = ?
        WHERE video_key = ? AND clip_index = ?`),
      clipSignals: db.prepare(`SELECT c.clip_index, c.speech_seconds, c.speech_regions, c.screen_changes, c.asked
        FROM clips c JOIN videos v ON v.key = c.video_key WHERE v.id = ? AND v.status = 'ready' ORDER BY c.clip_index`),
      markAsked: db.prepare(`UPDATE clips SET asked = asked + 1
        WHERE video_key = (SELECT key FROM videos WHERE id = ? AND status = 'ready') AND clip_index = ?`),
      clipKey: db.prepare(`SELECT key FROM clips WHERE video_key = ? AND clip_index = ?`).pluck(),
      updateClip: db.prepare(`UPDATE clips SET transcript = ?, transcript_first = ?, transcript_last = ?, screen = ?,
        visual = ? WHERE key = ?`),
      upsertClipStage: db.prepare(`INSERT INTO clip_stages (video_key, clip_index, stage, key, status, error)
        VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT (video_key, clip_index, stage) DO UPDATE SET key = excluded.key, status = excluded.status,
          error = excluded.error`),
      deleteClipStages: db.prepare(`DELETE FROM clip_stages WHERE video_key = ?`),
      clipStages: db.prepare(`SELECT v.id AS video_id, s.clip_index, s.stage, s.key, s.status, s.error
        FROM clip_stages s CROSS JOIN videos v ON v.key = s.video_key
        WHERE v.status = 'ready' AND (@videoId IS NULL OR v.id = @videoId)
          AND (@statuses IS NULL OR s.status IN (SELECT value FROM json_each(@statuses)))
        ORDER BY v.key, s.clip_index, s.stage`),
      refreshStageKey: db.prepare(`UPDATE clip_stages SET key = @key, status = 'pending', error = NULL
        WHERE stage = @stage AND key <> @key`),
      stageCounts: db.prepare(`SELECT s.stage, s.status, count(*) AS count FROM clip_stages s
        JOIN videos v ON v.key = s.video_key WHERE v.status = 'ready' GROUP BY s.stage, s.status`),
      clipCounts: db.prepare(`SELECT v.id AS video_id, count(*) AS clips,
          sum(ifnull(x.failed, 0) > 0) AS failed, sum(ifnull(x.failed, 0) = 0 AND ifnull(x.pending, 0) > 0) AS pending
        FROM videos v JOIN clips c ON c.video_key = v.key
        LEFT JOIN (SELECT video_key, clip_index, sum(status = 'pending') AS pending, sum(status = 'failed') AS failed
          FROM clip_stages WHERE status <> 'done' GROUP BY video_key, clip_index) x
          ON x.video_key = c.video_key AND x.clip_index = c.clip_index
        WHERE v.status = 'ready' GROUP BY v.key ORDER BY v.ingested_at DESC, v.key DESC`),
      framesOf: db.prepare(`SELECT f.frames FROM frame_lists f JOIN videos v ON v.key = f.video_key
        WHERE v.id = ? AND v.status = 'ready'`).pluck(),
      insertFrames: db.prepare(`INSERT INTO frame_lists (video_key, frames) VALUES (?, ?)`),
      loadStages: db.prepare(`SELECT s.stage, s.key, s.output FROM stages s JOIN videos v ON v.key = s.video_key
        WHERE v.id = ? ORDER BY s.rowid`),
      saveStage: db.prepare(`INSERT INTO stages (video_key, stage, key, output) SELECT key, ?, ?, ? FROM videos WHERE id = ?
        ON CONFLICT (video_key, stage) DO UPDATE SET key = excluded.key, output = excluded.output`),
      clipsByKeys: db.prepare(`SELECT c.key, v.id AS video_id, c.clip_index, c.start_second, c.end_second
        FROM clips c JOIN videos v ON v.key = c.video_key WHERE c.key IN (SELECT value FROM json_each(?))`),
      clip: db.prepare(`SELECT v.id AS video_id, c.video_key, c.clip_index, c.start_second, c.end_second, c.transcript,
          c.transcript_first, c.transcript_last, c.screen, c.visual
        FROM clips c JOIN videos v ON v.key = c.video_key WHERE v.id = ? AND v.status = 'ready' AND c.clip_index = ?`),
      videoIdsByKeys: db.prepare(`SELECT key, id FROM videos WHERE status = 'ready' AND key IN (SELECT value FROM json_each(?))`),
      clipCount: db.prepare(`SELECT count(*) FROM clips`).pluck(),
      clipTermCount: db.prepare(`SELECT count(*) FROM clip_fts WHERE clip_fts MATCH ?`).pluck(),
      spaceByName: db.prepare(`SELECT key, dimensions FROM vector_spaces WHERE name = ?`),
      insertSpace: db.prepare(`INSERT INTO vector_spaces (name, dimensions) VALUES (?, ?) RETURNING key`).pluck(),
      upsertVector: db.prepare(`INSERT INTO vectors (space_key, video_key, owner, clip_index, time_second, vector)
        VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT (video_key, space_key, owner, clip_index, ifnull(time_second, -1)) DO UPDATE SET vector = excluded.vector`),
      deleteVectors: db.prepare(`DELETE FROM vectors WHERE video_key = ?`),
      deleteClipFrameVectors: db.prepare(`DELETE FROM vectors WHERE video_key = ? AND clip_index = ? AND owner = 'frame'`),
      pruneSpaces: db.prepare(`DELETE FROM vector_spaces
        WHERE NOT EXISTS (SELECT 1 FROM vectors WHERE space_key = vector_spaces.key)`),
      vectorSpaces: db.prepare(`SELECT s.name AS space, s.dimensions, count(*) AS count
        FROM vector_spaces s JOIN vectors x ON x.space_key = s.key GROUP BY s.key ORDER BY s.name`),
      vectorCount: db.prepare(`SELECT count(*) FROM vectors`).pluck(),
      videoVectorCount: db.prepare(`SELECT count(*) FROM vectors x JOIN videos v ON v.key = x.video_key
        WHERE v.id = ? AND v.status = 'ready'`).pluck(),
      ...prepareGraphStatements(db),
      videoEntities: db.prepare(`SELECT e.key, e.name, e.type, e.description, COUNT(*) AS score
        FROM videos v CROSS JOIN entity_sources s ON s.video_key = v.key CROSS JOIN entities e ON e.key = s.entity_key
        WHERE v.id = ? AND v.status = 'ready' GROUP BY e.key ORDER BY score DESC, e.name LIMIT ?`),
    };
    this.packedStatements = preparePackedStatements(db);
    this.lexical = new LexicalIndexes(prepareLexicalStatements(db));
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

  /**
   * Runs reads in one read transaction, so they see one snapshot of the file: a packed text is read from more than one
   * row (a clip and its segments, a source and its chunk), and another process's write between two of them must not
   * mix two versions. Inside a write transaction the reads already see one state.
   */
  private snapshot<T>(work: () => T): T {
    return this.db.inTransaction ? work() : this.db.transaction(work).deferred();
  }

  private guard<T>(action: string, work: () => T): T {
    try {
      return work();
    } catch (error) {
      throw storeError(error, action, this.path);
    }
  }

  /** Replaces a video's segments with these, in this order, as blocks (see schema version 7). */
  private writeSegments(videoKey: number, segments: Segment[]): void {
    this.statements.deleteSegmentBlocks.run(videoKey);
    for (const block of encodeSegmentBlocks(segments, deflateSegmentBlocks)) {
      this.statements.insertSegmentBlock.run(
        videoKey, block.blockIndex, block.minStartSecond, block.maxStartSecond, block.maxEndSecond, block.data,
      );
    }
  }

  /** A reader of packed text for one call (see PackedReader). */
  private reader(): PackedReader {
    return new PackedReader(this.packedStatements, this.blockCache);
  }

  private readyRow(id: string): VideoRow | undefined {
    const row = this.statements.videoById.get(id) as VideoRow | undefined;
    return row?.status === "ready" ? row : undefined;
  }

  /**
   * Removes what a video contributed except its row; FTS rows first, since a contentless index forgets a row only when
   * told the text it holds. Returns the entities and relations its graph sources named, for `pruneGraph` once the
   * caller has written what replaces them.
   */
  private clearContent(videoKey: number): TouchedGraph {
    const touched = this.clearGraph(videoKey);
    this.lexical.forgetVideo(videoKey, this.reader().clipTexts(videoKey));
    this.statements.deleteClips.run(videoKey);
    this.statements.deleteSegmentBlocks.run(videoKey);
    this.statements.deleteFrames.run(videoKey);
    this.statements.deleteClipStages.run(videoKey);
    this.statements.deleteVectors.run(videoKey);
    this.statements.pruneSpaces.run();
    return touched;
  }

  /** Deletes a video's chunks and graph sources; returns what they named, for `pruneGraph` after the replacement is written. */
  private clearGraph(videoKey: number): TouchedGraph {
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
  private pruneGraph(touched: TouchedGraph): void {
    if (touched.relationKeys.length > 0) this.statements.deleteOrphanRelations.run(JSON.stringify(touched.relationKeys));
    if (touched.entityKeys.length === 0) return;
    const keys = JSON.stringify(touched.entityKeys);
    const orphans = this.statements.orphanEntities.all(keys) as number[];
    if (orphans.length > 0) {
      // FTS rows first: once the entity row is gone nothing says which words its contentless row holds.
      for (const key of orphans) this.lexical.forgetEntity(key);
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
  private writeGraph(videoKey: number, videoId: string, graph: VideoGraph, clipIndexes: Set<number>, segments: SegmentText): void {
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
        if (!aliased.has(chosen.key)) this.lexical.forgetEntity(chosen.key);
        this.statements.insertAlias.run(nameKey, chosen.key, plan.name);
        aliased.add(chosen.key);
      }
      if (key === undefined) {
        key = this.statements.insertEntity.get(nameKey, plan.name, plan.type, sequence) as number;
        this.lexical.indexEntity(key);
      }
      // An entity first written without a vector (or in another space) becomes findable by meaning from now on.
      if (plan.vector && space !== undefined && this.statements.insertEntityVector.run(space, vectorBytes(plan.vector), key).changes > 0) {
        this.statements.insertEntityBuckets.run(space, JSON.stringify(vectorBuckets(plan.vector)), key);
      }
      entityKeys.set(nameKey, key);
    }
    for (const key of aliased) this.lexical.indexEntity(key);
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

  /** Entities with their ready sources, in the order of `rows`. */
  /** Entities with their sources: every one, or the first `limit` of each. */
  private withSources(rows: EntityRow[], limit?: number): GraphEntity[] {
    return rows.length === 0 ? [] : this.snapshot(() => this.readSources(rows, limit));
  }

  private readSources(rows: EntityRow[], limit?: number): GraphEntity[] {
    const sources = new Map<number, GraphSource[]>();
    const reader = this.reader();
    const keys = JSON.stringify(rows.map((entity) => entity.key));
    const read = limit === undefined ? this.statements.entitySources.all(keys) : limit === 0 ? [] : this.statements.firstEntitySources.all(keys, limit);
    for (const row of read as SourceRow[]) {
      const own = sources.get(row.owner_key);
      if (own) own.push(toSource(row, reader));
      else sources.set(row.owner_key, [toSource(row, reader)]);
    }
    return rows.map((row) => ({
      key: row.key,
      nameKey: row.name_key,
      name: row.name,
      type: row.type,
      description: row.description,
      descriptionStale: row.stale === 1,
      changeSequence: row.change_sequence,
      sources: sources.get(row.key) ?? [],
    }));
  }

  /**
   * Relations with their ready sources, in the order of `rows`: strength summed over the sources, description that of
   * the strongest (the first of those tied, by video and chunk). A relation with no ready source is left out.
   */
  /** Relations with their sources: every one, or the first `limit` of each (description and strength are of all). */
  private withRelationSources(rows: RelationRow[], limit?: number): GraphRelation[] {
    return rows.length === 0 ? [] : this.snapshot(() => this.readRelationSources(rows, limit));
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
    const reader = this.reader();
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

  /**
   * Writes a video's vectors inside the caller's transaction, creating spaces on first use. A vector whose dimension
   * differs from its space's is ARGUMENT_INVALID, which rolls back the whole transaction.
   */
  private writeVectors(videoKey: number, videoId: string, records: VectorRecord[]): void {
    const spaces = new Map<string, SpaceRow>();
    for (const record of records) {
      checkRecord(record, videoId);
      let space = spaces.get(record.space) ?? (this.statements.spaceByName.get(record.space) as SpaceRow | undefined);
      if (!space) {
        const dimensions = record.vector.length;
        space = { key: this.statements.insertSpace.get(record.space, dimensions) as number, dimensions };
      }
      spaces.set(record.space, space);
      if (record.vector.length !== space.dimensions) {
        throw new VideoRagError(
          "ARGUMENT_INVALID",
          `space "${record.space}" holds ${space.dimensions}-dimensional vectors; ${videoId} clip ${record.clipIndex} ` +
            `brought one with ${record.vector.length} dimensions`,
        );
      }
      this.statements.upsertVector.run(
        space.key, videoKey, record.owner, record.clipIndex, record.timeSecond ?? null, vectorBytes(record.vector),
      );
    }
  }

  async listVideos(): Promise<Video[]> {
    return this.guard("cannot list videos", () => (this.statements.listVideos.all() as VideoRow[]).map(toVideo));
  }

  async getVideo(id: string): Promise<Video | undefined> {
    return (await this.getVideos([id]))[0];
  }

  async getVideos(ids: string[]): Promise<(Video | undefined)[]> {
    return this.guard("cannot read videos", () =>
      ids.map((id) => {
        const row = this.readyRow(id);
        return row ? toVideo(row) : undefined;
      }),
    );
  }

  async getFingerprint(id: string): Promise<string | undefined> {
    return this.guard("cannot read a fingerprint", () => this.readyRow(id)?.fingerprint ?? undefined);
  }

  async removeVideo(id: string): Promise<boolean> {
    return this.guard(`cannot remove ${id}`, () =>
      this.db.transaction(() => {
        const row = this.statements.videoById.get(id) as VideoRow | undefined;
        if (!row) return false;
        this.pruneGraph(this.clearContent(row.key));
        this.statements.deleteVideo.run(row.key);
        return row.status === "ready";
      }).immediate(),
    );
  }

  async loadStages(videoId: string): Promise<StageRecord[]> {
    return this.guard("cannot load stages", () =>
      (this.statements.loadStages.all(videoId) as { stage: string; key: string; output: string }[]).map((row) => ({
        stage: row.stage,
        key: row.key,
        output: JSON.parse(row.output) as unknown,
      })),
    );
  }

  async saveStage(videoId: string, record: StageRecord): Promise<void> {
    this.guard(`cannot save stage ${record.stage}`, () =>
      this.db.transaction(() => {
        // A video being ingested for the first time exists only as a pending row, which no reader ever lists.
        this.statements.insertPending.run(videoId);
        this.statements.saveStage.run(record.stage, record.key, JSON.stringify(record.output ?? null), videoId);
      }).immediate(),
    );
  }

  async discardStages(videoId: string): Promise<void> {
    this.guard("cannot discard stages", () =>
      this.db.transaction(() => {
        const row = this.statements.videoById.get(videoId) as VideoRow | undefined;
        if (!row) return;
        if (row.status === "pending") this.statements.deleteVideo.run(row.key);
        else this.statements.deleteStages.run(row.key);
      }).immediate(),
    );
  }

  async commitVideo(content: VideoContent): Promise<void> {
    const { video } = content;
    this.guard(`cannot commit ${video.id}`, () =>
      this.db.transaction(() => {
        const existing = this.statements.videoById.get(video.id) as VideoRow | undefined;
        // The old version's entities are pruned only after the new graph is written, so an entity both versions name
        // keeps its key, description and aliases instead of being deleted and made again.
        let replaced: TouchedGraph | undefined;
        if (existing) {
          replaced = this.clearContent(existing.key);
          this.statements.deleteStages.run(existing.key);
        }
        const { key } = this.statements.insertVideo.get({
          id: video.id,
          path: video.path,
          title: video.title,
          kind: video.kind,
          durationSeconds: video.durationSeconds,
          sizeBytes: video.sizeBytes,
          width: video.width ?? null,
          height: video.height ?? null,
          hasAudio: video.hasAudio ? 1 : 0,
          hasVideo: video.hasVideo ? 1 : 0,
          timesEstimated: video.timesEstimated ? 1 : 0,
          ingestedAt: new Date().toISOString(),
          clipCount: content.clips.length,
          fingerprint: content.fingerprint,
        }) as { key: number };
        this.writeSegments(key, content.segments);
        const runs = transcriptRuns(content.clips.map((clip) => clip.transcript), content.segments);
        content.clips.forEach((clip, position) => {
          const run = runs[position];
          this.statements.insertClip.run(
            key, clip.index, clip.startSecond, clip.endSecond, run ? "" : clip.transcript, run?.first ?? null,
            run?.last ?? null, clip.screen, clip.visual,
          );
        });
        this.lexical.indexVideo(key, content.clips.map(({ index, transcript, screen, visual }) => ({ clipIndex: index, transcript, screen, visual })));
        if (content.frames.length > 0) this.statements.insertFrames.run(key, encodeFrames(content.frames));
        for (const signal of content.signals ?? []) {
          this.statements.setClipSignals.run(
            signal.speechSeconds ?? null,
            signal.speechRegions ? JSON.stringify(signal.speechRegions) : null,
            signal.screenChanges,
            key,
            signal.clipIndex,
          );
        }
        for (const record of content.clipStages ?? []) {
          this.statements.upsertClipStage.run(key, record.clipIndex, record.stage, record.key, record.status, record.error ?? null);
        }
        this.writeVectors(key, video.id, content.vectors ?? []);
        if (content.graph) {
          this.writeGraph(key, video.id, content.graph, new Set(content.clips.map((clip) => clip.index)), new SegmentText(content.segments));
        }
        if (replaced) this.pruneGraph(replaced);
      }).immediate(),
    );
  }

  async addVectors(videoId: string, records: VectorRecord[]): Promise<void> {
    this.guard(`cannot add vectors to ${videoId}`, () =>
      this.db.transaction(() => {
        const row = this.readyRow(videoId);
        if (!row) throw new VideoRagError("VIDEO_NOT_FOUND", `no video ${videoId} to add vectors to`, { subject: videoId });
        this.writeVectors(row.key, videoId, records);
      }).immediate(),
    );
  }

  async searchVectors(query: VectorQuery): Promise<VectorMatch[]> {
    return this.guard("cannot search vectors", () => {
      if (this.vectorSearchUnavailable !== undefined) {
        throw new VideoRagError(
          "STORE_FAILED",
          `vector search needs the sqlite-vec package, which could not be loaded (${this.vectorSearchUnavailable}); ` +
            "install it with `npm install sqlite-vec`",
          { subject: this.path },
        );
      }
      if (!(query.limit >= 0) || !Number.isFinite(query.limit)) {
        throw new VideoRagError("ARGUMENT_INVALID", "a vector search needs a limit ≥ 0");
      }
      checkVector(query.vector, "the query vector");
      // A zero vector has no direction: sqlite-vec gives NULL for its cosine distance to anything.
      if (query.vector.every((value) => value === 0)) {
        throw new VideoRagError("ARGUMENT_INVALID", "the query vector is all zeros, so no cosine distance can be taken");
      }
      const space = this.statements.spaceByName.get(query.space) as SpaceRow | undefined;
      if (!space) return [];
      if (space.dimensions !== query.vector.length) {
        throw new VideoRagError(
          "ARGUMENT_INVALID",
          `space "${query.space}" holds ${space.dimensions}-dimensional vectors; the query vector has ` +
            `${query.vector.length} dimensions`,
        );
      }
      const limit = Math.floor(query.limit);
      if (limit === 0) return [];
      const parameters: (number | string | Buffer)[] = [vectorBytes(query.vector), space.key];
      let filters = "";
      if (query.owner !== undefined) {
        filters += " AND owner = ?";
        parameters.push(query.owner);
      }
      if (query.videoIds) {
        filters += ` AND video_key IN (SELECT key FROM videos WHERE status = 'ready' AND id IN (SELECT value FROM json_each(?)))`;
        parameters.push(JSON.stringify(query.videoIds));
      }
      // Stored zero vectors have a NULL distance: sorted last, then dropped. Filtering them in WHERE would compute every
      // distance twice.
      const statement = this.prepareSearch(
        `SELECT video_key, clip_index, time_second, vec_distance_cosine(vector, ?) AS distance FROM vectors
          WHERE space_key = ?${filters} ORDER BY distance NULLS LAST, key LIMIT ?`,
      );
      const rows = (statement.all(...parameters, limit) as VectorRow[]).filter((row) => row[3] !== null);
      if (rows.length === 0) return [];
      const videos = this.statements.videoIdsByKeys.all(JSON.stringify([...new Set(rows.map((row) => row[0]))])) as {
        key: number;
        id: string;
      }[];
      const ids = new Map(videos.map((video) => [video.key, video.id]));
      return rows.flatMap(([videoKey, clipIndex, timeSecond, distance]) => {
        const videoId = ids.get(videoKey);
        if (videoId === undefined || distance === null) return [];
        const match: VectorMatch = { videoId, clipIndex, ...(timeSecond === null ? {} : { timeSecond }), distance };
        return [match];
      });
    });
  }

  async vectorSpaces(): Promise<VectorSpace[]> {
    return this.guard("cannot list vector spaces", () => this.statements.vectorSpaces.all() as VectorSpace[]);
  }

  async vectorCount(videoId?: string): Promise<number> {
    return this.guard("cannot count vectors", () =>
      videoId === undefined
        ? (this.statements.vectorCount.get() as number)
        : (this.statements.videoVectorCount.get(videoId) as number),
    );
  }

  async searchClips(query: LexicalQuery): Promise<ClipMatch[]> {
    return this.guard("cannot search clips", () => {
      const matches = this.search("clip_fts", query);
      if (matches.length === 0) return [];
      const rows = this.statements.clipsByKeys.all(JSON.stringify(matches.map(([key]) => key))) as (ClipRow & {
        key: number;
      })[];
      const byKey = new Map(rows.map((row) => [row.key, row]));
      return matches.flatMap(([key, score]) => {
        const row = byKey.get(key);
        if (!row) return [];
        const match: ClipMatch = {
          videoId: row.video_id,
          clipIndex: row.clip_index,
          startSecond: row.start_second,
          endSecond: row.end_second,
          score,
        };
        return [match];
      });
    });
  }

  async searchVideos(query: LexicalQuery): Promise<VideoMatch[]> {
    return this.guard("cannot search videos", () => {
      const matches = this.search("video_fts", query);
      if (matches.length === 0) return [];
      const rows = this.statements.videoIdsByKeys.all(JSON.stringify(matches.map(([key]) => key))) as {
        key: number;
        id: string;
      }[];
      const ids = new Map(rows.map((row) => [row.key, row.id]));
      return matches.flatMap(([key, score]) => {
        const videoId = ids.get(key);
        return videoId === undefined ? [] : [{ videoId, score }];
      });
    });
  }

  /**
   * BM25 through FTS5 (k1 = 1.2, b = 0.75), with field weights as FTS5 column weights. FTS5's bm25() sums over the query's
   * phrases, so integer term weights are exact when the term is repeated; other weights take a slower, equally exact path
   * of one query per term summed here.
   */
  private search(table: "clip_fts" | "video_fts", query: LexicalQuery): MatchRow[] {
    const field = { ...defaultFieldWeights, ...query.fieldWeights };
    // Field weights are written into the SQL (bm25() takes literals), so only plain numbers may get there.
    const weightsValid = Object.values(field).every((weight) => Number.isFinite(weight) && weight >= 0);
    if (!weightsValid || !(query.limit >= 0) || !Number.isFinite(query.limit)) {
      throw new VideoRagError("ARGUMENT_INVALID", "a search needs a limit ≥ 0 and field weights that are numbers ≥ 0");
    }
    const limit = Math.floor(query.limit);
    const weights = termWeights(query.terms);
    const phrases = (query.phrases ?? []).filter(hasToken);
    if (limit === 0 || (weights.size === 0 && phrases.length === 0)) return [];

    let restriction = "";
    if (query.videoIds) {
      const keys = this.statements.videoKeysByIds.all(JSON.stringify(query.videoIds)) as { key: number }[];
      if (keys.length === 0) return [];
      restriction = ` AND video : (${keys.map((row) => videoToken(row.key)).join(" OR ")})`;
    }
    const bm25 = `bm25(${table}, ${field.transcript}, ${field.screen}, ${field.visual}, 0)`;
    // A channel weighted zero is left out of the match too, so it cannot bring in hits that score nothing.
    const searched = (["transcript", "screen", "visual"] as const).filter((column) => field[column] > 0);
    if (searched.length === 0) return [];
    const textColumns = `{${searched.join(" ")}}`;

    if (repeatable(weights)) {
      const parts = [...weights].flatMap(([text, weight]) => Array<string>(weight).fill(quote(text)));
      parts.push(...phrases.map(quote));
      const match = `${textColumns} : (${parts.join(" OR ")})${restriction}`;
      const statement = this.prepareSearch(
        `SELECT rowid, -${bm25} AS score FROM ${table} WHERE ${table} MATCH ? ORDER BY score DESC LIMIT ?`,
      );
      return statement.all(match, limit) as MatchRow[];
    }

    const statement = this.prepareSearch(`SELECT rowid, -${bm25} AS score FROM ${table} WHERE ${table} MATCH ?`);
    const scores = new Map<number, number>();
    const add = (expression: string, weight: number): void => {
      for (const [key, score] of statement.all(`${textColumns} : (${expression})${restriction}`) as MatchRow[]) {
        scores.set(key, (scores.get(key) ?? 0) + weight * score);
      }
    };
    for (const [text, weight] of weights) add(quote(text), weight);
    for (const phrase of phrases) add(quote(phrase), 1);
    return [...scores].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, limit);
  }

  private prepareSearch(sql: string): Database.Statement {
    let statement = this.searchStatements.get(sql);
    if (!statement) {
      if (this.searchStatements.size >= 32) this.searchStatements.clear();
      statement = this.db.prepare(sql).raw();
      this.searchStatements.set(sql, statement);
    }
    return statement;
  }

  async getClips(keys: { videoId: string; clipIndex: number }[]): Promise<ClipDocument[]> {
    return this.guard("cannot read clips", () => this.snapshot(() => {
      const reader = this.reader();
      return keys.flatMap(({ videoId, clipIndex }) => {
        const row = this.statements.clip.get(videoId, clipIndex) as ClipRow | undefined;
        if (!row) return [];
        const document: ClipDocument = {
          videoId: row.video_id,
          index: row.clip_index,
          startSecond: row.start_second,
          endSecond: row.end_second,
          transcript: reader.transcript(row.video_key, row),
          screen: row.screen,
          visual: row.visual,
        };
        return [document];
      });
    }));
  }

  async getSegments(videoId: string, startSecond: number, endSecond: number): Promise<(Segment & { source: SegmentSource })[]> {
    return (await this.getSegmentRanges([{ videoId, startSecond, endSecond }]))[0] ?? [];
  }

  async getSegmentRanges(ranges: SegmentRange[]): Promise<(Segment & { source: SegmentSource })[][]> {
    return this.guard("cannot read segments", () => ranges.map((range) => this.segmentsIn(range)));
  }

  private segmentsIn({ videoId, startSecond, endSecond }: SegmentRange): (Segment & { source: SegmentSource })[] {
    const blocks = this.statements.segmentBlocksInWindow.all({ videoId, start: startSecond, end: endSecond }) as [number, number, Buffer][];
    const views = blocks.map(([videoKey, blockIndex, data]) => ({ blockIndex, view: this.blockCache.decode(videoKey, blockIndex, data) }));
    return segmentsInWindow(views, startSecond, endSecond);
  }

  async termDocumentFrequency(terms: string[]): Promise<{ frequencies: Map<string, number>; documentCount: number }> {
    return this.guard("cannot count terms", () => {
      const frequencies = new Map<string, number>();
      for (const term of terms) {
        if (frequencies.has(term)) continue;
        const count = hasToken(term)
          ? (this.statements.clipTermCount.get(`{transcript screen visual} : ${quote(term)}`) as number)
          : 0;
        frequencies.set(term, count);
      }
      return { frequencies, documentCount: this.statements.clipCount.get() as number };
    });
  }

  async searchEntities(query: { terms: { text: string; weight: number }[]; limit: number; videoIds?: string[] }): Promise<EntityMatch[]> {
    return this.guard("cannot search entities", () => {
      if (!(query.limit >= 0) || !Number.isFinite(query.limit)) {
        throw new VideoRagError("ARGUMENT_INVALID", "an entity search needs a limit ≥ 0");
      }
      const limit = Math.floor(query.limit);
      const weights = termWeights(query.terms);
      if (limit === 0 || weights.size === 0) return [];
      const bm25 = `bm25(entity_fts, ${entityFieldWeights.name}, ${entityFieldWeights.description})`;
      const filter = query.videoIds
        ? ` AND rowid IN (SELECT s.entity_key FROM json_each(?) j CROSS JOIN videos v ON v.id = j.value
            CROSS JOIN entity_sources s ON s.video_key = v.key WHERE v.status = 'ready')`
        : "";
      const filterParameters = query.videoIds ? [JSON.stringify(query.videoIds)] : [];
      let matches: MatchRow[];
      if (repeatable(weights)) {
        const match = [...weights].flatMap(([text, weight]) => Array<string>(weight).fill(quote(text))).join(" OR ");
        const statement = this.prepareSearch(
          `SELECT rowid, -${bm25} AS score FROM entity_fts WHERE entity_fts MATCH ?${filter} ORDER BY score DESC LIMIT ?`,
        );
        matches = statement.all(match, ...filterParameters, limit) as MatchRow[];
      } else {
        const statement = this.prepareSearch(`SELECT rowid, -${bm25} AS score FROM entity_fts WHERE entity_fts MATCH ?${filter}`);
        const scores = new Map<number, number>();
        for (const [text, weight] of weights) {
          for (const [key, score] of statement.all(quote(text), ...filterParameters) as MatchRow[]) {
            scores.set(key, (scores.get(key) ?? 0) + weight * score);
          }
        }
        matches = [...scores].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, limit);
      }
      if (matches.length === 0) return [];
      const rows = this.statements.entitiesByKeys.all(JSON.stringify(matches.map(([key]) => key))) as EntityRow[];
      const byKey = new Map(rows.map((row) => [row.key, row]));
      return matches.flatMap(([key, score]) => {
        const row = byKey.get(key);
        if (!row) return [];
        const match: EntityMatch = { key, name: row.name, type: row.type, description: row.description, score };
        return [match];
      });
    });
  }

  async getEntity(reference: number | string, options: { sourceLimit?: number } = {}): Promise<GraphEntity | undefined> {
    if (options.sourceLimit !== undefined) checkCount(options.sourceLimit, "the source limit");
    return this.guard("cannot read an entity", () => {
      const key =
        typeof reference === "number"
          ? reference
          : (this.statements.entityKeyByName.get({ nameKey: reference }) as number | undefined);
      if (key === undefined || !Number.isInteger(key)) return undefined;
      const row = this.statements.entityByKey.get(key) as EntityRow | undefined;
      return row ? this.withSources([row], options.sourceLimit)[0] : undefined;
    });
  }

  async entityChunks(
    entityKeys: number[],
    options: { limitPerEntity?: number; videoIds?: string[] } = {},
  ): Promise<{ entityKey: number; videoId: string; chunkIndex: number }[]> {
    return this.guard("cannot read entity chunks", () => {
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
    return this.guard("cannot read relations", () => {
      if (entityKeys.length < 2) return [];
      const rows = this.statements.relationsAmong.all({ keys: JSON.stringify(entityKeys) }) as RelationRow[];
      return this.withRelationSources(rows).sort(
        (a, b) => b.strength - a.strength || a.sourceKey - b.sourceKey || a.targetKey - b.targetKey,
      );
    });
  }

  async relationsOf(entityKey: number, limit = defaultRelationsPerEntity, options: { sourceLimit?: number } = {}): Promise<GraphRelation[]> {
    return this.guard("cannot read relations", () => {
      checkCount(limit, "the relation limit");
      if (options.sourceLimit !== undefined) checkCount(options.sourceLimit, "the source limit");
      if (limit === 0) return [];
      return this.withRelationSources(this.statements.relationsOf.all({ key: entityKey, limit }) as RelationRow[], options.sourceLimit);
    });
  }

  async getChunks(keys: { videoId: string; chunkIndex: number }[]): Promise<Chunk[]> {
    return this.guard("cannot read chunks", () => this.snapshot(() => {
      const reader = this.reader();
      return keys.flatMap(({ videoId, chunkIndex }) => {
        const row = this.statements.chunk.get(videoId, chunkIndex) as ChunkRow | undefined;
        if (!row) return [];
        const chunk: Chunk = {
          videoId: row.video_id,
          index: row.chunk_index,
          clipStart: row.clip_start,
          clipEnd: row.clip_end,
          startSecond: row.start_second,
          endSecond: row.end_second,
          text: reader.chunkText(row.video_key, row.chunk_index, row) ?? row.text,
          tokenCount: row.token_count,
        };
        return [chunk];
      });
    }));
  }

  async staleEntities(limit: number): Promise<GraphEntity[]> {
    return this.guard("cannot list stale entities", () => {
      checkCount(limit, "the stale entity limit");
      return this.withSources(this.statements.staleEntities.all(limit) as EntityRow[]);
    });
  }

  async setEntityDescriptions(updates: EntityDescriptionUpdate[]): Promise<number> {
    return this.guard("cannot describe entities", () => {
      for (const update of updates) {
        if (typeof update.description !== "string") {
          throw new VideoRagError("ARGUMENT_INVALID", `entity ${update.key}'s description must be text`);
        }
      }
      return this.db.transaction(() => {
        let set = 0;
        for (const { key, description, changeSequence } of updates) {
          this.lexical.forgetEntity(key);
          const changed = this.statements.setDescription.run({ key, description, changeSequence: changeSequence ?? null }).changes > 0;
          this.lexical.indexEntity(key);
          if (changed) set++;
        }
        return set;
      }).immediate();
    });
  }

  async graphStats(): Promise<GraphStats> {
    return this.guard("cannot count the graph", () => this.statements.graphStats.get() as GraphStats);
  }

  async videoEntities(videoId: string, limit: number): Promise<EntityMatch[]> {
    return this.guard("cannot list a video's entities", () => {
      if (!(limit >= 0) || !Number.isFinite(limit)) throw new VideoRagError("ARGUMENT_INVALID", "listing entities needs a limit ≥ 0");
      return this.statements.videoEntities.all(videoId, Math.floor(limit)) as EntityMatch[];
    });
  }

  async getFrames(videoId: string, startSecond: number, endSecond: number): Promise<Frame[]> {
    return this.guard("cannot read frames", () => {
      const packed = this.statements.framesOf.get(videoId) as Buffer | undefined;
      return packed ? framesInWindow(packed, startSecond, endSecond) : [];
    });
  }


  async clipSignals(videoId: string, clipIndexes?: number[]): Promise<ClipSignals[]> {
    return this.guard("cannot read clip signals", () => {
      const wanted = clipIndexes ? new Set(clipIndexes) : undefined;
      const rows = this.statements.clipSignals.all(videoId) as {
        clip_index: number;
        speech_seconds: number | null;
        speech_regions: string | null;
        screen_changes: number;
        asked: number;
      }[];
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
    this.guard("cannot mark clips asked", () =>
      this.db.transaction(() => {
        for (const clip of clips) this.statements.markAsked.run(clip.videoId, clip.clipIndex);
      }).immediate(),
    );
  }

  async clipStages(filter: { videoId?: string; statuses?: ClipStageStatus[] } = {}): Promise<ClipStageState[]> {
    return this.guard("cannot read clip stages", () =>
      (
        this.statements.clipStages.all({
          videoId: filter.videoId ?? null,
          statuses: filter.statuses ? JSON.stringify(filter.statuses) : null,
        }) as { video_id: string; clip_index: number; stage: string; key: string; status: ClipStageStatus; error: string | null }[]
      ).map((row) => ({
        videoId: row.video_id,
        clipIndex: row.clip_index,
        stage: row.stage,
        key: row.key,
        status: row.status,
        ...(row.error === null ? {} : { error: row.error }),
      })),
    );
  }

  async writeBack(update: ClipWriteBack): Promise<void> {
    this.guard(`cannot write back to ${update.videoId}`, () =>
      this.db.transaction(() => {
        const row = this.readyRow(update.videoId);
        if (!row) throw new VideoRagError("VIDEO_NOT_FOUND", `no video ${update.videoId} to write back to`, { subject: update.videoId });
        const videoKey = row.key;
        const segmentsChange = update.replaces.length > 0 || update.segments.length > 0;
        const documentsChange = update.documents.length > 0;
        // What is derived from the text about to change is read first, as it reads now (see schema version 7): clip
        // transcripts are runs of segment positions, and chunk texts are pieces of the segments' text.
        const before = this.reader();
        const clipTexts = segmentsChange || documentsChange ? before.clipTexts(videoKey) : [];
        type ChunkTexts = (ChunkTextRow & { key: number; chunk_index: number; start_second: number; end_second: number })[];
        const chunkTexts =
          segmentsChange && !update.graph
            ? (this.statements.videoChunkTexts.all(videoKey) as ChunkTexts).map((chunk) => ({
                ...chunk,
                text: before.chunkText(videoKey, chunk.chunk_index, chunk) ?? "",
              }))
            : [];
        let segments: Segment[] | undefined;
        if (segmentsChange) {
          segments = before.segments(videoKey);
          for (const replace of update.replaces) {
            segments = segments.filter((segment) => segment.clipIndex !== replace.clipIndex || !replace.sources.includes(segment.source));
          }
          segments.push(...update.segments);
          this.writeSegments(videoKey, segments);
        }
        const texts = new Map(clipTexts.map((clip) => [clip.clipIndex, clip]));
        const documentKeys = new Map<number, number>();
        for (const document of update.documents) {
          const clipKey = this.statements.clipKey.get(videoKey, document.index) as number | undefined;
          if (clipKey === undefined) {
            throw new VideoRagError("ARGUMENT_INVALID", `${update.videoId} has no clip ${document.index}`, { subject: update.videoId });
          }
          documentKeys.set(document.index, clipKey);
          const { transcript, screen, visual } = document;
          texts.set(document.index, { clipIndex: document.index, transcript, screen, visual });
        }
        if (segmentsChange || documentsChange) {
          // Positions move when segments go, so every clip's run is found again; clips that did not change keep their text.
          const clips = [...texts.values()];
          const runs = transcriptRuns(clips.map((clip) => clip.transcript), segments ?? before.segments(videoKey));
          clips.forEach((clip, position) => {
            const clipKey = documentKeys.get(clip.clipIndex) ?? (this.statements.clipKey.get(videoKey, clip.clipIndex) as number);
            const run = runs[position];
            this.statements.updateClip.run(run ? "" : clip.transcript, run?.first ?? null, run?.last ?? null, clip.screen, clip.visual, clipKey);
          });
        }
        // Contentless FTS rows cannot be updated in place: each is forgotten with the text it was indexed with (read
        // before anything changed), then indexed with the new.
        const indexed = new Map(clipTexts.map((clip) => [clip.clipIndex, clip]));
        for (const document of update.documents) {
          const clipKey = documentKeys.get(document.index) as number;
          const old = indexed.get(document.index);
          if (old) this.lexical.forgetClip(videoKey, clipKey, old);
          this.lexical.indexClip(videoKey, clipKey, document);
          indexed.set(document.index, { clipIndex: document.index, transcript: document.transcript, screen: document.screen, visual: document.visual });
        }
        if (documentsChange) {
          this.lexical.forgetWholeVideo(videoKey, clipTexts);
          this.lexical.indexWholeVideo(videoKey, [...texts.values()]);
        }
        for (const clipIndex of update.replaceFrameVectors ?? []) this.statements.deleteClipFrameVectors.run(videoKey, clipIndex);
        this.writeVectors(videoKey, update.videoId, update.vectors);
        if ((update.replaceFrameVectors ?? []).length > 0) this.statements.pruneSpaces.run();
        if (update.graph) {
          // The old sources go before the new graph is written and their entities are pruned after, so an entity both
          // name keeps its key, description and aliases.
          const touched = this.clearGraph(videoKey);
          const clipIndexes = new Set((clipTexts.length > 0 ? clipTexts : this.reader().clipTexts(videoKey)).map((clip) => clip.clipIndex));
          const segmentText = new SegmentText(segments ?? before.segments(videoKey));
          this.writeGraph(videoKey, update.videoId, update.graph, clipIndexes, segmentText);
          this.pruneGraph(touched);
        } else if (chunkTexts.length > 0) {
          // The chunks stay, but the segments they were packed against moved: pack them against the new ones.
          const text = new SegmentText(segments ?? []);
          for (const chunk of chunkTexts) {
            const packed = packChunkText(chunk.text, text, chunk.start_second, chunk.end_second);
            this.statements.setChunkText.run(packed ? "" : chunk.text, packed ?? null, chunk.key);
          }
        }
        for (const record of update.stages) {
          this.statements.upsertClipStage.run(videoKey, record.clipIndex, record.stage, record.key, record.status, record.error ?? null);
        }
      }).immediate(),
    );
  }

  async refreshStageKey(stage: string, key: string): Promise<number> {
    return this.guard(`cannot refresh stage ${stage}`, () =>
      this.db.transaction(() => this.statements.refreshStageKey.run({ stage, key }).changes).immediate(),
    );
  }

  async extractionStatus(): Promise<ExtractionStatus> {
    return this.guard("cannot read the extraction status", () => {
      const stages: ExtractionStatus["stages"] = {};
      for (const row of this.statements.stageCounts.all() as { stage: string; status: ClipStageStatus; count: number }[]) {
        const entry = (stages[row.stage] ??= { done: 0, pending: 0, failed: 0 });
        entry[row.status] = row.count;
      }
      const byVideo = (this.statements.clipCounts.all() as { video_id: string; clips: number; failed: number; pending: number }[]).map((row) => ({
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
    if (this.db.open) this.db.close();
  }
}
