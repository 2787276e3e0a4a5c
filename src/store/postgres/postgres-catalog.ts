// The VideoCatalog part of the Postgres store: videos and an ingest's staged results, the commit that makes a video
// visible and the removal that takes it out (both writing the other parts' rows through their write helpers, in one
// transaction), and the reads of its clips, segments and frames.

import type { PoolClient } from "pg";
import { VideoRagError } from "../../spec/index.js";
import type { ClipDocument, Frame, Segment, SegmentRange, SegmentSource, StageRecord, Video, VideoCatalog, VideoContent } from "../../spec/index.js";
import { toClipDocument, toVideo, type ClipDocumentRow, type VideoRow } from "../shared-catalog-rows.js";
import { blockMayHold, encodeFrames, framesInWindow, SegmentBlockView, segmentsInWindow, SegmentText, transcriptRuns } from "../packed-text.js";
import type { LexicalIndex } from "./lexical-index.js";
import { prepared } from "./prepared.js";
import { SegmentBlocks, transcriptBlocks, withSegmentBlocks, type BlockColumns } from "./packed-rows.js";
import { deleteChapters, writeChapters } from "./postgres-chapters.js";
import { writeSegments, type PostgresContext } from "./postgres-context.js";
import { clearGraph, pruneGraph, writeGraph, type TouchedGraph } from "./postgres-graph-writes.js";
import { upsertClipStages, writeSignals } from "./postgres-ledger.js";
import { keepNamesOfSameSource } from "./postgres-speakers.js";
import { clipDocuments, readClipTexts, wholeVideo, type ClipText, type ClipTextRow } from "./postgres-text-index.js";
import { pruneSpaces, writeVectors } from "./postgres-vectors.js";

const videoColumns = `key, id, status, path, title, kind, duration_seconds, size_bytes, width, height, has_audio, has_video,
  times_estimated, ingested_at, clip_count, fingerprint, language`;
