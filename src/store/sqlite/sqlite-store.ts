// The default Store: one SQLite file (WAL) with metadata tables, resumable stage rows, two FTS5 indexes for BM25 (one
// over clip documents, one over whole videos) and a table of embedding vectors searched with sqlite-vec.

import { createRequire } from "node:module";
import Database from "better-sqlite3";
import type * as SqliteVec from "sqlite-vec";
import { VideoRagError } from "../../spec/index.js";
import type {
  ClipDocument,
  ClipMatch,
  LexicalQuery,
  Segment,
  SegmentSource,
  StageRecord,
  Store,
  VectorMatch,
  VectorQuery,
  VectorRecord,
  VectorSpace,
  Video,
  VideoContent,
  VideoMatch,
} from "../../spec/index.js";
import { migrate } from "./sqlite-schema.js";

export interface SqliteStoreOptions {
  /** How long a write waits for another process's write to finish before failing with STORE_LOCKED; default 5000. */
  busyTimeoutMs?: number;
  /**
   * Loads sqlite-vec into the connection; defaults to the `sqlite-vec` package. When it throws, the library still opens
   * and works, and only `searchVectors` fails (tests pass a failing loader to check that).
   */
  loadVectorExtension?: (db: { loadExtension(file: string): void }) => void;
}

const requireModule = createRequire(import.meta.url);

/** sqlite-vec is required when a library opens, not imported, so that a missing package breaks vector search only. */
function loadSqliteVec(db: { loadExtension(file: string): void }): void {
  (requireModule("sqlite-vec") as typeof SqliteVec).load(db);
}

/** Field weights when a query names none. Screen text (OCR) and visual words are noisier than what was said. */
const defaultFieldWeights = { transcript: 1, screen: 0.8, visual: 0.5 };

/** Integer term weights up to this are expressed by repeating the term in one FTS5 query (BM25 sums over phrases). */
const maxRepeatedWeight = 8;

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

interface ClipRow {
  video_id: string;
  clip_index: number;
  start_second: number;
  end_second: number;
  transcript: string;
  screen: string;
  visual: string;
}

interface SpaceRow {
  key: number;
  dimensions: number;
}

type VectorRow = [videoKey: number, clipIndex: number, timeSecond: number | null, distance: number | null];

/** The float32 bytes of a vector, as stored and as sqlite-vec reads them (no copy). */
const vectorBytes = (vector: Float32Array): Buffer => Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);

/** Throws ARGUMENT_INVALID unless the vector is a non-empty Float32Array of finite numbers. */
function checkVector(vector: unknown, what: string): asserts vector is Float32Array {
  if (!(vector instanceof Float32Array) || vector.length === 0 || !vector.every(Number.isFinite)) {
    throw new VideoRagError("ARGUMENT_INVALID", `${what} must be a non-empty Float32Array of finite numbers`);
  }
}

/** Throws ARGUMENT_INVALID for a record that does not belong to the video or cannot be keyed. */
function checkRecord(record: VectorRecord, videoId: string): void {
  const where = `a vector in space "${record.space}" for ${record.videoId} clip ${record.clipIndex}`;
  if (record.videoId !== videoId) {
    throw new VideoRagError("ARGUMENT_INVALID", `${where} was given for video ${videoId}`);
  }
  if (typeof record.space !== "string" || record.space === "") {
    throw new VideoRagError("ARGUMENT_INVALID", `a vector for ${videoId} has no space name`);
  }
  if (record.owner !== "clip" && record.owner !== "frame") {
    throw new VideoRagError("ARGUMENT_INVALID", `${where} has owner ${String(record.owner)}, not "clip" or "frame"`);
  }
  if (!Number.isInteger(record.clipIndex) || record.clipIndex < 0) {
    throw new VideoRagError("ARGUMENT_INVALID", `${where} needs a clip index that is an integer ≥ 0`);
  }
  if (record.timeSecond !== undefined && !(Number.isFinite(record.timeSecond) && record.timeSecond >= 0)) {
    throw new VideoRagError("ARGUMENT_INVALID", `${where} has a time that is not a number of seconds ≥ 0`);
  }
  checkVector(record.vector, where);
}

/** The FTS5 token naming a video in the `video` column of both indexes. */
const videoToken = (key: number): string => `k${key}`;

