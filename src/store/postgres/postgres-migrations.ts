// The steps of the Postgres schema's migrations that need the store's own code (see `MigrationHooks` in
// postgres-schema.ts): posting lists built from schema 1's documents, segments, frames and text packed as schemas 3
// and 4 keep them, and documents indexed again where schemas 9 and 11 changed how their text is indexed.

import type { PoolClient } from "pg";
import type { Segment, SegmentSource } from "../../spec/index.js";
import { chunkTextBlocks, encodeExcerpt, encodeFrames, excerptSource, packChunkText, SegmentBlockView, SegmentText, transcriptRuns } from "../packed-text.js";
import { hasCjk, hasSpaceless } from "../../text/index.js";
import { Fts5Tokens } from "./fts5-tokens.js";
import { buildPostingLists } from "./build-posting-lists.js";
import { LexicalIndex, type LexicalDocument, type LexicalIndexName } from "./lexical-index.js";
import { insertSegmentBlocks } from "./postgres-context.js";
import { entityFields } from "./postgres-graph-writes.js";
import type { MigrationHooks } from "./postgres-schema.js";
import { asFields, clipDocuments, readClipTexts, videoDocuments, wholeVideo, type ClipText } from "./postgres-text-index.js";

/** The code steps of the migrations, as `migratePostgres` calls them. */
export const migrationHooks: MigrationHooks = {
  buildPostingLists: (client) =>
    buildPostingLists(client, {
      clip: async (client, keys) => asFields(clipDocuments(await plainClipTexts(client, "key", keys))),
      video: async (client, keys) => asFields(videoDocuments(await plainClipTexts(client, "video", keys))),
      entity: entityFields,
    }),
  packSegmentsAndFrames,
  packText,
  // Schema 8 indexed text as it is; schemas 9 and 10 as character pairs, Thai, Lao, Khmer and Burmese runs still whole.
  reindexCjk: (client) => reindexWhere(client, { before: { cjkAsRuns: true }, after: { spacelessAsRuns: true } }, hasCjk),
  reindexSpaceless: (client) => reindexWhere(client, { before: { spacelessAsRuns: true }, after: {} }, hasSpaceless),
};

/** What `Fts5Tokens` is told: how a schema wrote text before it was indexed. */
type TokenForm = ConstructorParameters<typeof Fts5Tokens>[0];

/**
 * A migration that changes how some text is indexed (schemas 9 and 11): every clip, whole-video, entity and chapter
 * document with a field `changed` picks is forgotten with the tokens it was indexed with (`before`) and indexed again
 * as `after` writes it; the others, whose tokens do not change, are left alone. A few hundred videos at a time. Each
 * step goes from its own schema's form to the next's, so a library several schemas behind is forgotten exactly at
 * every step.
 */
async function reindexWhere(client: PoolClient, forms: { before: TokenForm; after: TokenForm }, changed: (text: string) => boolean): Promise<void> {
  const before = new Fts5Tokens(forms.before);
  const now = new Fts5Tokens(forms.after);
  try {
    const forget = new LexicalIndex(before);
    const index = new LexicalIndex(now);
    const again = async (kind: LexicalIndexName, documents: LexicalDocument[]): Promise<void> => {
      const picked = documents.filter((document) => document.fields.some(changed));
      if (picked.length === 0) return;
      await forget.remove(client, kind, picked);
      await index.add(client, kind, picked);
    };
    for (let after = 0; ; ) {
      const { rows } = await client.query<{ key: number }>(`SELECT key FROM videos WHERE status = 'ready' AND key > $1 ORDER BY key LIMIT 200`, [after]);
      if (rows.length === 0) break;
      const clips = await readClipTexts(client, "video", rows.map((row) => row.key));
      await again("clip", clipDocuments(clips));
      await again("video", rows.map((row) => wholeVideo(row.key, clips.filter((clip) => clip.videoKey === row.key))));
      after = (rows.at(-1) as { key: number }).key;
    }
    const entityKeys = (await client.query<{ key: number }>(`SELECT key FROM entities`)).rows.map((row) => row.key);
    for (let at = 0; at < entityKeys.length; at += 1000) {
      const keys = entityKeys.slice(at, at + 1000);
      const fields = await entityFields(client, keys);
      await again("entity", keys.map((key) => ({ key, fields: fields.get(key) ?? [] })));
    }
    const { rows: chapters } = await client.query<{ key: number; video_key: number; title: string; summary: string; text: string }>(`SELECT key, video_key, title, summary, text FROM chapters`);
    await again("chapter", chapters.map((row) => ({ key: row.key, videoKey: row.video_key, fields: [row.title, row.summary, row.text] })));
  } finally {
    before.close();
    now.close();
  }
}

