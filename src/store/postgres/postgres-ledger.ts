// The ExtractionLedger part of the Postgres store: each clip's light signals and deferred stage states, and the
// write-back of a stage's output, which changes segments, documents, vectors, graph and chapters in one transaction
// through the other parts' write helpers.

import type { PoolClient } from "pg";
import { VideoRagError } from "../../spec/index.js";
import type { LexicalIndex } from "./lexical-index.js";
import type {
  ClipSignals,
  ClipStageState,
  ClipStageStatus,
  ClipWriteBack,
  ExtractionLedger,
  ExtractionStatus,
  Segment,
  SegmentSource,
  VideoContent,
} from "../../spec/index.js";
import { SegmentText, transcriptRuns } from "../packed-text.js";
import { sumExtractionStatus, type StageCountRow, type VideoClipCountRow } from "../shared-extraction-status.js";
import { toClipSignals, toClipStageState, type ClipSignalsRow, type ClipStageRow } from "../shared-ledger-rows.js";
import { reindexChapters, writeChapters } from "./postgres-chapters.js";
import { readSegments, writeSegments, type PostgresContext } from "./postgres-context.js";
import { clearGraph, packChunksAgain, pruneGraph, readChunkTexts, writeGraph } from "./postgres-graph-writes.js";
import { clipDocuments, readClipTexts, wholeVideo, type ClipText } from "./postgres-text-index.js";
import { pruneSpaces, writeVectors } from "./postgres-vectors.js";

/**
 * Gives a video without a language its first one: its clip, whole-video and chapter documents are forgotten as indexed
 * (in none), the row changes, and they are indexed again in it, before anything else of a write-back changes.
 */
async function setFirstLanguage(lexical: LexicalIndex, client: PoolClient, videoKey: number, language: string): Promise<void> {
  const clips = await readClipTexts(client, "video", [videoKey]);
  await lexical.remove(client, "clip", clipDocuments(clips));
  await lexical.remove(client, "video", [wholeVideo(videoKey, clips)]);
  await reindexChapters(lexical, client, videoKey, async () => {
    await client.query(`UPDATE videos SET language = $2 WHERE key = $1`, [videoKey, language]);
  });
  await lexical.add(client, "clip", clipDocuments(clips));
  await lexical.add(client, "video", [wholeVideo(videoKey, clips)]);
}

