// The SQLite store's VectorIndex: embeddings in named spaces, searched by exact cosine distance with sqlite-vec, and the
// vector writes a commit, a write-back and a removal make inside their transactions.

import type Database from "better-sqlite3";
import { VideoRagError } from "../../spec/index.js";
import type { VectorIndex, VectorMatch, VectorQuery, VectorRecord, VectorSpace } from "../../spec/index.js";
import { checkQueryDimensions, checkRecord, checkRecordDimensions, checkVectorQuery } from "../store-checks.js";
import type { SqliteContext } from "./sqlite-context.js";

interface SpaceRow {
  key: number;
  dimensions: number;
}

type VectorRow = [videoKey: number, clipIndex: number, timeSecond: number | null, distance: number | null];

/** The float32 bytes of a vector, as stored and as sqlite-vec reads them (no copy). */
export const vectorBytes = (vector: Float32Array): Buffer => Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);

function prepareVectorStatements(db: Database.Database) {
  return {
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
  };
}

/** Embeddings by space (VectorIndex), and the vector writes of the transactions that span parts. */
export class SqliteVectorIndex implements VectorIndex {
  private readonly statements;

  constructor(
    private readonly context: SqliteContext,
    /** Why sqlite-vec could not be loaded, when it could not. */
    private readonly vectorSearchUnavailable: string | undefined,
  ) {
    this.statements = prepareVectorStatements(context.db);
  }

  /**
   * Writes a video's vectors inside the caller's transaction, creating spaces on first use. A vector whose dimension
   * differs from its space's is ARGUMENT_INVALID, which rolls back the whole transaction.
   */
  writeVectors(videoKey: number, videoId: string, records: VectorRecord[]): void {
    const spaces = new Map<string, SpaceRow>();
    for (const record of records) {
      checkRecord(record, videoId);
      let space = spaces.get(record.space) ?? (this.statements.spaceByName.get(record.space) as SpaceRow | undefined);
      if (!space) {
        const dimensions = record.vector.length;
        space = { key: this.statements.insertSpace.get(record.space, dimensions) as number, dimensions };
      }
      spaces.set(record.space, space);
      checkRecordDimensions(record, space.dimensions);
      this.statements.upsertVector.run(
        space.key, videoKey, record.owner, record.clipIndex, record.timeSecond ?? null, vectorBytes(record.vector),
      );
    }
  }

  /** Deletes a video's vectors, and the spaces left with none. */
  clearVectors(videoKey: number): void {
    this.statements.deleteVectors.run(videoKey);
    this.pruneSpaces();
  }

  /** Deletes the frame vectors of one clip of a video; `pruneSpaces` after, once the replacements are written. */
  deleteFrameVectors(videoKey: number, clipIndex: number): void {
    this.statements.deleteClipFrameVectors.run(videoKey, clipIndex);
  }

  /** Deletes the spaces that hold no vector. */
  pruneSpaces(): void {
    this.statements.pruneSpaces.run();
  }

  async addVectors(videoId: string, records: VectorRecord[]): Promise<void> {
    this.context.guard(`cannot add vectors to ${videoId}`, () =>
      this.context.db.transaction(() => {
        const row = this.context.readyRow(videoId);
        if (!row) throw new VideoRagError("VIDEO_NOT_FOUND", `no video ${videoId} to add vectors to`, { subject: videoId });
        this.writeVectors(row.key, videoId, records);
      }).immediate(),
    );
  }

  async searchVectors(query: VectorQuery): Promise<VectorMatch[]> {
    return this.context.guard("cannot search vectors", () => {
      if (this.vectorSearchUnavailable !== undefined) {
        throw new VideoRagError(
          "STORE_FAILED",
          `vector search needs the sqlite-vec package, which could not be loaded (${this.vectorSearchUnavailable}); ` +
            "install it with `npm install sqlite-vec`",
          { subject: this.context.path },
        );
      }
      // A zero vector is refused there: sqlite-vec gives NULL for its cosine distance to anything.
      checkVectorQuery(query);
      const space = this.statements.spaceByName.get(query.space) as SpaceRow | undefined;
      if (!space) return [];
      checkQueryDimensions(query, space.dimensions);
      const limit = Math.floor(query.limit);
      if (limit === 0) return [];
      const parameters: (number | string | Buffer)[] = [vectorBytes(query.vector), space.key];
      let filters = "";
      if (query.owner !== undefined) {
        filters += " AND owner = ?";
        parameters.push(query.owner);
      }
      if (query.videoIds) {
        filters += ` AND video_key IN (SELECT v.key FROM (SELECT DISTINCT value FROM json_each(?)) j CROSS JOIN videos v ON v.id = j.value WHERE v.status = 'ready')`;
        parameters.push(JSON.stringify(query.videoIds));
      }
      // Stored zero vectors have a NULL distance: sorted last, then dropped. Filtering them in WHERE would compute every
      // distance twice.
      const statement = this.context.prepareSearch(
        `SELECT video_key, clip_index, time_second, vec_distance_cosine(vector, ?) AS distance FROM vectors
          WHERE space_key = ?${filters} ORDER BY distance NULLS LAST, key LIMIT ?`,
      );
      const rows = (statement.all(...parameters, limit) as VectorRow[]).filter((row) => row[3] !== null);
      if (rows.length === 0) return [];
      const videos = this.context.readyVideoIds([...new Set(rows.map((row) => row[0]))]);
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
    return this.context.guard("cannot list vector spaces", () => this.statements.vectorSpaces.all() as VectorSpace[]);
  }

  async vectorCount(videoId?: string): Promise<number> {
    return this.context.guard("cannot count vectors", () =>
      videoId === undefined
        ? (this.statements.vectorCount.get() as number)
        : (this.statements.videoVectorCount.get(videoId) as number),
    );
  }
}
