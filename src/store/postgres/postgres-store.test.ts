// The Postgres store: the shared conformance suite against a throwaway PostgreSQL 15 + pgvector cluster, plus what only
// a server shows: reopening, schema versions, a server that goes away.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { seededRandom } from "../../../scripts/seeded-random.js";
import { VideoRagError, type ClipDocument, type LexicalQuery, type Segment, type Store, type VideoContent } from "../../spec/index.js";
import { needsPostgres, startPostgres, type TestPostgres } from "../../test-support/postgres.js";
import { chunkTextBlocks, decodeExcerpt, decodeFrames, joinTranscript, SegmentBlockView, segmentsPerBlock, unpackChunkText } from "../packed-text.js";
import { openSqliteStore } from "../sqlite/sqlite-store.js";
import { chapterQueries, chapterVideos, checkKeptVideoList, churnChapters, runStoreConformance, sampleVideo, withGraph } from "../conformance/index.js";
import { blockPostings } from "./lexical-index.js";
import { decodePostings, emptyPostings } from "./postings.js";
import { postgresSchemaVersion } from "./postgres-schema.js";
import { openPostgresStore } from "./postgres-store.js";

if (needsPostgres) console.log(`# skipping the Postgres store tests: ${needsPostgres}`);

/**
 * Turns a closed library into one of an older schema: without speakers' voices and languages (schema 6); without speaker labels and names (schema 5; its blocks hold no
 * speakers); without chapters (schema 4); its text plain again and each document's term list back (schema 3); for
 * schema 2 and before, its segment blocks back into a row of arrays per video and its frame lists into a row per frame;
 * then `sql` for what the schema before that lacked.
 */
async function asOlderSchema(url: string, version: number, sql = ""): Promise<void> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    await client.query(`DROP TABLE speaker_voices; ALTER TABLE videos DROP COLUMN language`);
    if (version < 6) await client.query(`DROP TABLE segment_speakers; DROP TABLE speaker_names`);
    if (version < 5) {
      await client.query(`DROP TABLE chapters;
        DELETE FROM lexical_postings WHERE index = 3; DELETE FROM lexical_terms WHERE index = 3; DELETE FROM lexical_totals WHERE index = 3`);
    }
    if (version < 4) await asSchema3(client);
    if (version < 3) await asSchema2(client);
    await client.query(`${sql}; UPDATE videorag_schema SET version = ${version}`);
  } finally {
    await client.end();
  }
}

async function asSchema3(client: pg.Client): Promise<void> {
  const views = new Map<string, SegmentBlockView>();
  for (const row of (await client.query<{ video_key: string; block_index: number; data: Buffer }>("SELECT video_key, block_index, data FROM segment_blocks")).rows) {
    views.set(`${row.video_key}:${row.block_index}`, new SegmentBlockView(row.data));
  }
  const clips = await client.query<{ key: string; video_key: string; first: number; last: number }>(
    "SELECT key, video_key, transcript_first AS first, transcript_last AS last FROM clips WHERE transcript_first IS NOT NULL",
  );
  for (const clip of clips.rows) {
    const transcript = joinTranscript((block) => views.get(`${clip.video_key}:${block}`), { first: clip.first, last: clip.last });
    await client.query("UPDATE clips SET transcript = $1 WHERE key = $2", [transcript, clip.key]);
  }
  const chunkTexts = new Map<string, string>();
  for (const chunk of (await client.query<{ video_key: string; chunk_index: number; text: string; packed_text: Buffer | null }>("SELECT video_key, chunk_index, text, packed_text FROM chunks")).rows) {
    let text = chunk.text;
    if (chunk.packed_text) {
      const [first, last] = chunkTextBlocks(chunk.packed_text);
      const regions = Array.from({ length: last - first + 1 }, (_, at) => views.get(`${chunk.video_key}:${first + at}`)?.region ?? "");
      text = unpackChunkText(chunk.packed_text, regions);
      await client.query("UPDATE chunks SET text = $1 WHERE video_key = $2 AND chunk_index = $3", [text, chunk.video_key, chunk.chunk_index]);
    }
    chunkTexts.set(`${chunk.video_key}:${chunk.chunk_index}`, text);
  }
  for (const table of ["entity_sources", "relation_sources"]) {
    const { rows } = await client.query<{ id: string; video_key: string; chunk_index: number; excerpt: Buffer }>(`SELECT ctid::text AS id, video_key, chunk_index, excerpt FROM ${table} WHERE excerpt IS NOT NULL`);
    for (const row of rows) {
      const description = decodeExcerpt(row.excerpt, chunkTexts.get(`${row.video_key}:${row.chunk_index}`) ?? "");
      await client.query(`UPDATE ${table} SET description = $1 WHERE ctid = $2::tid`, [description, row.id]);
    }
  }
  // Each document's distinct term ids with their counts per field packed 10 bits each, from the posting lists.
  const documents = new Map<string, { index: number; key: number; videoKey: number; terms: number[]; counts: number[]; length: number }>();
  for (const block of (await client.query<{ index: number; term: number; first_key: string; postings: number; data: Buffer }>("SELECT index, term, first_key, postings, data FROM lexical_postings ORDER BY index, term, first_key")).rows) {
    const list = emptyPostings(block.postings);
    decodePostings(block.data, Number(block.first_key), block.postings, list);
    for (let at = 0; at < list.size; at++) {
      const key = list.keys[at] as number;
      const document = documents.get(`${block.index}:${key}`) ?? { index: block.index, key, videoKey: list.videoKeys[at] as number, terms: [], counts: [], length: list.lengths[at] as number };
      document.terms.push(block.term);
      document.counts.push([0, 1, 2].reduce((packed, field) => packed | (Math.min(list.counts[at * 3 + field] as number, 1023) << (10 * field)), 0));
      documents.set(`${block.index}:${key}`, document);
    }
  }
  await client.query(`ALTER TABLE clips DROP COLUMN transcript_first, DROP COLUMN transcript_last;
    ALTER TABLE chunks DROP COLUMN packed_text, DROP COLUMN packed_first_block, DROP COLUMN packed_last_block;
    ALTER TABLE entity_sources DROP COLUMN excerpt; ALTER TABLE relation_sources DROP COLUMN excerpt;
    CREATE TABLE lexical_docs (index smallint NOT NULL, key bigint NOT NULL, video_key bigint, terms integer[] NOT NULL, counts integer[] NOT NULL,
      length integer NOT NULL, PRIMARY KEY (index, key))`);
  for (const document of documents.values()) {
    await client.query("INSERT INTO lexical_docs VALUES ($1, $2, $3, $4, $5, $6)", [
      document.index, document.key, document.index === 2 ? null : document.videoKey, document.terms, document.counts, document.length,
    ]);
  }
}