/**
 * Schema 3's migration, a few hundred videos at a time: each video's row of segment arrays (schema 2) packed into
 * blocks, and its frames, a row each, into one list.
 */
async function packSegmentsAndFrames(client: PoolClient): Promise<void> {
  for (let after = 0; ; ) {
    const { rows } = await client.query<{ video_key: number; start_seconds: number[]; end_seconds: number[]; texts: string[]; sources: SegmentSource[]; clip_indexes: (number | null)[] }>(
      `SELECT video_key, start_seconds, end_seconds, texts, sources, clip_indexes FROM segments WHERE video_key > $1 ORDER BY video_key LIMIT 500`,
      [after],
    );
    if (rows.length === 0) break;
    await insertSegmentBlocks(
      client,
      rows.map((row) => ({
        videoKey: row.video_key,
        segments: row.texts.map((text, at) => {
          const clipIndex = row.clip_indexes[at];
          return {
            startSecond: row.start_seconds[at] as number,
            endSecond: row.end_seconds[at] as number,
            text,
            source: row.sources[at] as SegmentSource,
            ...(clipIndex === null || clipIndex === undefined ? {} : { clipIndex }),
          };
        }),
      })),
    );
    after = (rows.at(-1) as { video_key: number }).video_key;
  }
  for (let after = 0; ; ) {
    const { rows } = await client.query<{ video_key: number; times: number[]; hashes: (string | null)[] }>(
      `SELECT video_key, array_agg(time_second ORDER BY time_second) AS times, array_agg(hash ORDER BY time_second) AS hashes FROM frames
        WHERE video_key IN (SELECT DISTINCT video_key FROM frames WHERE video_key > $1 ORDER BY video_key LIMIT 500) GROUP BY video_key ORDER BY video_key`,
      [after],
    );
    if (rows.length === 0) break;
    await client.query(`INSERT INTO frame_lists (video_key, frames) SELECT * FROM unnest($1::bigint[], $2::bytea[])`, [
      rows.map((row) => row.video_key),
      rows.map((row) => encodeFrames(row.times.map((timeSecond, at) => ({ timeSecond, ...(row.hashes[at] ? { hash: row.hashes[at] as string } : {}) })))),
    ]);
    after = (rows.at(-1) as { video_key: number }).video_key;
  }
  await client.query(`DROP TABLE segments; DROP TABLE frames`);
}

/**
 * Schema 4's migration, a few hundred videos at a time: each clip transcript that is a run of its video's segments as
 * that run, each chunk text as pieces of the segments' text, each source description as an excerpt of its chunk's text.
 */
