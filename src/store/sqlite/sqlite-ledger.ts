// The SQLite store's ExtractionLedger: the light signals and deferred stage states of each clip, the write-back of a
// stage's output (segments, documents, vectors, graph and chapters in one transaction), and the extraction status they sum to.

import type Database from "better-sqlite3";
import { VideoRagError } from "../../spec/index.js";
import type { ClipSignals, ClipStageRecord, ClipStageState, ClipStageStatus, ClipWriteBack, ExtractionLedger, ExtractionStatus, Segment } from "../../spec/index.js";
import { SegmentText, transcriptRuns } from "../packed-text.js";
import { sumExtractionStatus, type StageCountRow, type VideoClipCountRow } from "../shared-extraction-status.js";
import { toClipSignals, toClipStageState, type ClipSignalsRow, type ClipStageRow } from "../shared-ledger-rows.js";
import type { SqliteChapters } from "./sqlite-chapters.js";
import type { SqliteContext } from "./sqlite-context.js";
import { mergeSegments, scatteredFrom } from "./sqlite-fts-merges.js";
import type { SqliteGraphWrites } from "./sqlite-graph-writes.js";
import type { SqliteVectorIndex } from "./sqlite-vectors.js";

function prepareLedgerStatements(db: Database.Database) {
  return {
    setClipSignals: db.prepare(`UPDATE clips SET speech_seconds = ?, speech_regions = ?, screen_changes = ?
        WHERE video_key = ? AND clip_index = ?`),
    clipSignals: db.prepare(`SELECT c.clip_index, c.speech_seconds, c.speech_regions, c.screen_changes, c.asked
        FROM clips c JOIN videos v ON v.key = c.video_key WHERE v.id = ? AND v.status = 'ready' ORDER BY c.clip_index`),
    markAsked: db.prepare(`UPDATE clips SET asked = asked + 1
        WHERE video_key = (SELECT key FROM videos WHERE id = ? AND status = 'ready') AND clip_index = ?`),
    clipKey: db.prepare(`SELECT key FROM clips WHERE video_key = ? AND clip_index = ?`).pluck(),
    setLanguage: db.prepare(`UPDATE videos SET language = ? WHERE key = ?`),
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
  };
}

/** Deferred work per clip and stage (ExtractionLedger), and the ledger's writes of a video's commit. */
export class SqliteLedger implements ExtractionLedger {
  private readonly statements;

  constructor(
    private readonly context: SqliteContext,
    private readonly vectors: SqliteVectorIndex,
    private readonly graphWrites: SqliteGraphWrites,
    private readonly chapters: SqliteChapters,
  ) {
    this.statements = prepareLedgerStatements(context.db);
  }

  /** Records a committed video's clip signals, inside the caller's transaction. */
  writeSignals(videoKey: number, signals: ClipSignals[]): void {
    for (const signal of signals) {
      this.statements.setClipSignals.run(
        signal.speechSeconds ?? null,
        signal.speechRegions ? JSON.stringify(signal.speechRegions) : null,
        signal.screenChanges,
        videoKey,
        signal.clipIndex,
      );
    }
  }

  /** Records stage states of a video's clips, replacing those of the same clip and stage, inside the caller's transaction. */
  writeClipStages(videoKey: number, records: ClipStageRecord[]): void {
    for (const record of records) {
      this.statements.upsertClipStage.run(videoKey, record.clipIndex, record.stage, record.key, record.status, record.error ?? null);
    }
  }

  /** Deletes a video's stage states, inside the caller's transaction. */
  deleteClipStages(videoKey: number): void {
    this.statements.deleteClipStages.run(videoKey);
  }

  async clipSignals(videoId: string, clipIndexes?: number[]): Promise<ClipSignals[]> {
    return this.context.guard("cannot read clip signals", () =>
      toClipSignals(this.statements.clipSignals.all(videoId) as ClipSignalsRow[], clipIndexes),
    );
  }

  async markAsked(clips: { videoId: string; clipIndex: number }[]): Promise<void> {
    this.context.guard("cannot mark clips asked", () =>
      this.context.db.transaction(() => {
        for (const clip of clips) this.statements.markAsked.run(clip.videoId, clip.clipIndex);
      }).immediate(),
    );
  }

  async clipStages(filter: { videoId?: string; statuses?: ClipStageStatus[] } = {}): Promise<ClipStageState[]> {
    return this.context.guard("cannot read clip stages", () =>
      (
        this.statements.clipStages.all({
          videoId: filter.videoId ?? null,
          statuses: filter.statuses ? JSON.stringify(filter.statuses) : null,
        }) as ClipStageRow[]
      ).map(toClipStageState),
    );
  }

