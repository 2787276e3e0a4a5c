// The Postgres store: the shared conformance suite against a throwaway PostgreSQL 15 + pgvector cluster, plus what only
// a server shows: reopening, schema versions, a server that goes away.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { VideoRagError } from "../../spec/index.js";
import { needsPostgres, startPostgres, type TestPostgres } from "../../test-support/postgres.js";
import { runStoreConformance, sampleVideo } from "../store-conformance.case.js";
import { postgresSchemaVersion } from "./postgres-schema.js";
import { openPostgresStore } from "./postgres-store.js";

if (needsPostgres) console.log(`# skipping the Postgres store tests: ${needsPostgres}`);

describe("Postgres store", { skip: needsPostgres }, () => {
  let server: TestPostgres;
  before(async () => {
    server = await startPostgres();
  });
  after(() => server?.stop());

  runStoreConformance("postgres", async () => openPostgresStore(await server.createDatabase()));

  test("pruning common terms (MaxScore) gives the exact top k: the same as ranking every match", async () => {
    const store = await openPostgresStore(await server.createDatabase());
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
        for (const search of [store.searchClips.bind(store), store.searchVideos.bind(store)]) {
          const everything = await search({ terms, limit: 10_000 });
          for (const limit of [1, 3, 10]) assert.deepEqual(await search({ terms, limit }), everything.slice(0, limit), `${words.join(" ")} limit ${limit}`);
        }
      }
    } finally {
      await store.close();
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