async function packText(client: PoolClient): Promise<void> {
  for (let after = 0; ; ) {
    const keys = (await client.query<{ key: number }>(`SELECT key FROM videos WHERE key > $1 ORDER BY key LIMIT 500`, [after])).rows.map((row) => row.key);
    if (keys.length === 0) break;
    after = keys.at(-1) as number;
    const segments = new Map<number, Segment[]>(keys.map((key) => [key, []]));
    const { rows: blocks } = await client.query<{ video_key: number; data: Buffer }>(
      `SELECT video_key, data FROM segment_blocks WHERE video_key = ANY($1::bigint[]) ORDER BY video_key, block_index`,
      [keys],
    );
    for (const block of blocks) segments.get(block.video_key)?.push(...new SegmentBlockView(block.data).segments());

    const clips = new Map<number, ClipText[]>(keys.map((key) => [key, []]));
    for (const clip of await plainClipTexts(client, "video", keys)) clips.get(clip.videoKey)?.push(clip);
    const runs = [...clips].flatMap(([key, own]) =>
      transcriptRuns(own.map((clip) => clip.transcript), segments.get(key) ?? []).flatMap((run, at) => (run ? [{ key: (own[at] as ClipText).key, ...run }] : [])),
    );
    await client.query(
      `UPDATE clips c SET transcript = '', transcript_first = u.first, transcript_last = u.last FROM unnest($1::bigint[], $2::integer[], $3::integer[]) AS u(key, first, last)
        WHERE c.key = u.key`,
      [runs.map((run) => run.key), runs.map((run) => run.first), runs.map((run) => run.last)],
    );

    const { rows: chunks } = await client.query<{ video_key: number; chunk_index: number; start_second: number; end_second: number; text: string }>(
      `SELECT video_key, chunk_index, start_second, end_second, text FROM chunks WHERE video_key = ANY($1::bigint[])`,
      [keys],
    );
    const segmentTexts = new Map([...segments].map(([key, own]) => [key, new SegmentText(own)]));
    const packed = chunks.flatMap((chunk) => {
      const text = segmentTexts.get(chunk.video_key);
      const pieces = text && packChunkText(chunk.text, text, chunk.start_second, chunk.end_second);
      return pieces ? [{ chunk, pieces, blocks: chunkTextBlocks(pieces) }] : [];
    });
    await client.query(
      `UPDATE chunks c SET text = '', packed_text = u.packed, packed_first_block = u.first, packed_last_block = u.last
        FROM unnest($1::bigint[], $2::integer[], $3::bytea[], $4::integer[], $5::integer[]) AS u(video_key, chunk_index, packed, first, last)
        WHERE c.video_key = u.video_key AND c.chunk_index = u.chunk_index`,
      [
        packed.map((entry) => entry.chunk.video_key),
        packed.map((entry) => entry.chunk.chunk_index),
        packed.map((entry) => entry.pieces),
        packed.map((entry) => entry.blocks[0]),
        packed.map((entry) => entry.blocks[1]),
      ],
    );

    const sources = new Map(chunks.map((chunk) => [`${chunk.video_key}:${chunk.chunk_index}`, excerptSource(chunk.text)]));
    for (const [table, owner] of [["entity_sources", "entity_key"], ["relation_sources", "relation_key"]] as const) {
      const { rows } = await client.query<{ owner: number; video_key: number; chunk_index: number; description: string }>(
        `SELECT ${owner} AS owner, video_key, chunk_index, description FROM ${table} WHERE video_key = ANY($1::bigint[])`,
        [keys],
      );
      const excerpts = rows.flatMap((row) => {
        const source = sources.get(`${row.video_key}:${row.chunk_index}`);
        const excerpt = source && encodeExcerpt(row.description, source);
        return excerpt ? [{ row, excerpt }] : [];
      });
      await client.query(
        `UPDATE ${table} s SET description = '', excerpt = u.excerpt
          FROM unnest($1::bigint[], $2::bigint[], $3::integer[], $4::bytea[]) AS u(owner, video_key, chunk_index, excerpt)
          WHERE s.${owner} = u.owner AND s.video_key = u.video_key AND s.chunk_index = u.chunk_index`,
        [excerpts.map((entry) => entry.row.owner), excerpts.map((entry) => entry.row.video_key), excerpts.map((entry) => entry.row.chunk_index), excerpts.map((entry) => entry.excerpt)],
      );
    }
  }
}

/** Schema 1–3's clip text, plain in the clip rows: what the schema 2 migration may index again. */
async function plainClipTexts(client: PoolClient, by: "key" | "video", keys: number[]): Promise<ClipText[]> {
  const { rows } = await client.query<{ key: number; video_key: number; clip_index: number; transcript: string; screen: string; visual: string }>(
    `SELECT key, video_key, clip_index, transcript, screen, visual FROM clips WHERE ${by === "key" ? "key" : "video_key"} = ANY($1::bigint[])
      ORDER BY video_key, clip_index`,
    [keys],
  );
  return rows.map((row) => ({ key: row.key, videoKey: row.video_key, clipIndex: row.clip_index, transcript: row.transcript, screen: row.screen, visual: row.visual }));
}
