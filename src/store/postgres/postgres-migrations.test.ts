// Postgres libraries whose text an earlier schema indexed otherwise, opened by this one: the migrations that index
// such text again (schema 9, Chinese, Japanese and Korean as character pairs; schema 11, Thai, Lao, Khmer and Burmese as
// their words) must leave every index as a library built now has it. The other migrations are tested beside the store
// (postgres-store.test.ts).

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import type { PoolClient } from "pg";
import { hasCjk, hasSpaceless } from "../../text/index.js";
import { needsPostgres, startPostgres, type TestPostgres } from "../../test-support/postgres.js";
import { lexicalScores, query, unspacedLibrary } from "../conformance/index.js";
import { openSqliteStore } from "../sqlite/sqlite-store.js";
import { Fts5Tokens } from "./fts5-tokens.js";
import { LexicalIndex, type LexicalDocument, type LexicalIndexName } from "./lexical-index.js";
import { entityFields } from "./postgres-graph-writes.js";
import { openPostgresStore } from "./postgres-store.js";
import { clipDocuments, readClipTexts, wholeVideo } from "./postgres-text-index.js";

if (needsPostgres) console.log(`# skipping the Postgres migration tests: ${needsPostgres}`);

/**
 * Turns a closed library into one of schema `version`, whose documents holding what `holds` picks were indexed with
 * `form` (see `Fts5Tokens`): each is forgotten with the tokens of now and indexed again as that schema did.
 */
async function indexedAsBefore(url: string, version: number, form: ConstructorParameters<typeof Fts5Tokens>[0], holds: (text: string) => boolean): Promise<void> {
  // Keys are bigint: read as numbers, as the store reads them.
  const client = new pg.Client({ connectionString: url, types: { getTypeParser: (oid: number, format?: "text" | "binary") => (oid === 20 ? Number : pg.types.getTypeParser(oid, format ?? "text")) } as pg.CustomTypesConfig });
  await client.connect();
  const now = new Fts5Tokens();
  const then = new Fts5Tokens(form);
  try {
    await client.query("BEGIN");
    const pool = client as unknown as PoolClient;
    const videoKeys = (await client.query<{ key: number }>(`SELECT key FROM videos`)).rows.map((row) => row.key);
    const clips = await readClipTexts(pool, "video", videoKeys);
    const entityKeys = (await client.query<{ key: number }>(`SELECT key FROM entities`)).rows.map((row) => row.key);
    const entities = await entityFields(pool, entityKeys);
    const chapters = (await client.query<{ key: number; video_key: number; title: string; summary: string; text: string }>(`SELECT key, video_key, title, summary, text FROM chapters`)).rows;
    const documents: Record<LexicalIndexName, LexicalDocument[]> = {
      clip: clipDocuments(clips),
      video: videoKeys.map((key) => wholeVideo(key, clips.filter((clip) => clip.videoKey === key))),
      entity: entityKeys.map((key) => ({ key, fields: entities.get(key) ?? [] })),
      chapter: chapters.map((row) => ({ key: row.key, videoKey: row.video_key, fields: [row.title, row.summary, row.text] })),
    };
    for (const [kind, all] of Object.entries(documents) as [LexicalIndexName, LexicalDocument[]][]) {
      const picked = all.filter((document) => document.fields.some(holds));
      assert.ok(picked.length > 0, `the library has ${kind} documents to index as schema ${version} did`);
      await new LexicalIndex(now).remove(pool, kind, picked);
      await new LexicalIndex(then).add(pool, kind, picked);
    }
    await client.query(`UPDATE videorag_schema SET version = ${version}`);
    await client.query("COMMIT");
  } finally {
    now.close();
    then.close();
    await client.end();
  }
}

describe("Postgres migrations that index text again", { skip: needsPostgres }, () => {
  let server: TestPostgres;
  before(async () => {
    server = await startPostgres();
  });
  after(() => server?.stop());

  const schemas = [
    // Schema 8 indexed text as it is: CJK runs whole, and Thai runs whole as every schema before 11.
    { version: 8, form: { cjkAsRuns: true }, holds: (text: string) => hasCjk(text) || hasSpaceless(text) },
    { version: 10, form: { spacelessAsRuns: true }, holds: hasSpaceless },
  ];
  for (const { version, form, holds } of schemas) {
    test(`a schema ${version} library is indexed again where its text is written without spaces: every score equals a library built now`, async () => {
      const url = await server.createDatabase();
      const { videos, searches } = unspacedLibrary();
      const store = await openPostgresStore(url);
      for (const video of videos) await store.commitVideo(video);
      await store.close();
      await indexedAsBefore(url, version, form, holds);
      const migrated = await openPostgresStore(url);
      const fresh = openSqliteStore(":memory:");
      try {
        for (const video of videos) await fresh.commitVideo(video);
        for (const words of searches) assert.deepEqual(await lexicalScores(migrated, words), await lexicalScores(fresh, words), words);
        assert.deepEqual((await migrated.searchClips(query("ข้าวผัด"))).map((match) => `${match.videoId}:${match.clipIndex}`), ["th:1", "th:0"]);
        assert.ok((await migrated.searchClips(query("东京"))).some((match) => match.videoId === "zh"));
        assert.equal((await migrated.searchEntities(query("ร้าน")))[0]?.name, "ร้านข้าวผัด");
      } finally {
        await migrated.close();
        await fresh.close();
      }
    });
  }
});
