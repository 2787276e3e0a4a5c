// Reading the SQLite store's packed text (see ../packed-text.ts and schema version 7): clip transcripts kept as runs of
// the video's segments, chunk texts and graph descriptions kept as pieces of the segments' text, all in segment blocks.

import type Database from "better-sqlite3";
import type { Segment } from "../../spec/index.js";
import type { BlockCache } from "../block-cache.js";
import {
  chunkTextBlocks,
  decodeExcerpt,
  joinTranscript,
  segmentsPerBlock,
  unpackChunkText,
  type SegmentBlockView,
  type TranscriptRun,
} from "../packed-text.js";

/** A clip's text columns as stored: `transcript` is '' where a run of the video's segments stands for it. */
export interface ClipTextRow {
  transcript: string;
  transcript_first: number | null;
  transcript_last: number | null;
  screen: string;
  visual: string;
}

/** A clip's text as the store returns it. */
export interface ClipText {
  clipIndex: number;
  transcript: string;
  screen: string;
  visual: string;
}

/** A chunk's text columns as stored: `text` is '' where `packed_text` holds it as pieces of its segments' text. */
export interface ChunkTextRow {
  text: string;
  packed_text: Buffer | null;
}

/** A graph source's description columns as stored: `description` is '' where `excerpt` holds it as pieces of the chunk's text. */
export interface DescriptionRow {
  video_key: number;
  chunk_index: number;
  description: string;
  excerpt: Buffer | null;
}

/** The statements a PackedReader reads with. */
export type PackedStatements = Record<"blocks" | "clipTexts" | "chunkText", Database.Statement<unknown[]>>;

export function preparePackedStatements(db: Database.Database): PackedStatements {
  return {
    blocks: db.prepare(`SELECT block_index, segments FROM segment_blocks WHERE video_key = ? AND block_index BETWEEN ? AND ?
      ORDER BY block_index`).raw(),
    clipTexts: db.prepare(`SELECT clip_index, transcript, transcript_first, transcript_last, screen, visual FROM clips
      WHERE video_key = ? AND clip_index BETWEEN ? AND ? ORDER BY clip_index`),
    chunkText: db.prepare(`SELECT text, packed_text FROM chunks WHERE video_key = ? AND chunk_index = ?`),
  };
}

/** Past any clip index or block index. */
const lastIndex = Number.MAX_SAFE_INTEGER;

/**
 * Reads packed text (see ../packed-text.ts and schema version 7) for one call: each block of segments and each chunk is
 * read once however many rows need it. Made anew for each call, so nothing read outlives a write.
 */
export class PackedReader {
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
  description(row: DescriptionRow): string {
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
