// What every part of the SQLite store shares: the connection, the statements and caches more than one part uses, the
// lexical indexes every write keeps in step, and the helpers that run a read or a write (`guard`, `snapshot`).

import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import type Database from "better-sqlite3";
import { VideoRagError, type Segment } from "../../spec/index.js";
import { BlockCache } from "../block-cache.js";
import { deflateSegmentBlocks, encodeSegmentBlocks } from "../packed-text.js";
import type { VideoRow } from "../shared-catalog-rows.js";
import { speakerLabels } from "../shared-speaker-rows.js";
import { PackedReader, preparePackedStatements, type PackedStatements } from "./sqlite-packed-reader.js";
import { FtsTermLists } from "./sqlite-term-lists.js";
import { LexicalIndexes } from "./sqlite-text-index.js";

/** Maps what better-sqlite3 throws to our codes: a held lock is STORE_LOCKED (worth retrying), the rest STORE_FAILED. */
export function storeError(error: unknown, action: string, path: string): VideoRagError {
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

/** A video's columns, as `VideoRow` reads them. */
export const videoColumns = `key, id, status, path, title, kind, duration_seconds, size_bytes, width, height, has_audio,
      has_video, times_estimated, ingested_at, clip_count, fingerprint, language`;

/** The statements more than one part reads or writes with. */
function prepareSharedStatements(db: Database.Database) {
  return {
    videoById: db.prepare(`SELECT ${videoColumns} FROM videos WHERE id = ?`),
    // Driven by the list (CROSS JOIN fixes the order): left to itself the planner walks every ready video by the status
    // index and tests each against the list, 2 ms a search on the 8,648-transcript library.
    videoIdsByKeys: db.prepare(`SELECT v.key, v.id FROM (SELECT DISTINCT value FROM json_each(?)) j
        CROSS JOIN videos v ON v.key = j.value WHERE v.status = 'ready'`),
    videoKeysByIds: db.prepare(`SELECT v.key FROM (SELECT DISTINCT value FROM json_each(?)) j
        CROSS JOIN videos v ON v.id = j.value WHERE v.status = 'ready'`).pluck(),
    deleteSegmentBlocks: db.prepare(`DELETE FROM segment_blocks WHERE video_key = ?`),
    insertSegmentBlock: db.prepare(`INSERT INTO segment_blocks (video_key, block_index, min_start_second,
        max_start_second, max_end_second, segments) VALUES (?, ?, ?, ?, ?, ?)`),
    dataVersion: db.prepare(`PRAGMA data_version`).pluck(),
    changesHere: db.prepare(`SELECT total_changes()`).pluck(),
    deleteSpeakerLabels: db.prepare(`DELETE FROM segment_speakers WHERE video_key = ?`),
    insertSpeakerLabel: db.prepare(`INSERT INTO segment_speakers (video_key, label, label_key) VALUES (?, ?, ?)`),
  };
}

/** The name a library file is known by to every reader of it in this process: its real path. */
function sharedName(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** The state the SQLite store's parts share; one per open library. */
export class SqliteContext {
  private readonly statements;
  /** Search statements vary only in table and field weights, so a handful are compiled once and reused. */
  private readonly searchStatements = new Map<string, Database.Statement>();
  private readonly packedStatements: PackedStatements;
  readonly blockCache = new BlockCache();
  readonly lexical: LexicalIndexes;
  /** Document counts and lists of search terms, kept while their index is unchanged, and each index's averages record. */
  readonly termLists: FtsTermLists;
  private openSnapshot: number | undefined;
  private snapshots = 0;

  constructor(
    readonly db: Database.Database,
    readonly path: string,
  ) {
    this.statements = prepareSharedStatements(db);
    this.packedStatements = preparePackedStatements(db);
    this.lexical = new LexicalIndexes(db);
    this.termLists = new FtsTermLists(db, () => this.readSnapshot, db.memory ? undefined : sharedName(path));
  }

  /**
   * Moves whenever the file may have changed, for what is kept between reads: SQLite's `data_version` moves when another
   * connection (another process) commits, `total_changes()` when this one writes.
   */
  changeStamp(): string {
    return `${this.statements.dataVersion.get() as number}:${this.statements.changesHere.get() as number}`;
  }

  /**
   * Runs reads in one read transaction, so they see one snapshot of the file: a packed text is read from more than one
   * row (a clip and its segments, a source and its chunk), and another process's write between two of them must not
   * mix two versions. Inside a write transaction the reads already see one state.
   */
  snapshot<T>(work: () => T): T {
    if (this.db.inTransaction) return work();
    return this.db.transaction(() => {
      this.openSnapshot = ++this.snapshots;
      try {
        return work();
      } finally {
        this.openSnapshot = undefined;
      }
    }).deferred();
  }

  /**
   * The read transaction `snapshot` opened and is running in, by number; undefined outside one (or inside a transaction
   * someone else began, which may write). What is read in one holds until it ends: snapshots only read.
   */
  get readSnapshot(): number | undefined {
    return this.openSnapshot;
  }

  /** `snapshot` within `guard`: reads of one state of the file, a failure as the store's error for `action`. */
  guardedSnapshot<T>(action: string, work: () => T): T {
    return this.guard(action, () => this.snapshot(work));
  }

  guard<T>(action: string, work: () => T): T {
    try {
      return work();
    } catch (error) {
      throw storeError(error, action, this.path);
    }
  }

  prepareSearch(sql: string): Database.Statement {
    let statement = this.searchStatements.get(sql);
    if (!statement) {
      if (this.searchStatements.size >= 32) this.searchStatements.clear();
      statement = this.db.prepare(sql).raw();
      this.searchStatements.set(sql, statement);
    }
    return statement;
  }

  /** A reader of packed text for one call (see PackedReader). */
  reader(): PackedReader {
    return new PackedReader(this.packedStatements, this.blockCache);
  }

  /** A video's row, pending or ready. */
  videoRow(id: string): VideoRow | undefined {
    return this.statements.videoById.get(id) as VideoRow | undefined;
  }

  /** A ready video's row; undefined for a pending video or none. */
  readyRow(id: string): VideoRow | undefined {
    const row = this.videoRow(id);
    return row?.status === "ready" ? row : undefined;
  }

  /** The ids of the ready videos among these keys. */
  readyVideoIds(keys: number[]): { key: number; id: string }[] {
    return this.statements.videoIdsByKeys.all(JSON.stringify(keys)) as { key: number; id: string }[];
  }

  /** The keys of the ready videos among these ids. */
  readyVideoKeys(ids: string[]): number[] {
    return this.statements.videoKeysByIds.all(JSON.stringify(ids)) as number[];
  }

  /**
   * Replaces a video's segments with these, in this order, as blocks (see schema version 7), and the list of their
   * speakers' labels (schema version 11).
   */
  writeSegments(videoKey: number, segments: Segment[]): void {
    this.deleteSegments(videoKey);
    for (const block of encodeSegmentBlocks(segments, deflateSegmentBlocks)) {
      this.statements.insertSegmentBlock.run(
        videoKey, block.blockIndex, block.minStartSecond, block.maxStartSecond, block.maxEndSecond, block.data,
      );
    }
    for (const { label, key } of speakerLabels(segments)) this.statements.insertSpeakerLabel.run(videoKey, label, key);
  }

  /** Deletes a video's segments and their speakers' labels (not the names given to them: see SqliteSpeakers). */
  deleteSegments(videoKey: number): void {
    this.statements.deleteSegmentBlocks.run(videoKey);
    this.statements.deleteSpeakerLabels.run(videoKey);
  }
}