/** Quotes text as an FTS5 string, so user words are never read as query syntax. */
const quote = (text: string): string => `"${text.replace(/"/g, '""')}"`;

/** True when the text has something the tokenizer keeps; an empty FTS5 phrase is a syntax error. */
const hasToken = (text: string): boolean => /[\p{L}\p{N}]/u.test(text);

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
    migrate(db, path);
  } catch (error) {
    throw storeError(error, `cannot open the library ${path}`, path);
  }
  let vectorSearchUnavailable: string | undefined;
  try {
    (options.loadVectorExtension ?? loadSqliteVec)(db);
  } catch (error) {
    vectorSearchUnavailable = error instanceof Error ? error.message : String(error);
  }
  return new SqliteStore(db, path, vectorSearchUnavailable);
}

type MatchRow = [key: number, score: number];

class SqliteStore implements Store {
  private readonly statements;
  /** Search statements vary only in table and field weights, so a handful are compiled once and reused. */
  private readonly searchStatements = new Map<string, Database.Statement>();

  constructor(
    private readonly db: Database.Database,
    private readonly path: string,
    /** Why sqlite-vec could not be loaded, when it could not. */
    private readonly vectorSearchUnavailable?: string,
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
      deleteClipFts: db.prepare(`DELETE FROM clip_fts WHERE rowid IN (SELECT key FROM clips WHERE video_key = ?)`),
      deleteVideoFts: db.prepare(`DELETE FROM video_fts WHERE rowid = ?`),
      deleteClips: db.prepare(`DELETE FROM clips WHERE video_key = ?`),
      deleteSegments: db.prepare(`DELETE FROM segments WHERE video_key = ?`),
      deleteFrames: db.prepare(`DELETE FROM frames WHERE video_key = ?`),
      deleteStages: db.prepare(`DELETE FROM stages WHERE video_key = ?`),
      insertClip: db.prepare(`INSERT INTO clips (video_key, clip_index, start_second, end_second, transcript, screen, visual)
        VALUES (?, ?, ?, ?, ?, ?, ?)`),
      insertClipFts: db.prepare(`INSERT INTO clip_fts (rowid, transcript, screen, visual, video) VALUES (?, ?, ?, ?, ?)`),
      insertVideoFts: db.prepare(`INSERT INTO video_fts (rowid, transcript, screen, visual, video) VALUES (?, ?, ?, ?, ?)`),
      insertSegment: db.prepare(`INSERT INTO segments (video_key, start_second, end_second, text, source) VALUES (?, ?, ?, ?, ?)`),
      insertFrame: db.prepare(`INSERT INTO frames (video_key, time_second, hash) VALUES (?, ?, ?)`),
      loadStages: db.prepare(`SELECT s.stage, s.key, s.output FROM stages s JOIN videos v ON v.key = s.video_key
        WHERE v.id = ? ORDER BY s.rowid`),
      saveStage: db.prepare(`INSERT INTO stages (video_key, stage, key, output) SELECT key, ?, ?, ? FROM videos WHERE id = ?
        ON CONFLICT (video_key, stage) DO UPDATE SET key = excluded.key, output = excluded.output`),
      clipsByKeys: db.prepare(`SELECT c.key, v.id AS video_id, c.clip_index, c.start_second, c.end_second
        FROM clips c JOIN videos v ON v.key = c.video_key WHERE c.key IN (SELECT value FROM json_each(?))`),
      clip: db.prepare(`SELECT v.id AS video_id, c.clip_index, c.start_second, c.end_second, c.transcript, c.screen, c.visual
        FROM clips c JOIN videos v ON v.key = c.video_key WHERE v.id = ? AND v.status = 'ready' AND c.clip_index = ?`),
      segments: db.prepare(`SELECT s.start_second, s.end_second, s.text, s.source FROM segments s
        JOIN videos v ON v.key = s.video_key
        WHERE v.id = ? AND v.status = 'ready' AND s.start_second < ? AND (s.end_second > ? OR s.start_second >= ?)
        ORDER BY s.start_second, s.rowid`),
      videoIdsByKeys: db.prepare(`SELECT key, id FROM videos WHERE status = 'ready' AND key IN (SELECT value FROM json_each(?))`),
      clipCount: db.prepare(`SELECT count(*) FROM clips`).pluck(),
      clipTermCount: db.prepare(`SELECT count(*) FROM clip_fts WHERE clip_fts MATCH ?`).pluck(),
      spaceByName: db.prepare(`SELECT key, dimensions FROM vector_spaces WHERE name = ?`),
      insertSpace: db.prepare(`INSERT INTO vector_spaces (name, dimensions) VALUES (?, ?) RETURNING key`).pluck(),
      upsertVector: db.prepare(`INSERT INTO vectors (space_key, video_key, owner, clip_index, time_second, vector)
        VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT (video_key, space_key, owner, clip_index, ifnull(time_second, -1)) DO UPDATE SET vector = excluded.vector`),
      deleteVectors: db.prepare(`DELETE FROM vectors WHERE video_key = ?`),
      pruneSpaces: db.prepare(`DELETE FROM vector_spaces
        WHERE NOT EXISTS (SELECT 1 FROM vectors WHERE space_key = vector_spaces.key)`),
      vectorSpaces: db.prepare(`SELECT s.name AS space, s.dimensions, count(*) AS count
        FROM vector_spaces s JOIN vectors x ON x.space_key = s.key GROUP BY s.key ORDER BY s.name`),
      vectorCount: db.prepare(`SELECT count(*) FROM vectors`).pluck(),
      videoVectorCount: db.prepare(`SELECT count(*) FROM vectors x JOIN videos v ON v.key = x.video_key
        WHERE v.id = ? AND v.status = 'ready'`).pluck(),
    };
  }

  private guard<T>(action: string, work: () => T): T {
    try {
      return work();
    } catch (error) {
      throw storeError(error, action, this.path);
    }
  }

  private readyRow(id: string): VideoRow | undefined {
    const row = this.statements.videoById.get(id) as VideoRow | undefined;
    return row?.status === "ready" ? row : undefined;
  }

  /** Removes what a video contributed except its row; FTS rows first, since contentless rows are found by rowid. */
  private clearContent(videoKey: number): void {
    this.statements.deleteClipFts.run(videoKey);
    this.statements.deleteVideoFts.run(videoKey);
    this.statements.deleteClips.run(videoKey);
    this.statements.deleteSegments.run(videoKey);
    this.statements.deleteFrames.run(videoKey);
    this.statements.deleteVectors.run(videoKey);
    this.statements.pruneSpaces.run();
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

  listVideos(): Video[] {
    return this.guard("cannot list videos", () => (this.statements.listVideos.all() as VideoRow[]).map(toVideo));
  }

  getVideo(id: string): Video | undefined {
    return this.guard("cannot read a video", () => {
      const row = this.readyRow(id);
      return row ? toVideo(row) : undefined;
    });
  }

  getFingerprint(id: string): string | undefined {
    return this.guard("cannot read a fingerprint", () => this.readyRow(id)?.fingerprint ?? undefined);
  }

  removeVideo(id: string): boolean {
    return this.guard(`cannot remove ${id}`, () =>
      this.db.transaction(() => {
        const row = this.statements.videoById.get(id) as VideoRow | undefined;
        if (!row) return false;
        this.clearContent(row.key);
        this.statements.deleteVideo.run(row.key);
        return row.status === "ready";
      }).immediate(),
    );
  }

  loadStages(videoId: string): StageRecord[] {
    return this.guard("cannot load stages", () =>
      (this.statements.loadStages.all(videoId) as { stage: string; key: string; output: string }[]).map((row) => ({
        stage: row.stage,
        key: row.key,
        output: JSON.parse(row.output) as unknown,
      })),
    );
  }

  saveStage(videoId: string, record: StageRecord): void {
    this.guard(`cannot save stage ${record.stage}`, () =>
      this.db.transaction(() => {
        // A video being ingested for the first time exists only as a pending row, which no reader ever lists.
        this.statements.insertPending.run(videoId);
        this.statements.saveStage.run(record.stage, record.key, JSON.stringify(record.output ?? null), videoId);
      }).immediate(),
    );
  }

  discardStages(videoId: string): void {
    this.guard("cannot discard stages", () =>
      this.db.transaction(() => {
        const row = this.statements.videoById.get(videoId) as VideoRow | undefined;
        if (!row) return;
        if (row.status === "pending") this.statements.deleteVideo.run(row.key);
        else this.statements.deleteStages.run(row.key);
      }).immediate(),
    );
  }

  commitVideo(content: VideoContent): void {
    const { video } = content;
    this.guard(`cannot commit ${video.id}`, () =>
      this.db.transaction(() => {
        const existing = this.statements.videoById.get(video.id) as VideoRow | undefined;
        if (existing) {
          this.clearContent(existing.key);
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
        const token = videoToken(key);
        // The whole-video document; screen lines are kept once, as a slide left up for minutes is in every clip it covers
        // and would otherwise count once per clip.
        const whole = { transcript: [] as string[], screen: new Set<string>(), visual: [] as string[] };
        for (const clip of content.clips) {
          const inserted = this.statements.insertClip.run(
            key, clip.index, clip.startSecond, clip.endSecond, clip.transcript, clip.screen, clip.visual,
          );
          this.statements.insertClipFts.run(inserted.lastInsertRowid, clip.transcript, clip.screen, clip.visual, token);
          whole.transcript.push(clip.transcript);
          for (const line of clip.screen.split("\n")) if (line.trim()) whole.screen.add(line.trim());
          whole.visual.push(clip.visual);
        }
        this.statements.insertVideoFts.run(
          key, whole.transcript.join("\n"), [...whole.screen].join("\n"), whole.visual.join("\n"), token,
        );
        for (const segment of content.segments) {
          this.statements.insertSegment.run(key, segment.startSecond, segment.endSecond, segment.text, segment.source);
        }
        for (const frame of content.frames) this.statements.insertFrame.run(key, frame.timeSecond, frame.hash ?? null);
        this.writeVectors(key, video.id, content.vectors ?? []);
      }).immediate(),
    );
  }

  addVectors(videoId: string, records: VectorRecord[]): void {
    this.guard(`cannot add vectors to ${videoId}`, () =>
      this.db.transaction(() => {
        const row = this.readyRow(videoId);
        if (!row) throw new VideoRagError("VIDEO_NOT_FOUND", `no video ${videoId} to add vectors to`, { subject: videoId });
        this.writeVectors(row.key, videoId, records);
      }).immediate(),
    );
  }

  searchVectors(query: VectorQuery): VectorMatch[] {
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

  vectorSpaces(): VectorSpace[] {
    return this.guard("cannot list vector spaces", () => this.statements.vectorSpaces.all() as VectorSpace[]);
  }

  vectorCount(videoId?: string): number {
    return this.guard("cannot count vectors", () =>
      videoId === undefined
        ? (this.statements.vectorCount.get() as number)
        : (this.statements.videoVectorCount.get(videoId) as number),
    );
  }

  searchClips(query: LexicalQuery): ClipMatch[] {
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

  searchVideos(query: LexicalQuery): VideoMatch[] {
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
    const weights = new Map<string, number>();
    for (const term of query.terms) {
      const text = term.text.trim().toLowerCase();
      if (!hasToken(text) || !(term.weight > 0)) continue;
      weights.set(text, (weights.get(text) ?? 0) + term.weight);
    }
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

    const integral = [...weights.values()].every((weight) => Number.isInteger(weight) && weight <= maxRepeatedWeight);
    if (integral) {
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

  getClips(keys: { videoId: string; clipIndex: number }[]): ClipDocument[] {
    return this.guard("cannot read clips", () =>
      keys.flatMap(({ videoId, clipIndex }) => {
        const row = this.statements.clip.get(videoId, clipIndex) as ClipRow | undefined;
        if (!row) return [];
        const document: ClipDocument = {
          videoId: row.video_id,
          index: row.clip_index,
          startSecond: row.start_second,
          endSecond: row.end_second,
          transcript: row.transcript,
          screen: row.screen,
          visual: row.visual,
        };
        return [document];
      }),
    );
  }

  getSegments(videoId: string, startSecond: number, endSecond: number): (Segment & { source: SegmentSource })[] {
    return this.guard("cannot read segments", () =>
      (
        this.statements.segments.all(videoId, endSecond, startSecond, startSecond) as {
          start_second: number;
          end_second: number;
          text: string;
          source: SegmentSource;
        }[]
      ).map((row) => ({ startSecond: row.start_second, endSecond: row.end_second, text: row.text, source: row.source })),
    );
  }

  termDocumentFrequency(terms: string[]): { frequencies: Map<string, number>; documentCount: number } {
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

  close(): void {
    if (this.db.open) this.db.close();
  }
}
