// The SQLite store's VideoCatalog: videos with their clips, segments and frames, the staged results of unfinished
// ingests, and the transactions that commit and remove a video across every part of the store.

import type Database from "better-sqlite3";
import type {
  ClipDocument,
  Frame,
  Segment,
  SegmentRange,
  SegmentSource,
  StageRecord,
  Video,
  VideoCatalog,
  VideoContent,
} from "../../spec/index.js";
import { encodeFrames, framesInWindow, segmentsInWindow, SegmentText, transcriptRuns } from "../packed-text.js";
import { toClipDocument, toVideo, type VideoRow } from "../shared-catalog-rows.js";
import type { SqliteChapters } from "./sqlite-chapters.js";
import { videoColumns, type SqliteContext } from "./sqlite-context.js";
import type { SqliteGraphWrites, TouchedGraph } from "./sqlite-graph-writes.js";
import type { SqliteLedger } from "./sqlite-ledger.js";
import type { SqliteSpeakers } from "./sqlite-speakers.js";
import type { ClipTextRow } from "./sqlite-packed-reader.js";
import type { SqliteVectorIndex } from "./sqlite-vectors.js";

interface ClipRow extends ClipTextRow {
  video_id: string;
  video_key: number;
  clip_index: number;
  start_second: number;
  end_second: number;
}

