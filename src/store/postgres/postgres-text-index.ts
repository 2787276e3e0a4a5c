// The TextIndex part of the Postgres store: BM25 over clips and whole videos (lexical-index.ts computes it), and the
// clip and whole-video documents as indexed, which the catalog and the extraction ledger add and remove as they write.

import type { PoolClient } from "pg";
import { VideoRagError } from "../../spec/index.js";
import type { ClipMatch, LexicalQuery, TextIndex, VideoMatch } from "../../spec/index.js";
import { toClipMatches, toVideoMatches, type ClipMatchRow } from "../shared-matches.js";
import { defaultFieldWeights, hasToken, termWeights, videoDocument } from "../store-checks.js";
import { prepared } from "./prepared.js";
import type { FieldLoader, LexicalDocument } from "./lexical-index.js";
import { SegmentBlocks, transcriptBlocks, withSegmentBlocks, type BlockColumns, type TranscriptColumns } from "./packed-rows.js";
import type { PostgresContext } from "./postgres-context.js";

/** A clip's text, as indexed and as `getClips` gives it. */
export interface ClipText {
  key: number;
  videoKey: number;
  clipIndex: number;
  transcript: string;
  screen: string;
  visual: string;
}

export type ClipTextRow = TranscriptColumns & { key: number; video_key: number; clip_index: number; screen: string; visual: string };
const clipTextColumns = "key, video_key, clip_index, transcript, transcript_first, transcript_last, screen, visual";
const clipTextsByKey = prepared(
  withSegmentBlocks(`SELECT ${clipTextColumns} FROM clips WHERE key = ANY($1::bigint[])`, transcriptBlocks),
);
const clipTextsByVideo = prepared(
  withSegmentBlocks(`SELECT ${clipTextColumns} FROM clips WHERE video_key = ANY($1::bigint[])`, transcriptBlocks),
);
/** Clips' text by clip key or by video key, ordered by video and clip index; transcripts joined from their segments. */
export async function readClipTexts(client: PoolClient, by: "key" | "video", keys: number[]): Promise<ClipText[]> {
  if (keys.length === 0) return [];
  const read = await client.query<ClipTextRow & BlockColumns>({
    ...(by === "key" ? clipTextsByKey : clipTextsByVideo),
    values: [keys],
  });
  const { rows, blocks } = SegmentBlocks.split(read.rows);
  return rows
    .map((row) => ({ key: row.key, videoKey: row.video_key, clipIndex: row.clip_index, transcript: blocks.transcript(row.video_key, row), screen: row.screen, visual: row.visual }))
    .sort((x, y) => x.videoKey - y.videoKey || x.clipIndex - y.clipIndex);
}

/** Clip documents as indexed. */
export const clipDocuments = (clips: ClipText[]): LexicalDocument[] => clips.map((clip) => ({ key: clip.key, videoKey: clip.videoKey, fields: [clip.transcript, clip.screen, clip.visual] }));

/** Whole-video documents as indexed: each video's clips in index order (see `videoDocument`). */
export function videoDocuments(clips: ClipText[]): LexicalDocument[] {
  const byVideo = new Map<number, ClipText[]>();
  for (const clip of clips) {
    const own = byVideo.get(clip.videoKey);
    if (own) own.push(clip);
    else byVideo.set(clip.videoKey, [clip]);
  }
  return [...byVideo].map(([videoKey, own]) => wholeVideo(videoKey, own));
}

/** A video's whole-video document, from its clips (none for a video without clips: it is still a document). */
export const wholeVideo = (videoKey: number, clips: ClipText[]): LexicalDocument => ({
  key: videoKey,
  videoKey,
  fields: videoDocument([...clips].sort((x, y) => x.clipIndex - y.clipIndex)),
});

export const asFields = (documents: LexicalDocument[]): Map<number, string[]> => new Map(documents.map((document) => [document.key, document.fields]));

/** Clip documents' text, for counting phrases. */
const clipFields: FieldLoader = async (client, keys) => asFields(clipDocuments(await readClipTexts(client, "key", keys)));

/** Whole-video documents' text, rebuilt from their clips as they were indexed. */
const videoFields: FieldLoader = async (client, keys) => asFields(videoDocuments(await readClipTexts(client, "video", keys)));

// Reads every search makes (see prepared.ts).
const videoIdsByKey = prepared(`SELECT key, id FROM videos WHERE status = 'ready' AND key = ANY($1::bigint[])`);
const clipsByKey = prepared(
  `SELECT c.key, v.id AS video_id, c.clip_index, c.start_second, c.end_second FROM clips c JOIN videos v ON v.key = c.video_key
    WHERE c.key = ANY($1::bigint[])`,
);

/** The TextIndex over a shared context: clip and whole-video BM25 through the lexical index. */
export class PostgresTextIndex implements TextIndex {
  constructor(private readonly context: PostgresContext) {}

  /** The query's field weights, checked as SQLite's store checks them. */
  private lexicalQuery(query: LexicalQuery): { weights: number[]; limit: number } {
    const field = { ...defaultFieldWeights, ...query.fieldWeights };
    const weights = [field.transcript, field.screen, field.visual];
    if (!weights.every((weight) => Number.isFinite(weight) && weight >= 0) || !(query.limit >= 0) || !Number.isFinite(query.limit)) {
      throw new VideoRagError("ARGUMENT_INVALID", "a search needs a limit ≥ 0 and field weights that are numbers ≥ 0");
    }
    return { weights, limit: Math.floor(query.limit) };
  }

  private async searchIndex(client: PoolClient, index: "clip" | "video", query: LexicalQuery): Promise<[number, number][]> {
    const { weights, limit } = this.lexicalQuery(query);
    const terms = termWeights(query.terms, query.language);
    const phrases = (query.phrases ?? []).filter(hasToken);
    if (limit === 0 || (terms.size === 0 && phrases.length === 0)) return [];
    return this.context.lexical.search(
      client,
      index,
      { terms, phrases, fieldWeights: weights, limit, ...(query.videoIds ? { videoIds: query.videoIds } : {}) },
      index === "clip" ? clipFields : videoFields,
    );
  }

  async searchClips(query: LexicalQuery): Promise<ClipMatch[]> {
    return this.context.read("cannot search clips", async (client) => {
      const matches = await this.searchIndex(client, "clip", query);
      if (matches.length === 0) return [];
      const { rows } = await client.query<ClipMatchRow>({ ...clipsByKey, values: [matches.map(([key]) => key)] });
      return toClipMatches(matches, rows);
    });
  }

  async searchVideos(query: LexicalQuery): Promise<VideoMatch[]> {
    return this.context.read("cannot search videos", async (client) => {
      const matches = await this.searchIndex(client, "video", query);
      if (matches.length === 0) return [];
      const { rows } = await client.query<{ key: number; id: string }>({ ...videoIdsByKey, values: [matches.map(([key]) => key)] });
      return toVideoMatches(matches, rows);
    });
  }

  async termDocumentFrequency(terms: string[]): Promise<{ frequencies: Map<string, number>; documentCount: number }> {
    // A term with no token counts 0 there, as FTS5 has nothing to match it with.
    return this.context.read("cannot count terms", (client) => this.context.lexical.documentFrequency(client, "clip", terms, clipFields));
  }

  /** Nothing to do: a term's posting blocks are merged as they are written, and vacuumed in the background (postgres-context.ts). */
  async compactTextIndexes(): Promise<void> {}
}