async function asSchema2(client: pg.Client): Promise<void> {
  const { rows } = await client.query<{ video_key: string; data: Buffer }>("SELECT video_key, data FROM segment_blocks ORDER BY video_key, block_index");
  const frameLists = (await client.query<{ video_key: string; frames: Buffer }>("SELECT video_key, frames FROM frame_lists")).rows;
  await client.query(`DROP TABLE segment_blocks; DROP TABLE frame_lists;
    CREATE TABLE frames (video_key bigint NOT NULL REFERENCES videos (key) ON DELETE CASCADE, time_second double precision NOT NULL, hash text);
    CREATE TABLE segments (
      video_key bigint PRIMARY KEY REFERENCES videos (key) ON DELETE CASCADE,
      start_seconds double precision[] NOT NULL,
      end_seconds double precision[] NOT NULL,
      texts text[] NOT NULL,
      sources text[] NOT NULL,
      clip_indexes integer[] NOT NULL
    )`);
  const videos = new Map<string, Segment[]>();
  for (const row of rows) videos.set(row.video_key, [...(videos.get(row.video_key) ?? []), ...new SegmentBlockView(row.data).segments()]);
  for (const [videoKey, segments] of videos) {
    await client.query("INSERT INTO segments VALUES ($1, $2, $3, $4, $5, $6)", [
      videoKey,
      segments.map((segment) => segment.startSecond),
      segments.map((segment) => segment.endSecond),
      segments.map((segment) => segment.text),
      segments.map((segment) => segment.source),
      segments.map((segment) => segment.clipIndex ?? null),
    ]);
  }
  for (const list of frameLists) {
    const frames = decodeFrames(list.frames);
    await client.query("INSERT INTO frames SELECT $1, * FROM unnest($2::float8[], $3::text[])", [list.video_key, frames.map((frame) => frame.timeSecond), frames.map((frame) => frame.hash ?? null)]);
  }
}