  async writeBack(update: ClipWriteBack): Promise<void> {
    const { context } = this;
    context.guard(`cannot write back to ${update.videoId}`, () => {
      context.db.transaction(() => {
        const row = context.readyRow(update.videoId);
        if (!row) throw new VideoRagError("VIDEO_NOT_FOUND", `no video ${update.videoId} to write back to`, { subject: update.videoId });
        const videoKey = row.key;
        const segmentsChange = update.replaces.length > 0 || update.segments.length > 0;
        const documentsChange = update.documents.length > 0;
        // What is derived from the text about to change is read first, as it reads now (see schema version 7): clip
        // transcripts are runs of segment positions, and chunk texts are pieces of the segments' text.
        const before = context.reader();
        if (update.language && !row.language) {
          // The video's first language: what is indexed is forgotten in none and indexed again in it, before anything
          // else changes, so the documents replaced below are forgotten as they are indexed then.
          const clips = before.clipTexts(videoKey);
          context.lexical.forgetVideo(videoKey, clips);
          this.chapters.reindexChapters(videoKey, () => this.statements.setLanguage.run(update.language, videoKey));
          context.lexical.indexVideo(videoKey, clips);
        }
        const clipTexts = segmentsChange || documentsChange ? before.clipTexts(videoKey) : [];
        const chunkTexts = segmentsChange && !update.graph ? this.graphWrites.chunkTexts(videoKey, before) : [];
        let segments: Segment[] | undefined;
        if (segmentsChange) {
          segments = before.segments(videoKey);
          for (const replace of update.replaces) {
            segments = segments.filter((segment) => segment.clipIndex !== replace.clipIndex || !replace.sources.includes(segment.source));
          }
          segments.push(...update.segments);
          context.writeSegments(videoKey, segments);
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
          if (old) context.lexical.forgetClip(videoKey, clipKey, old);
          context.lexical.indexClip(videoKey, clipKey, document);
          indexed.set(document.index, { clipIndex: document.index, transcript: document.transcript, screen: document.screen, visual: document.visual });
        }
        if (documentsChange) {
          context.lexical.forgetWholeVideo(videoKey, clipTexts);
          context.lexical.indexWholeVideo(videoKey, [...texts.values()]);
        }
        for (const clipIndex of update.replaceFrameVectors ?? []) this.vectors.deleteFrameVectors(videoKey, clipIndex);
        this.vectors.writeVectors(videoKey, update.videoId, update.vectors);
        if ((update.replaceFrameVectors ?? []).length > 0) this.vectors.pruneSpaces();
        if (update.graph) {
          // The old sources go before the new graph is written and their entities are pruned after, so an entity both
          // name keeps its key, description and aliases.
          const touched = this.graphWrites.clearGraph(videoKey);
          const clipIndexes = new Set((clipTexts.length > 0 ? clipTexts : context.reader().clipTexts(videoKey)).map((clip) => clip.clipIndex));
          const segmentText = new SegmentText(segments ?? before.segments(videoKey));
          this.graphWrites.writeGraph(videoKey, update.videoId, update.graph, clipIndexes, segmentText);
          this.graphWrites.pruneGraph(touched);
        } else if (chunkTexts.length > 0) {
          // The chunks stay, but the segments they were packed against moved: pack them against the new ones.
          this.graphWrites.repackChunks(chunkTexts, new SegmentText(segments ?? []));
        }
        // Chapters come whole, made again from the video's new text; absent, the stored ones stay.
        if (update.chapters) this.chapters.writeChapters(videoKey, update.videoId, update.chapters);
        this.writeClipStages(videoKey, update.stages);
      }).immediate();
      // Write-backs come one at a time, each leaving a segment in the indexes it wrote to (see sqlite-fts-merges.ts).
      mergeSegments(context.db, scatteredFrom);
    });
  }

  async refreshStageKey(stage: string, key: string): Promise<number> {
    return this.context.guard(`cannot refresh stage ${stage}`, () =>
      this.context.db.transaction(() => this.statements.refreshStageKey.run({ stage, key }).changes).immediate(),
    );
  }

  async extractionStatus(): Promise<ExtractionStatus> {
    return this.context.guard("cannot read the extraction status", () =>
      sumExtractionStatus(this.statements.stageCounts.all() as StageCountRow[], this.statements.clipCounts.all() as VideoClipCountRow[]),
    );
  }
}