// Reads every search makes (see prepared.ts).
const readyVideos = prepared(`SELECT ${videoColumns} FROM videos WHERE id = ANY($1::text[]) AND status = 'ready'`);
/** The segment blocks that may hold a segment of one of the ranges (see `segmentsInWindow`). */
const segmentBlocksOfRanges = prepared(
  `SELECT v.id AS video_id, b.video_key, b.block_index, b.min_start_second, b.max_start_second, b.max_end_second, b.data
    FROM videos v JOIN segment_blocks b ON b.video_key = v.key
    WHERE v.status = 'ready' AND v.id = ANY($1::text[])
      AND EXISTS (SELECT 1 FROM unnest($1::text[], $2::float8[], $3::float8[]) AS r(video_id, start_second, end_second)
        WHERE r.video_id = v.id AND b.min_start_second < r.end_second AND (b.max_end_second > r.start_second OR b.max_start_second >= r.start_second))`,
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

/**
 * Removes what a video contributed except its row; returns what its graph sources named, for `pruneGraph`. Its BM25
 * documents are forgotten from its text as stored; a video committed before (`ready`) has a whole-video document even
 * with no clip.
 */
async function clearContent(lexical: LexicalIndex, client: PoolClient, videoKey: number, ready: boolean): Promise<TouchedGraph> {
  const touched = await clearGraph(client, videoKey);
  const clips = await readClipTexts(client, "video", [videoKey]);
  await lexical.remove(client, "clip", clipDocuments(clips));
  if (ready) await lexical.remove(client, "video", [wholeVideo(videoKey, clips)]);
  for (const table of ["clips", "segment_blocks", "segment_speakers", "frame_lists", "clip_stages"]) {
    await client.query(`DELETE FROM ${table} WHERE video_key = $1`, [videoKey]);
  }
  await client.query(`DELETE FROM vectors WHERE video_key = $1`, [videoKey]);
  await pruneSpaces(client);
  await deleteChapters(lexical, client, videoKey);
  return touched;
}

/**
 * Writes clip rows, each transcript as its run of the video's segments where one gives it back (see packed-text.ts),
 * and their BM25 documents; returns the clips' text as indexed.
 */
async function insertClips(lexical: LexicalIndex, client: PoolClient, videoKey: number, clips: ClipDocument[], segments: Segment[]): Promise<ClipText[]> {
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
  await lexical.add(client, "clip", clipDocuments(texts));
  return texts;
}

/** The VideoCatalog over a shared context. */
export class PostgresCatalog implements VideoCatalog {
  /** The last list read, with the list's version then (schema 12). */
  private listed: { version: string; videos: readonly Video[] } | undefined;

  constructor(private readonly context: PostgresContext) {}

  /**
   * The ready videos, newest first. Every question reads this list (8,648 rows in the how-to library), so the last one
   * is kept while the list's version stays where it was: a committed change to any video row has moved it. The version
   * and the rows of a new list are read in one statement, one snapshot, so the version kept is the one those rows had.
   */
  async listVideos(): Promise<Video[]> {
    return this.context.read("cannot list videos", async (client) => {
      const { rows: versions } = await client.query<{ version: string }>(`SELECT version FROM video_list_version`);
      if (this.listed === undefined || this.listed.version !== versions[0]?.version) {
        const { rows } = await client.query<VideoRow & { list_version: string }>(
          `SELECT (SELECT version FROM video_list_version) AS list_version, ${videoColumns} FROM videos
            WHERE status = 'ready' ORDER BY ingested_at DESC, key DESC`,
        );
        const videos = rows.map((row) => Object.freeze(toVideo(row)));
        // No row, no version read with it: an empty list is read again next time.
        if (rows[0] === undefined) return videos;
        this.listed = { version: rows[0].list_version, videos };
      }
      return [...this.listed.videos];
    });
  }

  async getVideo(id: string): Promise<Video | undefined> {
    return (await this.getVideos([id]))[0];
  }

  async getVideos(ids: string[]): Promise<(Video | undefined)[]> {
    if (ids.length === 0) return [];
    return this.context.read("cannot read videos", async (client) => {
      const { rows } = await client.query<VideoRow>({ ...readyVideos, values: [ids] });
      const byId = new Map(rows.map((row) => [row.id, toVideo(row)]));
      return ids.map((id) => byId.get(id));
    });
  }

  async getFingerprint(id: string): Promise<string | undefined> {
    return this.context.read("cannot read a fingerprint", async (client) => {
      const row = (await client.query<{ fingerprint: string | null }>(`SELECT fingerprint FROM videos WHERE id = $1 AND status = 'ready'`, [id])).rows[0];
      return row?.fingerprint ?? undefined;
    });
  }

  async removeVideo(id: string): Promise<boolean> {
    return this.context.write(`cannot remove ${id}`, async (client) => {
      const row = (await client.query<{ key: number; status: string }>(`SELECT key, status FROM videos WHERE id = $1 FOR UPDATE`, [id])).rows[0];
      if (!row) return false;
      await pruneGraph(this.context.lexical, client, await clearContent(this.context.lexical, client, row.key, row.status === "ready"));
      await client.query(`DELETE FROM videos WHERE key = $1`, [row.key]);
      return row.status === "ready";
    });
  }

  async loadStages(videoId: string): Promise<StageRecord[]> {
    return this.context.read("cannot load stages", async (client) =>
      (
        await client.query<{ stage: string; key: string; output: string }>(
          `SELECT s.stage, s.key, s.output FROM stages s JOIN videos v ON v.key = s.video_key WHERE v.id = $1 ORDER BY s.position`,
          [videoId],
        )
      ).rows.map((row) => ({ stage: row.stage, key: row.key, output: JSON.parse(row.output) as unknown })),
    );
  }

  async saveStage(videoId: string, record: StageRecord): Promise<void> {
    await this.context.write(`cannot save stage ${record.stage}`, async (client) => {
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
    await this.context.write("cannot discard stages", async (client) => {
      const row = (await client.query<{ key: number; status: string }>(`SELECT key, status FROM videos WHERE id = $1 FOR UPDATE`, [videoId])).rows[0];
      if (!row) return;
      if (row.status === "pending") await client.query(`DELETE FROM videos WHERE key = $1`, [row.key]);
      else await client.query(`DELETE FROM stages WHERE video_key = $1`, [row.key]);
    });
  }

  async commitVideo(content: VideoContent): Promise<void> {
    const { video } = content;
    await this.context.write(`cannot commit ${video.id}`, async (client) => {
      // The row is locked first, so two workers committing the same video take turns instead of interleaving.
      await client.query(`INSERT INTO videos (id, status) VALUES ($1, 'pending') ON CONFLICT (id) DO NOTHING`, [video.id]);
      const existing = (
        await client.query<{ key: number; status: string; fingerprint: string | null }>(`SELECT key, status, fingerprint FROM videos WHERE id = $1 FOR UPDATE`, [video.id])
      ).rows[0];
      if (!existing) throw new VideoRagError("STORE_FAILED", `the row of ${video.id} vanished while committing`);
      const key = existing.key;
      const replaced = await clearContent(this.context.lexical, client, key, existing.status === "ready");
      await client.query(`DELETE FROM stages WHERE video_key = $1`, [key]);
      await keepNamesOfSameSource(client, key, existing.fingerprint, content.fingerprint);
      await client.query(
        `UPDATE videos SET status = 'ready', path = $2, title = $3, kind = $4, duration_seconds = $5, size_bytes = $6, width = $7,
          height = $8, has_audio = $9, has_video = $10, times_estimated = $11, ingested_at = $12, clip_count = $13, fingerprint = $14,
          language = $15
          WHERE key = $1`,
        [
          key, video.path, video.title, video.kind, video.durationSeconds, video.sizeBytes, video.width ?? null, video.height ?? null,
          video.hasAudio, video.hasVideo, video.timesEstimated, new Date().toISOString(), content.clips.length, content.fingerprint,
          video.language ?? null,
        ],
      );
      await writeSegments(client, key, content.segments);
      const clips = await insertClips(this.context.lexical, client, key, content.clips, content.segments);
      await this.context.lexical.add(client, "video", [wholeVideo(key, clips)]);
      if (content.frames.length > 0) await client.query(`INSERT INTO frame_lists (video_key, frames) VALUES ($1, $2)`, [key, encodeFrames(content.frames)]);
      await writeSignals(client, key, content.signals ?? []);
      await upsertClipStages(client, key, content.clipStages);
      await writeVectors(client, key, video.id, content.vectors ?? []);
      if (content.chapters) await writeChapters(this.context.lexical, client, key, video.id, content.chapters);
      if (content.graph) {
        await writeGraph(this.context.lexical, client, key, video.id, content.graph, new Set(content.clips.map((clip) => clip.index)), new SegmentText(content.segments));
      }
      await pruneGraph(this.context.lexical, client, replaced);
    });
  }

  async getClips(keys: { videoId: string; clipIndex: number }[]): Promise<ClipDocument[]> {
    if (keys.length === 0) return [];
    return this.context.read("cannot read clips", async (client) => {
      const read = await client.query<ClipTextRow & ClipDocumentRow & { position: number } & BlockColumns>({
        ...clipsAt,
        values: [keys.map((key) => key.videoId), keys.map((key) => key.clipIndex)],
      });
      const { rows, blocks } = SegmentBlocks.split(read.rows, this.context.blockCache);
      return rows
        .sort((x, y) => x.position - y.position)
        .map((row) => toClipDocument(row, blocks.transcript(row.video_key, row)));
    });
  }

  async getSegments(videoId: string, startSecond: number, endSecond: number): Promise<(Segment & { source: SegmentSource })[]> {
    return (await this.getSegmentRanges([{ videoId, startSecond, endSecond }]))[0] ?? [];
  }

  async getSegmentRanges(ranges: SegmentRange[]): Promise<(Segment & { source: SegmentSource })[][]> {
    if (ranges.length === 0) return [];
    return this.context.read("cannot read segments", async (client) => {
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
        return segmentsInWindow(holding.map((block) => ({ blockIndex: block.blockIndex, view: (block.view ??= this.context.blockCache.decode(block.videoKey, block.blockIndex, block.data)) })), startSecond, endSecond);
      });
    });
  }

  async getFrames(videoId: string, startSecond: number, endSecond: number): Promise<Frame[]> {
    return this.context.read("cannot read frames", async (client) => {
      const { rows } = await client.query<{ frames: Buffer }>(
        `SELECT f.frames FROM frame_lists f JOIN videos v ON v.key = f.video_key WHERE v.id = $1 AND v.status = 'ready'`,
        [videoId],
      );
      const packed = rows[0]?.frames;
      return packed ? framesInWindow(packed, startSecond, endSecond) : [];
    });
  }
}