describe("Postgres store", { skip: needsPostgres }, () => {
  let server: TestPostgres;
  before(async () => {
    server = await startPostgres();
  });
  after(() => server?.stop());

  runStoreConformance("postgres", async () => openPostgresStore(await server.createDatabase()));

  test("pruning common terms (MaxScore) gives the exact top k: the same as ranking every match", async () => {
    const url = await server.createDatabase();
    // These lists are short enough to come at once with the terms (scored whole); the other store always prunes.
    const store = await openPostgresStore(url, { readPostingsAtOnce: 0 });
    const whole = await openPostgresStore(url);
    try {
      // "make" and "water" are in most clips, "chain" in some, "derailleur" in few: the pruned search must agree.
      const words = ["chain", "derailleur", "brake", "pedal", "wheel", "oil", "rust", "gear"];
      for (let video = 0; video < 40; video++) {
        const texts = Array.from({ length: 6 }, (_, clip) => {
          const own = words.filter((_, at) => (video * 7 + clip * 3 + at * 5) % (at + 2) === 0);
          return `make the water ${own.join(" ")} ${"make ".repeat((video + clip) % 4)}${clip % 2 ? "water" : ""}`;
        });
        await store.commitVideo(sampleVideo(`v${video}`, texts));
      }
      const queries = [["make", "water", "chain"], ["make", "derailleur", "water", "gear"], ["water", "make", "rust", "oil", "pedal"], ["make", "water", "brake", "wheel", "gear", "chain"]];
      for (const words of queries) {
        const terms = words.map((text, at) => ({ text, weight: at === 0 ? 2 : 1 }));
        for (const [search, ranked] of [
          [store.searchClips.bind(store), whole.searchClips.bind(whole)],
          [store.searchVideos.bind(store), whole.searchVideos.bind(whole)],
        ] as const) {
          const everything = await ranked({ terms, limit: 10_000 });
          assert.ok(everything.length > 10, words.join(" "));
          assert.deepEqual(await search({ terms, limit: 10_000 }), everything, words.join(" "));
          for (const limit of [1, 3, 10]) {
            assert.deepEqual(await search({ terms, limit }), everything.slice(0, limit), `${words.join(" ")} limit ${limit}`);
            assert.deepEqual(await ranked({ terms, limit }), everything.slice(0, limit), `${words.join(" ")} limit ${limit}, at once`);
          }
        }
      }
    } finally {
      await Promise.all([store.close(), whole.close()]);
    }
  });

  test("posting lists stay exact through merges, removals, re-ingests and write-backs: every score equals SQLite's", async () => {
    const folder = mkdtempSync(join(tmpdir(), "videorag-pg-postings-"));
    const sqlite = openSqliteStore(join(folder, "library.sqlite"));
    const url = await server.createDatabase();
    // Lists read as pruning reads them (the conformance suite's searches come at once).
    const postgres = await openPostgresStore(url, { readPostingsAtOnce: 0 });
    try {
      // Words of very different frequencies, so lists of every size tier are written, merged and cut.
      const words = ["make", "water", "chain", "derailleur", "brake", "pedal", "wheel", "oil", "rust", "gear", "bolt", "spoke", "tyre", "saddle"];
      const visualWords = ["person", "bicycle", "car", "bottle"];
      const draw = seededRandom(7);
      const random = () => draw() + 0.5;
      const pick = (list: string[], count: number): string => Array.from({ length: count }, () => list[Math.floor(random() * list.length * random())]).join(" ");
      const video = (id: string, clips: number) => {
        const content = sampleVideo(id, Array.from({ length: clips }, () => pick(words, 4 + Math.floor(random() * 20))), { screen: Array.from({ length: clips }, () => (random() < 0.3 ? pick(words, 3) : "")) });
        for (const clip of content.clips) clip.visual = random() < 0.5 ? pick(visualWords, 2) : "";
        return content;
      };
      const both = async (work: (store: Store) => Promise<unknown>) => {
        await work(sqlite);
        await work(postgres);
      };
      for (let at = 0; at < 60; at++) {
        const content = video(`v${at}`, 1 + (at % 7));
        await both((store) => store.commitVideo(content));
      }
      for (const id of ["v3", "v17", "v40"]) await both((store) => store.removeVideo(id));
      for (const id of ["v5", "v18", "v61"]) {
        const content = video(id, 3);
        await both((store) => store.commitVideo(content));
      }
      const rewritten = { ...video("v9", 2).clips[1], videoId: "v9", index: 1 } as never;
      await both((store) => store.writeBack({ videoId: "v9", documents: [rewritten], replaces: [], segments: [], vectors: [], stages: [] }));
      const long = video("long", blockPostings + 200);
      for (const clip of long.clips) clip.transcript = `make ${clip.transcript}`;
      await both((store) => store.commitVideo(long));
      const longClip = { ...video("long", 1).clips[0], videoId: "long", index: 100 } as never;
      await both((store) => store.writeBack({ videoId: "long", documents: [longClip], replaces: [], segments: [], vectors: [], stages: [] }));
      const client = new pg.Client(url);
      await client.connect();
      const { rows } = await client.query<{ largest: number; merged: number }>(
        `SELECT max(postings) AS largest, count(*) FILTER (WHERE postings BETWEEN 8 AND $1 - 1)::integer AS merged FROM lexical_postings WHERE index = 0`,
        [blockPostings],
      );
      await client.end();
      assert.equal(rows[0]?.largest, blockPostings - 1, "a full block, less the clip written back");
      assert.ok((rows[0]?.merged ?? 0) > 0, "merged blocks");

      const queries: LexicalQuery[] = [
        { terms: [{ text: "make", weight: 1 }, { text: "water", weight: 1 }, { text: "derailleur", weight: 2 }], limit: 5 },
        { terms: ["make", "water", "chain", "brake", "oil", "rust"].map((text) => ({ text, weight: 1 })), limit: 3 },
        { terms: ["spoke", "tyre", "make"].map((text) => ({ text, weight: 1 })), limit: 1000 },
        { terms: [{ text: "bicycle", weight: 1 }, { text: "bottle", weight: 1 }], fieldWeights: { transcript: 0, screen: 0, visual: 1 }, limit: 10 },
        { terms: [{ text: "gear", weight: 1 }, { text: "wheel", weight: 1 }], phrases: ["make water"], limit: 10 },
        { terms: ["make", "water", "oil", "bolt"].map((text) => ({ text, weight: 1 })), videoIds: ["v1", "v2", "v9", "v20", "v3"], limit: 4 },
      ];
      const rounded = (score: number) => Number(score.toPrecision(9));
      for (const query of queries) {
        const [clips, videos] = [await sqlite.searchClips(query), await sqlite.searchVideos(query)];
        assert.ok(clips.length > 0, JSON.stringify(query));
        const label = JSON.stringify(query.terms.map((term) => term.text));
        // Scores equal; the order among equal scores is by key on each store, and keys differ between them.
        const same = (matches: { score: number }[], key: (match: never) => string) => matches.map((match) => `${rounded(match.score)} ${key(match as never)}`).sort();
        const clipKey = (match: { videoId: string; clipIndex: number }) => `${match.videoId}#${match.clipIndex}`;
        const pgClips = await postgres.searchClips(query);
        assert.deepEqual(pgClips.map((match) => rounded(match.score)), clips.map((match) => rounded(match.score)), `clips ${label}`);
        const above = (matches: { score: number }[], last: number) => matches.filter((match) => rounded(match.score) > last);
        const lastClip = rounded(clips.at(-1)?.score ?? 0);
        assert.deepEqual(same(above(pgClips, lastClip), clipKey), same(above(clips, lastClip), clipKey), `clips ${label}`);
        const pgVideos = await postgres.searchVideos(query);
        const lastVideo = rounded(videos.at(-1)?.score ?? 0);
        const videoKey = (match: { videoId: string }) => match.videoId;
        assert.deepEqual(pgVideos.map((match) => rounded(match.score)), videos.map((match) => rounded(match.score)), `videos ${label}`);
        assert.deepEqual(same(above(pgVideos, lastVideo), videoKey), same(above(videos, lastVideo), videoKey), `videos ${label}`);
      }
    } finally {
      await postgres.close();
      await sqlite.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });

  test("posting blocks freed by merges and re-ingests are reused without waiting for autovacuum: ingesting the same videos again does not grow the lists", async () => {
    const url = await server.createDatabase();
    const words = Array.from({ length: 400 }, (_, at) => `word${at.toString(36)}`);
    const draw = seededRandom(11);
    const videos = (round: number) =>
      Array.from({ length: 20 }, (_, video) =>
        sampleVideo(`v${video}`, Array.from({ length: 5 }, () => Array.from({ length: 40 }, () => words[Math.floor((draw() + 0.5) * words.length)]).join(" ")), {
          fingerprint: `round ${round}`,
        }),
      );
    const client = new pg.Client(url);
    await client.connect();
    try {
      const sizes: number[] = [];
      for (let round = 0; round < 12; round++) {
        // A run of `videorag ingest` each round, re-ingesting every video with new text; only the store may vacuum.
        const store = await openPostgresStore(url);
        if (round === 0) await client.query("ALTER TABLE lexical_postings SET (autovacuum_enabled = false, toast.autovacuum_enabled = false)");
        for (const content of videos(round)) await store.commitVideo(content);
        await store.close();
        sizes.push(Number((await client.query<{ bytes: string }>("SELECT pg_total_relation_size('lexical_postings') AS bytes")).rows[0]?.bytes));
      }
      const { rows } = await client.query<{ blocks: number }>("SELECT count(*)::integer AS blocks FROM lexical_postings");
      assert.ok((rows[0]?.blocks ?? 0) > 1000, "posting blocks written");
      // Each round deletes every block the last wrote; unvacuumed, the table grows by about a round's size each time.
      assert.ok((sizes[11] as number) < 1.6 * (sizes[3] as number), `lexical_postings by round: ${sizes.map((bytes) => Math.round(bytes / 1024)).join(", ")} kB`);
    } finally {
      await client.end();
    }
  });

  test("a schema 1 library is migrated: its posting lists are built from its documents, and every search ranks as before", async () => {
    const url = await server.createDatabase();
    const store = await openPostgresStore(url);
    const queries: LexicalQuery[] = [
      { terms: [{ text: "make", weight: 1 }, { text: "chain", weight: 1 }], limit: 20 },
      { terms: [{ text: "derailleur", weight: 1 }], phrases: ["make the"], limit: 20 },
    ];
    const ranked = async (target: Store) => Promise.all(queries.flatMap((query) => [target.searchClips(query), target.searchVideos(query)]));
    try {
      await store.commitVideo(sampleVideo("long", Array.from({ length: blockPostings + 10 }, (_, at) => `make the chain ${at % 9 === 0 ? "derailleur" : ""}`)));
      for (let at = 0; at < 12; at++) await store.commitVideo(sampleVideo(`v${at}`, [`make the ${"chain ".repeat(at % 3)}`, at % 2 ? "derailleur bolt" : "water"]));
      const before = await ranked(store);
      await store.close();
      // What schema 1 had: segments as arrays, no posting lists.
      await asOlderSchema(url, 1, "DROP TABLE lexical_postings; ALTER TABLE lexical_terms DROP COLUMN writes");
      const migrated = await openPostgresStore(url);
      try {
        assert.deepEqual(await ranked(migrated), before);
      } finally {
        await migrated.close();
      }
    } finally {
      await store.close().catch(() => undefined);
    }
  });

  test("a schema 2 library is migrated: its segments and frames are packed, and every read gives them back as before", async () => {
    const url = await server.createDatabase();
    const store = await openPostgresStore(url);
    try {
      // A video of more than one block, with speech, screen text and visual segments, some of no length.
      const long = sampleVideo("long", Array.from({ length: 120 }, (_, at) => `line ${at} of the long one`));
      long.segments.push(...long.clips.flatMap((clip) => [
        { startSecond: clip.startSecond + 1, endSecond: clip.startSecond + 1, text: `screen ${clip.index}`, source: "screen" as const, clipIndex: clip.index },
        { startSecond: clip.startSecond, endSecond: clip.endSecond, text: `person bicycle ${clip.index}`, source: "visual" as const },
      ]));
      assert.ok(long.segments.length > segmentsPerBlock);
      long.frames = Array.from({ length: 40 }, (_, at) => ({ timeSecond: at * 2.5, ...(at % 3 ? { hash: (at * 7919).toString(16).padStart(16, "0") } : {}) }));
      await store.commitVideo(long);
      await store.commitVideo(sampleVideo("short", ["a short one", "with two clips"]));
      const windows = [["long", 0, 1e9], ["long", 30, 95], ["long", 301, 302], ["short", 0, 5], ["missing", 0, 5]] as const;
      const read = async (target: Store) => [
        ...(await Promise.all(windows.map(([videoId, start, end]) => target.getSegments(videoId, start, end)))),
        await target.getSegmentRanges(windows.map(([videoId, startSecond, endSecond]) => ({ videoId, startSecond, endSecond }))),
        await target.getFrames("long", 10, 60),
        await target.getFrames("short", 0, 60),
      ];
      const before = await read(store);
      assert.ok((before[1] as unknown[]).length > 0);
      assert.equal((before[6] as unknown[]).length, 20, "the long video's frames from 10 s to 60 s");
      await store.close();
      await asOlderSchema(url, 2);
      const migrated = await openPostgresStore(url);
      const client = new pg.Client(url);
      await client.connect();
      try {
        assert.deepEqual(await read(migrated), before);
        const { rows } = await client.query<{ blocks: number; lists: number; arrays: string | null; frames: string | null }>(
          "SELECT (SELECT count(*)::integer FROM segment_blocks) AS blocks, (SELECT count(*)::integer FROM frame_lists) AS lists, to_regclass('segments')::text AS arrays, to_regclass('frames')::text AS frames",
        );
        assert.deepEqual(rows[0], { blocks: 3, lists: 2, arrays: null, frames: null }, "two blocks for the long video, one for the short, a frame list each, and the old tables dropped");
      } finally {
        await migrated.close();
        await client.end();
      }
    } finally {
      await store.close().catch(() => undefined);
    }
  });

  /**
   * A library whose text can be kept once: a video of more than one segment block (visual segments after its speech, so
   * runs skip positions), with a graph whose descriptions quote its chunks; and a short one.
   */
  const packedLibrary = (): VideoContent[] => {
    const long = sampleVideo("long", Array.from({ length: 300 }, (_, at) => `line ${at} of the long one about the chain`));
    long.segments.forEach((segment, at) => (segment.clipIndex = at));
    long.segments.push(...long.clips.map((clip) => ({ startSecond: clip.startSecond, endSecond: clip.endSecond, text: `person bicycle ${clip.index}`, source: "visual" as const })));
    const graphed = withGraph(long, [
      { clips: [0, 2], entities: [["Chain", "object", "mentioned together: line 1 of the long one about the chain"], ["Gear", "object", "a part no line names"]], relations: [["Chain", "Gear", "mentioned together: line 2 of the long one", 1]] },
      { clips: [250, 270], entities: [["Chain", "object", "line 260 of the long one about the chain"], ["Derailleur", "object", "mentioned together: …line 255 of the long one"]] },
      { clips: [299, 299], entities: [["Pedal", "object", "line 299 of the long one about the chain"]] },
    ]);
    return [graphed, withGraph(sampleVideo("short", ["a short one", "with two clips about the pedal"]), [{ entities: [["Pedal", "object", "a short one"]] }])];
  };

  /** Everything a library's text is read back through. */
  const readText = async (store: Store) => {
    const clipKeys = [...Array.from({ length: 300 }, (_, clipIndex) => ({ videoId: "long", clipIndex })), { videoId: "short", clipIndex: 1 }, { videoId: "short", clipIndex: 0 }];
    const entities = await Promise.all(["chain", "gear", "derailleur", "pedal"].map((name) => store.getEntity(name)));
    return {
      clips: await store.getClips(clipKeys),
      chunks: await store.getChunks([0, 1, 2].map((chunkIndex) => ({ videoId: "long", chunkIndex })).concat([{ videoId: "short", chunkIndex: 0 }])),
      sources: entities.map((entity) => entity?.sources),
      relations: await store.relationsAmong(entities.map((entity) => entity?.key as number)),
      searches: await Promise.all([
        store.searchClips({ terms: [{ text: "line", weight: 1 }, { text: "chain", weight: 1 }, { text: "255", weight: 2 }], limit: 5 }),
        store.searchClips({ terms: [{ text: "clips", weight: 1 }], phrases: ["long one about"], limit: 5 }),
        store.searchVideos({ terms: [{ text: "pedal", weight: 1 }, { text: "bicycle", weight: 1 }], limit: 5 }),
        store.searchEntities({ terms: [{ text: "pedal", weight: 1 }, { text: "derailleur", weight: 1 }], limit: 5 }),
      ]),
    };
  };

  /** How much of the text is packed: transcripts as runs, chunk texts as pieces, source descriptions as excerpts. */
  const packedCounts = async (url: string) => {
    const client = new pg.Client(url);
    await client.connect();
    try {
      const { rows } = await client.query(
        `SELECT (SELECT count(*)::integer FROM clips WHERE transcript_first IS NOT NULL AND transcript = '') AS runs,
          (SELECT count(*)::integer FROM chunks WHERE packed_text IS NOT NULL AND text = '') AS chunks,
          (SELECT count(*)::integer FROM entity_sources WHERE excerpt IS NOT NULL AND description = '') +
            (SELECT count(*)::integer FROM relation_sources WHERE excerpt IS NOT NULL AND description = '') AS excerpts,
          to_regclass('lexical_docs')::text AS documents`,
      );
      return rows[0];
    } finally {
      await client.end();
    }
  };

  test("text is kept once (transcripts as runs of segments, chunks as their pieces, sources as excerpts) and every read gives it back", async () => {
    const url = await server.createDatabase();
    const store = await openPostgresStore(url);
    try {
      const library = packedLibrary();
      for (const content of library) await store.commitVideo(content);
      const before = await readText(store);
      assert.deepEqual(before.clips.map((clip) => clip.transcript).slice(0, 2), ["line 0 of the long one about the chain", "line 1 of the long one about the chain"]);
      assert.equal(before.chunks[1]?.text, library[0]?.graph?.chunks[1]?.text);
      assert.deepEqual(before.sources[2]?.map((source) => source.description), ["mentioned together: …line 255 of the long one"]);
      assert.deepEqual(before.relations.map((relation) => relation.description), ["mentioned together: line 2 of the long one"]);
      assert.ok(before.searches.every((matches) => matches.length > 0));
      // Every transcript is a run; every description but "a part no line names" an excerpt.
      assert.deepEqual(await packedCounts(url), { runs: 302, chunks: 4, excerpts: 6, documents: null });

      // A write-back that replaces a clip's segments moves every later position: the other clips, chunks and sources read as before.
      const rewritten = { ...(library[0]?.clips[5] as ClipDocument), transcript: "a new line five" };
      await store.writeBack({
        videoId: "long",
        documents: [rewritten],
        replaces: [{ clipIndex: 5, sources: ["subtitle"] }],
        segments: [{ startSecond: 151, endSecond: 159, text: "a new line five", source: "subtitle", clipIndex: 5 }],
        vectors: [],
        stages: [],
      });
      const after = await readText(store);
      assert.equal(after.clips[5]?.transcript, "a new line five");
      assert.deepEqual({ ...after, clips: after.clips.filter((_, at) => at !== 5), searches: [] }, { ...before, clips: before.clips.filter((_, at) => at !== 5), searches: [] });
      assert.deepEqual((await store.searchClips({ terms: [{ text: "five", weight: 1 }], limit: 5 })).map((match) => match.clipIndex), [5]);
      assert.deepEqual(await packedCounts(url), { runs: 302, chunks: 4, excerpts: 6, documents: null });

      // A description written is indexed in place of the one before.
      const derailleur = await store.getEntity("derailleur");
      await store.setEntityDescriptions([{ key: derailleur?.key as number, description: "a sprocket shifter" }]);
      const entities = async (word: string) => (await store.searchEntities({ terms: [{ text: word, weight: 1 }], limit: 5 })).map((match) => match.name);
      assert.deepEqual(await entities("sprocket"), ["Derailleur"]);

      // Committed again, the library reads as it did; removed, it leaves nothing in the index.
      for (const content of library) await store.commitVideo(content);
      const again = await readText(store);
      // (Sources keep their text; the entities' descriptions, and so their search, changed above.)
      assert.deepEqual({ ...again, searches: again.searches.slice(0, 3) }, { ...before, searches: before.searches.slice(0, 3) });
      for (const id of ["long", "short"]) assert.equal(await store.removeVideo(id), true);
      const client = new pg.Client(url);
      await client.connect();
      const { rows } = await client.query(
        `SELECT (SELECT count(*)::integer FROM lexical_terms) AS terms, (SELECT count(*)::integer FROM lexical_postings) AS blocks,
          (SELECT sum(documents)::integer FROM lexical_totals) AS documents, (SELECT sum(tokens)::integer FROM lexical_totals) AS tokens`,
      );
      await client.end();
      assert.deepEqual(rows[0], { terms: 0, blocks: 0, documents: 0, tokens: 0 });
    } finally {
      await store.close();
    }
  });

  test("a schema 3 library is migrated: its text is packed, its documents' term lists dropped, and every read and search is as before", async () => {
    const url = await server.createDatabase();
    const store = await openPostgresStore(url);
    try {
      for (const content of packedLibrary()) await store.commitVideo(content);
      const before = await readText(store);
      const packed = await packedCounts(url);
      await store.close();
      await asOlderSchema(url, 3);
      const client = new pg.Client(url);
      await client.connect();
      const { rows } = await client.query("SELECT (SELECT count(*)::integer FROM clips WHERE transcript <> '') AS plain, (SELECT count(*)::integer FROM lexical_docs) AS documents");
      await client.end();
      assert.deepEqual(rows[0], { plain: 302, documents: 302 + 2 + 4 }, "schema 3 kept the text in its rows and a term list per document");
      const migrated = await openPostgresStore(url);
      try {
        assert.deepEqual(await readText(migrated), before);
        assert.deepEqual(await packedCounts(url), packed);
      } finally {
        await migrated.close();
      }
    } finally {
      await store.close().catch(() => undefined);
    }
  });

  test("chapters rank as on SQLite: every score equal, after write-backs, re-commits and removals, pruned or not", async () => {
    const folder = mkdtempSync(join(tmpdir(), "videorag-pg-chapters-"));
    const sqlite = openSqliteStore(join(folder, "library.sqlite"));
    const url = await server.createDatabase();
    const postgres = await openPostgresStore(url);
    const pruning = await openPostgresStore(url, { readPostingsAtOnce: 0 });
    try {
      await churnChapters(sqlite);
      await churnChapters(postgres);
      assert.deepEqual(await postgres.listChapters(), await sqlite.listChapters());
      const scored = async (store: Store, query: (typeof chapterQueries)[number]) =>
        (await store.searchChapters(query)).map((match) => `${match.videoId}#${match.chapterIndex} ${match.startSecond}-${match.endSecond} ${match.score.toPrecision(9)}`);
      for (const query of chapterQueries) {
        const expected = await scored(sqlite, query);
        assert.ok(expected.length > 0, JSON.stringify(query));
        // The fixture has no two chapters with equal scores, so the order is the same too.
        assert.deepEqual(await scored(postgres, query), expected, JSON.stringify(query));
        assert.deepEqual(await scored(pruning, query), expected, `${JSON.stringify(query)}, pruned`);
      }
    } finally {
      await Promise.all([postgres.close(), pruning.close()]);
      await sqlite.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });

  test("a schema 4 library is migrated: it keeps its videos and gains chapters, written and searched", async () => {
    const url = await server.createDatabase();
    const store = await openPostgresStore(url);
    await store.commitVideo(sampleVideo("old", ["kneading the dough", "baking the loaf"]));
    await store.close();
    await asOlderSchema(url, 4);
    const migrated = await openPostgresStore(url);
    try {
      assert.equal((await migrated.getVideo("old"))?.clipCount, 2);
      assert.deepEqual(await migrated.getChapters("old"), []);
      assert.equal((await migrated.searchClips({ terms: [{ text: "bake", weight: 1 }], limit: 5 }))[0]?.clipIndex, 1);
      const { bread } = chapterVideos();
      await migrated.commitVideo(bread);
      assert.deepEqual(await migrated.getChapters("bread"), bread.chapters);
      assert.equal((await migrated.searchChapters({ terms: [{ text: "baking", weight: 1 }], limit: 5 }))[0]?.chapterIndex, 1);
    } finally {
      await migrated.close();
    }
  });

  test("a schema 5 library is migrated: its blocks read as written, and new segments carry speakers that can be named", async () => {
    const url = await server.createDatabase();
    const store = await openPostgresStore(url);
    const old = sampleVideo("old", ["kneading the dough", "baking the loaf"]);
    await store.commitVideo(old);
    await store.close();
    await asOlderSchema(url, 5);
    const migrated = await openPostgresStore(url);
    try {
      assert.deepEqual(await migrated.getSegments("old", 0, 60), old.segments);
      assert.deepEqual(await migrated.speakerNames("old"), {});
      await migrated.writeBack({
        videoId: "old",
        documents: [],
        replaces: [],
        segments: [{ startSecond: 40, endSecond: 44, text: "golden crust", source: "speech", speaker: "Speaker 1", clipIndex: 1 }],
        vectors: [],
        stages: [],
      });
      await migrated.setSpeakerName("old", "Speaker 1", "Dana");
      assert.deepEqual(await migrated.findSpeakers("dana"), [{ videoId: "old", label: "Speaker 1", name: "Dana" }]);
      assert.deepEqual((await migrated.getSegments("old", 30, 60)).map((segment) => segment.speaker), [undefined, "Speaker 1"]);
    } finally {
      await migrated.close();
    }
  });

  test("a schema 9 library is migrated: its blocks read as written, and new segments carry their language", async () => {
    const url = await server.createDatabase();
    const store = await openPostgresStore(url);
    const old = sampleVideo("old", ["kneading the dough", "baking the loaf"]);
    await store.commitVideo(old);
    await store.close();
    const client = new pg.Client(url);
    await client.connect();
    try {
      await client.query(`UPDATE videorag_schema SET version = 9`);
    } finally {
      await client.end();
    }
    const migrated = await openPostgresStore(url);
    try {
      assert.deepEqual(await migrated.getSegments("old", 0, 60), old.segments);
      await migrated.writeBack({
        videoId: "old",
        documents: [],
        replaces: [],
        segments: [{ startSecond: 40, endSecond: 44, text: "eine goldene Kruste", source: "speech", language: "de", clipIndex: 1 }],
        vectors: [],
        stages: [],
      });
      assert.deepEqual((await migrated.getSegments("old", 30, 60)).map((segment) => segment.language), [undefined, "de"]);
    } finally {
      await migrated.close();
    }
    const reopened = new pg.Client(url);
    await reopened.connect();
    try {
      assert.equal((await reopened.query("SELECT version FROM videorag_schema")).rows[0]?.version, postgresSchemaVersion);
    } finally {
      await reopened.end();
    }
  });

  test("a library survives closing and reopening", async () => {
    const url = await server.createDatabase();
    const first = await openPostgresStore(url);
    await first.commitVideo(sampleVideo("kept", ["a lasting sentence"]));
    await first.close();
    const second = await openPostgresStore(url);
    assert.equal((await second.getVideo("kept"))?.clipCount, 1);
    assert.equal((await second.searchClips({ terms: [{ text: "lasting", weight: 1 }], limit: 5 }))[0]?.videoId, "kept");
    await second.close();
  });

  test("the schema version is recorded, and a database from a newer version is refused with STORE_FAILED", async () => {
    const url = await server.createDatabase();
    await (await openPostgresStore(url)).close();
    const client = new pg.Client(url);
    await client.connect();
    assert.equal((await client.query("SELECT version FROM videorag_schema")).rows[0]?.version, postgresSchemaVersion);
    await client.query("UPDATE videorag_schema SET version = 99");
    await client.end();
    await assert.rejects(openPostgresStore(url), (error) => VideoRagError.isInstance(error) && error.code === "STORE_FAILED" && /newer videorag/.test(error.message));
  });

  test("a server that cannot be reached is STORE_UNAVAILABLE, retryable, and the password is not in the message", async () => {
    const url = "postgres://rag:s3cret@127.0.0.1:1/videos";
    await assert.rejects(openPostgresStore(url, { connectTimeoutMs: 2000 }), (error) => {
      assert.ok(VideoRagError.isInstance(error));
      assert.equal(error.code, "STORE_UNAVAILABLE");
      assert.equal(error.retryable, true);
      assert.doesNotMatch(error.message, /s3cret/);
      return true;
    });
  });
});

describe("Postgres store: the kept list of videos", { skip: needsPostgres }, () => {
  let server: TestPostgres;
  before(async () => {
    server = await startPostgres();
  });
  after(() => server?.stop());

  test("follows commits, removals and write-backs, from this store and from another process's on the same database", async () => {
    const url = await server.createDatabase();
    const store = await openPostgresStore(url);
    const other = await openPostgresStore(url);
    try {
      await checkKeptVideoList(store, other);
    } finally {
      await other.close();
      await store.close();
    }
  });
});