/** Records clips' stage states, replacing those recorded before for the same clip and stage. */
export async function upsertClipStages(client: PoolClient, videoKey: number, records: VideoContent["clipStages"] = []): Promise<void> {
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

/** Writes the light signals of a video's clips, as its commit brings them. */
export async function writeSignals(client: PoolClient, videoKey: number, signals: NonNullable<VideoContent["signals"]>): Promise<void> {
  if (signals.length === 0) return;
  await client.query(
    `UPDATE clips c SET speech_seconds = s.speech_seconds, speech_regions = s.speech_regions, screen_changes = s.screen_changes
      FROM unnest($2::integer[], $3::float8[], $4::text[], $5::integer[]) AS s(clip_index, speech_seconds, speech_regions, screen_changes)
      WHERE c.video_key = $1 AND c.clip_index = s.clip_index`,
    [
      videoKey,
      signals.map((signal) => signal.clipIndex),
      signals.map((signal) => signal.speechSeconds ?? null),
      signals.map((signal) => (signal.speechRegions ? JSON.stringify(signal.speechRegions) : null)),
      signals.map((signal) => signal.screenChanges),
    ],
  );
}

/** The ExtractionLedger over a shared context. */
export class PostgresLedger implements ExtractionLedger {
  constructor(private readonly context: PostgresContext) {}

  async clipSignals(videoId: string, clipIndexes?: number[]): Promise<ClipSignals[]> {
    return this.context.read("cannot read clip signals", async (client) => {
      const { rows } = await client.query<ClipSignalsRow>(
        `SELECT c.clip_index, c.speech_seconds, c.speech_regions, c.screen_changes, c.asked
          FROM clips c JOIN videos v ON v.key = c.video_key WHERE v.id = $1 AND v.status = 'ready' ORDER BY c.clip_index`,
        [videoId],
      );
      return toClipSignals(rows, clipIndexes);
    });
  }

  async markAsked(clips: { videoId: string; clipIndex: number }[]): Promise<void> {
    if (clips.length === 0) return;
    await this.context.write("cannot mark clips asked", async (client) => {
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
    return this.context.read("cannot read clip stages", async (client) => {
      const { rows } = await client.query<ClipStageRow>(
        `SELECT v.id AS video_id, s.clip_index, s.stage, s.key, s.status, s.error
          FROM clip_stages s JOIN videos v ON v.key = s.video_key
          WHERE v.status = 'ready' AND ($1::text IS NULL OR v.id = $1) AND ($2::text[] IS NULL OR s.status = ANY($2::text[]))
          ORDER BY v.key, s.clip_index, s.stage COLLATE "C"`,
        [filter.videoId ?? null, filter.statuses ?? null],
      );
      return rows.map(toClipStageState);
    });
  }

  async writeBack(update: ClipWriteBack): Promise<void> {
    await this.context.write(`cannot write back to ${update.videoId}`, async (client) => {
      const row = (
        await client.query<{ key: number; language: string | null }>(`SELECT key, language FROM videos WHERE id = $1 AND status = 'ready' FOR UPDATE`, [update.videoId])
      ).rows[0];
      if (!row) throw new VideoRagError("VIDEO_NOT_FOUND", `no video ${update.videoId} to write back to`, { subject: update.videoId });
      const videoKey = row.key;
      if (update.language && !row.language) await setFirstLanguage(this.context.lexical, client, videoKey, update.language);
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
        const kept = (await readSegments(client, videoKey)).filter(
          (segment) => !(segment.clipIndex !== undefined && replaced.get(segment.clipIndex)?.has(segment.source as SegmentSource)),
        );
        segments = [...kept, ...update.segments];
        await writeSegments(client, videoKey, segments);
      }
      if (segmentsChange || documents.length > 0) {
        const texts = new Map(before.map((clip) => [clip.clipIndex, clip]));
        const changed = documents.map((document) => {
          const old = texts.get(document.index);
          if (!old) throw new VideoRagError("ARGUMENT_INVALID", `${update.videoId} has no clip ${document.index}`, { subject: update.videoId });
          return { ...old, transcript: document.transcript, screen: document.screen, visual: document.visual };
        });
        if (changed.length > 0) {
          await this.context.lexical.remove(client, "clip", clipDocuments(changed.map((clip) => texts.get(clip.clipIndex) as ClipText)));
          await this.context.lexical.remove(client, "video", [wholeVideo(videoKey, before)]);
        }
        for (const clip of changed) texts.set(clip.clipIndex, clip);
        // Positions move when segments go, so every clip's run is found again; clips that did not change keep their text.
        const clips = [...texts.values()];
        const runs = transcriptRuns(clips.map((clip) => clip.transcript), segments ?? (await readSegments(client, videoKey)));
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
          await this.context.lexical.add(client, "clip", clipDocuments(changed));
          await this.context.lexical.add(client, "video", [wholeVideo(videoKey, clips)]);
        }
      }
      const replaceFrames = update.replaceFrameVectors ?? [];
      if (replaceFrames.length > 0) {
        await client.query(`DELETE FROM vectors WHERE video_key = $1 AND clip_index = ANY($2::integer[]) AND owner = 'frame'`, [videoKey, replaceFrames]);
      }
      await writeVectors(client, videoKey, update.videoId, update.vectors);
      if (replaceFrames.length > 0) await pruneSpaces(client);
      if (update.graph) {
        // The old sources go before the new graph is written and their entities are pruned after, so an entity both
        // name keeps its key, description and aliases.
        const touched = await clearGraph(client, videoKey);
        const { rows: indexes } = await client.query<{ clip_index: number }>(`SELECT clip_index FROM clips WHERE video_key = $1`, [videoKey]);
        const segmentText = new SegmentText(segments ?? (await readSegments(client, videoKey)));
        await writeGraph(this.context.lexical, client, videoKey, update.videoId, update.graph, new Set(indexes.map((clip) => clip.clip_index)), segmentText);
        await pruneGraph(this.context.lexical, client, touched);
      } else if (chunks.length > 0) {
        // The chunks stay, but the segments they were packed against moved: they are packed against the new ones.
        await packChunksAgain(client, videoKey, chunks, new SegmentText(segments ?? []));
      }
      // Chapters come whole, made again from the video's new text; absent, the stored ones stay.
      if (update.chapters) await writeChapters(this.context.lexical, client, videoKey, update.videoId, update.chapters);
      await upsertClipStages(client, videoKey, update.stages);
    });
  }

  async refreshStageKey(stage: string, key: string): Promise<number> {
    return this.context.write(`cannot refresh stage ${stage}`, async (client) => {
      const { rowCount } = await client.query(`UPDATE clip_stages SET key = $2, status = 'pending', error = NULL WHERE stage = $1 AND key <> $2`, [stage, key]);
      return rowCount ?? 0;
    });
  }

  async extractionStatus(): Promise<ExtractionStatus> {
    return this.context.read("cannot read the extraction status", async (client) => {
      const counts = await client.query<StageCountRow>(
        `SELECT s.stage, s.status, count(*)::integer AS count FROM clip_stages s JOIN videos v ON v.key = s.video_key
          WHERE v.status = 'ready' GROUP BY s.stage, s.status`,
      );
      const { rows } = await client.query<VideoClipCountRow>(
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
      return sumExtractionStatus(counts.rows, rows);
    });
  }
}