function prepareCatalogStatements(db: Database.Database) {
  return {
    listVideos: db.prepare(`SELECT ${videoColumns} FROM videos WHERE status = 'ready' ORDER BY ingested_at DESC, key DESC`),
    insertPending: db.prepare(`INSERT INTO videos (id, status) VALUES (?, 'pending') ON CONFLICT (id) DO NOTHING`),
    insertVideo: db.prepare(`INSERT INTO videos (id, status, path, title, kind, duration_seconds, size_bytes, width, height,
          has_audio, has_video, times_estimated, ingested_at, clip_count, fingerprint, language)
        VALUES (@id, 'ready', @path, @title, @kind, @durationSeconds, @sizeBytes, @width, @height, @hasAudio, @hasVideo,
          @timesEstimated, @ingestedAt, @clipCount, @fingerprint, @language)
        ON CONFLICT (id) DO UPDATE SET status = 'ready', path = excluded.path, title = excluded.title, kind = excluded.kind,
          duration_seconds = excluded.duration_seconds, size_bytes = excluded.size_bytes, width = excluded.width,
          height = excluded.height, has_audio = excluded.has_audio, has_video = excluded.has_video,
          times_estimated = excluded.times_estimated, ingested_at = excluded.ingested_at,
          clip_count = excluded.clip_count, fingerprint = excluded.fingerprint, language = excluded.language
        RETURNING key`),
    deleteVideo: db.prepare(`DELETE FROM videos WHERE key = ?`),
    deleteClips: db.prepare(`DELETE FROM clips WHERE video_key = ?`),
    deleteFrames: db.prepare(`DELETE FROM frame_lists WHERE video_key = ?`),
    deleteStages: db.prepare(`DELETE FROM stages WHERE video_key = ?`),
    insertClip: db.prepare(`INSERT INTO clips (video_key, clip_index, start_second, end_second, transcript,
          transcript_first, transcript_last, screen, visual)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    // The blocks that can hold a segment in [start, end): the segment condition of getSegments, on the block's bounds.
    segmentBlocksInWindow: db.prepare(`SELECT b.video_key, b.block_index, b.segments FROM segment_blocks b
        JOIN videos v ON v.key = b.video_key
        WHERE v.id = @videoId AND v.status = 'ready' AND b.min_start_second < @end
          AND (b.max_end_second > @start OR b.max_start_second >= @start)
        ORDER BY b.block_index`).raw(),
    framesOf: db.prepare(`SELECT f.frames FROM frame_lists f JOIN videos v ON v.key = f.video_key
        WHERE v.id = ? AND v.status = 'ready'`).pluck(),
    insertFrames: db.prepare(`INSERT INTO frame_lists (video_key, frames) VALUES (?, ?)`),
    loadStages: db.prepare(`SELECT s.stage, s.key, s.output FROM stages s JOIN videos v ON v.key = s.video_key
        WHERE v.id = ? ORDER BY s.rowid`),
    saveStage: db.prepare(`INSERT INTO stages (video_key, stage, key, output) SELECT key, ?, ?, ? FROM videos WHERE id = ?
        ON CONFLICT (video_key, stage) DO UPDATE SET key = excluded.key, output = excluded.output`),
    clip: db.prepare(`SELECT v.id AS video_id, c.video_key, c.clip_index, c.start_second, c.end_second, c.transcript,
          c.transcript_first, c.transcript_last, c.screen, c.visual
        FROM clips c JOIN videos v ON v.key = c.video_key WHERE v.id = ? AND v.status = 'ready' AND c.clip_index = ?`),
  };
}

/** The parts whose writes a commit and a removal make along with the catalog's, in one transaction. */
export interface CatalogWriters {
  ledger: SqliteLedger;
  vectors: SqliteVectorIndex;
  graphWrites: SqliteGraphWrites;
  chapters: SqliteChapters;
  speakers: SqliteSpeakers;
}

/** Videos, their clips, segments and frames, and ingests' staged results (VideoCatalog). */
export class SqliteCatalog implements VideoCatalog {
  private readonly statements;
  /** The last list read, with the database's change stamp then (see `listVideos`). */
  private listed: { stamp: string; videos: readonly Video[] } | undefined;

  constructor(
    private readonly context: SqliteContext,
    private readonly writers: CatalogWriters,
  ) {
    this.statements = prepareCatalogStatements(context.db);
  }

  /**
   * Removes what a video contributed except its row; FTS rows first, since a contentless index forgets a row only when
   * told the text it holds. Returns the entities and relations its graph sources named, for `pruneGraph` once the
   * caller has written what replaces them.
   */
  private clearContent(videoKey: number): TouchedGraph {
    const touched = this.writers.graphWrites.clearGraph(videoKey);
    this.context.lexical.forgetVideo(videoKey, this.context.reader().clipTexts(videoKey));
    this.statements.deleteClips.run(videoKey);
    this.context.deleteSegments(videoKey);
    this.statements.deleteFrames.run(videoKey);
    this.writers.ledger.deleteClipStages(videoKey);
    this.writers.vectors.clearVectors(videoKey);
    this.writers.chapters.deleteChapters(videoKey);
    return touched;
  }

  /**
   * Every ready video, newest first. Each question reads the list (a video it names scopes it), and building 8,648 of
   * them took half of a lite answer's time, so the last list is kept while nothing in the file has changed
   * (`changeStamp`).
   */
  async listVideos(): Promise<Video[]> {
    return this.context.guard("cannot list videos", () => {
      const stamp = this.context.changeStamp();
      if (this.listed?.stamp !== stamp) {
        this.listed = { stamp, videos: (this.statements.listVideos.all() as VideoRow[]).map((row) => Object.freeze(toVideo(row))) };
      }
      return [...this.listed.videos];
    });
  }

  async getVideo(id: string): Promise<Video | undefined> {
    return (await this.getVideos([id]))[0];
  }

  async getVideos(ids: string[]): Promise<(Video | undefined)[]> {
    return this.context.guard("cannot read videos", () =>
      ids.map((id) => {
        const row = this.context.readyRow(id);
        return row ? toVideo(row) : undefined;
      }),
    );
  }

  async getFingerprint(id: string): Promise<string | undefined> {
    return this.context.guard("cannot read a fingerprint", () => this.context.readyRow(id)?.fingerprint ?? undefined);
  }

  async removeVideo(id: string): Promise<boolean> {
    return this.context.guard(`cannot remove ${id}`, () =>
      this.context.db.transaction(() => {
        const row = this.context.videoRow(id);
        if (!row) return false;
        this.writers.graphWrites.pruneGraph(this.clearContent(row.key));
        this.statements.deleteVideo.run(row.key);
        return row.status === "ready";
      }).immediate(),
    );
  }

  async loadStages(videoId: string): Promise<StageRecord[]> {
    return this.context.guard("cannot load stages", () =>
      (this.statements.loadStages.all(videoId) as { stage: string; key: string; output: string }[]).map((row) => ({
        stage: row.stage,
        key: row.key,
        output: JSON.parse(row.output) as unknown,
      })),
    );
  }

  async saveStage(videoId: string, record: StageRecord): Promise<void> {
    this.context.guard(`cannot save stage ${record.stage}`, () =>
      this.context.db.transaction(() => {
        // A video being ingested for the first time exists only as a pending row, which no reader ever lists.
        this.statements.insertPending.run(videoId);
        this.statements.saveStage.run(record.stage, record.key, JSON.stringify(record.output ?? null), videoId);
      }).immediate(),
    );
  }

  async discardStages(videoId: string): Promise<void> {
    this.context.guard("cannot discard stages", () =>
      this.context.db.transaction(() => {
        const row = this.context.videoRow(videoId);
        if (!row) return;
        if (row.status === "pending") this.statements.deleteVideo.run(row.key);
        else this.statements.deleteStages.run(row.key);
      }).immediate(),
    );
  }

  async commitVideo(content: VideoContent): Promise<void> {
    const { video } = content;
    this.context.guard(`cannot commit ${video.id}`, () =>
      this.context.db.transaction(() => {
        const existing = this.context.videoRow(video.id);
        // The old version's entities are pruned only after the new graph is written, so an entity both versions name
        // keeps its key, description and aliases instead of being deleted and made again.
        let replaced: TouchedGraph | undefined;
        if (existing) {
          replaced = this.clearContent(existing.key);
          this.statements.deleteStages.run(existing.key);
          this.writers.speakers.keepNamesOfSameSource(existing.key, existing.fingerprint, content.fingerprint);
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
          language: video.language ?? null,
        }) as { key: number };
        this.context.writeSegments(key, content.segments);
        const runs = transcriptRuns(content.clips.map((clip) => clip.transcript), content.segments);
        content.clips.forEach((clip, position) => {
          const run = runs[position];
          this.statements.insertClip.run(
            key, clip.index, clip.startSecond, clip.endSecond, run ? "" : clip.transcript, run?.first ?? null,
            run?.last ?? null, clip.screen, clip.visual,
          );
        });
        this.context.lexical.indexVideo(key, content.clips.map(({ index, transcript, screen, visual }) => ({ clipIndex: index, transcript, screen, visual })));
        if (content.frames.length > 0) this.statements.insertFrames.run(key, encodeFrames(content.frames));
        this.writers.ledger.writeSignals(key, content.signals ?? []);
        this.writers.ledger.writeClipStages(key, content.clipStages ?? []);
        this.writers.vectors.writeVectors(key, video.id, content.vectors ?? []);
        if (content.chapters) this.writers.chapters.writeChapters(key, video.id, content.chapters);
        if (content.graph) {
          this.writers.graphWrites.writeGraph(key, video.id, content.graph, new Set(content.clips.map((clip) => clip.index)), new SegmentText(content.segments));
        }
        if (replaced) this.writers.graphWrites.pruneGraph(replaced);
      }).immediate(),
    );
  }

  async getClips(keys: { videoId: string; clipIndex: number }[]): Promise<ClipDocument[]> {
    return this.context.guardedSnapshot("cannot read clips", () => {
      const reader = this.context.reader();
      return keys.flatMap(({ videoId, clipIndex }) => {
        const row = this.statements.clip.get(videoId, clipIndex) as ClipRow | undefined;
        return row ? [toClipDocument(row, reader.transcript(row.video_key, row))] : [];
      });
    });
  }

  async getSegments(videoId: string, startSecond: number, endSecond: number): Promise<(Segment & { source: SegmentSource })[]> {
    return (await this.getSegmentRanges([{ videoId, startSecond, endSecond }]))[0] ?? [];
  }

  async getSegmentRanges(ranges: SegmentRange[]): Promise<(Segment & { source: SegmentSource })[][]> {
    return this.context.guard("cannot read segments", () => ranges.map((range) => this.segmentsIn(range)));
  }

  private segmentsIn({ videoId, startSecond, endSecond }: SegmentRange): (Segment & { source: SegmentSource })[] {
    const blocks = this.statements.segmentBlocksInWindow.all({ videoId, start: startSecond, end: endSecond }) as [number, number, Buffer][];
    const views = blocks.map(([videoKey, blockIndex, data]) => ({ blockIndex, view: this.context.blockCache.decode(videoKey, blockIndex, data) }));
    return segmentsInWindow(views, startSecond, endSecond);
  }

  async getFrames(videoId: string, startSecond: number, endSecond: number): Promise<Frame[]> {
    return this.context.guard("cannot read frames", () => {
      const packed = this.statements.framesOf.get(videoId) as Buffer | undefined;
      return packed ? framesInWindow(packed, startSecond, endSecond) : [];
    });
  }
}
