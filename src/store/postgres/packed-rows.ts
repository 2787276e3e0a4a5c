// Text kept once (schema 4, as SQLite's schema 7 keeps it; see ../packed-text.ts): a clip's transcript as a run of its
// video's segments, a chunk's text as pieces of its segments' text, a graph source's description as an excerpt of its
// chunk's text. A read of such rows reads the segment blocks they name in the same statement, so both come from one
// snapshot: read in two statements, a video committed again between them would give its old runs the new blocks.

import type { BlockCache } from "../block-cache.js";
import { chunkTextBlocks, decodeExcerpt, joinTranscript, SegmentBlockView, segmentsPerBlock, unpackChunkText } from "../packed-text.js";

/** The columns `withSegmentBlocks` adds: NULL on the rows asked for, a segment block's on the others. */
export interface BlockColumns {
  block_video_key: number | null;
  block_index: number | null;
  block_data: Buffer | null;
}

/** A clip row's transcript as stored: the text, or '' and the run of segment positions it was joined from. */
export interface TranscriptColumns {
  transcript: string;
  transcript_first: number | null;
  transcript_last: number | null;
}

/** A chunk row's text as stored: the text, or '' and its pieces of the segments' text (and the blocks those name). */
export interface ChunkTextColumns {
  text: string;
  packed_text: Buffer | null;
}

/** A graph source's description as stored: the text, or '' and its excerpt of the chunk's text. */
export interface DescriptionColumns {
  description: string;
  excerpt: Buffer | null;
}

/** SQL for the first and last segment block a clip row's transcript run lies in (NULL when it has none). */
export const transcriptBlocks: [string, string] = [`r.transcript_first / ${segmentsPerBlock}`, `r.transcript_last / ${segmentsPerBlock}`];

/** SQL for the first and last segment block a chunk row's packed text refers to (NULL when it has none). */
export const chunkBlocks: [string, string] = ["r.packed_first_block", "r.packed_last_block"];

/**
 * One statement reading the rows of `rowsSql` (which has a `video_key` column) and, after them, the segment blocks from
 * `first` to `last` of each row's video (SQL over the row `r`, such as `transcriptBlocks`), each block once. A block row
 * has the rows' columns NULL, and its own in `block_video_key`, `block_index` and `block_data`.
 */
export function withSegmentBlocks(rowsSql: string, [first, last]: [string, string]): string {
  // The range joins the blocks' primary key (a join on generated block numbers was planned as a scan of every block).
  return `WITH r AS MATERIALIZED (${rowsSql})
    SELECT r.*, NULL::bigint AS block_video_key, NULL::integer AS block_index, NULL::bytea AS block_data FROM r
    UNION ALL
    SELECT DISTINCT ON (b.video_key, b.block_index) none.*, b.video_key, b.block_index, b.data
      FROM (SELECT DISTINCT r.video_key, ${first} AS first, ${last} AS last FROM r) n
        JOIN segment_blocks b ON b.video_key = n.video_key AND b.block_index BETWEEN n.first AND n.last
        LEFT JOIN r AS none ON false`;
}

/**
 * The segment blocks a read returned beside its rows, decoded once each when first used (or taken from `cache`, where
 * it holds the same bytes decoded).
 */
export class SegmentBlocks {
  private readonly data = new Map<string, Buffer>();
  private readonly views = new Map<string, SegmentBlockView>();
  private readonly chunkTexts = new Map<string, string>();

  private constructor(private readonly cache: BlockCache | undefined) {}

  /** Splits what `withSegmentBlocks` read into the rows, in their order, and the blocks. */
  static split<Row>(read: (Row & BlockColumns)[], cache?: BlockCache): { rows: Row[]; blocks: SegmentBlocks } {
    const blocks = new SegmentBlocks(cache);
    const rows: Row[] = [];
    for (const row of read) {
      if (row.block_data === null) rows.push(row);
      else blocks.data.set(`${row.block_video_key}:${row.block_index}`, row.block_data);
    }
    return { rows, blocks };
  }

  /** A block of a video, decoded; undefined when it was not read (or is not stored). */
  view(videoKey: number, blockIndex: number): SegmentBlockView | undefined {
    const key = `${videoKey}:${blockIndex}`;
    let view = this.views.get(key);
    if (!view) {
      const data = this.data.get(key);
      if (!data) return undefined;
      view = this.cache ? this.cache.decode(videoKey, blockIndex, data) : new SegmentBlockView(data);
      this.views.set(key, view);
    }
    return view;
  }

  /** A clip's transcript, joined from its run of segments where it has one. */
  transcript(videoKey: number, row: TranscriptColumns): string {
    if (row.transcript_first === null || row.transcript_last === null) return row.transcript;
    return joinTranscript((blockIndex) => this.view(videoKey, blockIndex), { first: row.transcript_first, last: row.transcript_last });
  }

  /** A chunk's text, unpacked from the segments' text where it is packed. */
  chunkText(videoKey: number, chunkIndex: number, row: ChunkTextColumns): string {
    const packed = row.packed_text;
    if (packed === null) return row.text;
    let text = this.chunkTexts.get(`${videoKey}:${chunkIndex}`);
    if (text === undefined) {
      const [first, last] = chunkTextBlocks(packed);
      const regions: string[] = [];
      for (let block = first; block <= last; block++) {
        const view = this.view(videoKey, block);
        if (!view) throw new Error(`a chunk's text names segment block ${block}, which was not read`);
        regions.push(view.region);
      }
      text = unpackChunkText(packed, regions);
      this.chunkTexts.set(`${videoKey}:${chunkIndex}`, text);
    }
    return text;
  }

  /** A graph source's description, from its excerpt of its chunk's text where it has one. */
  description(videoKey: number, chunkIndex: number, row: DescriptionColumns & ChunkTextColumns): string {
    if (row.excerpt === null) return row.description;
    return decodeExcerpt(row.excerpt, this.chunkText(videoKey, chunkIndex, row));
  }
}
