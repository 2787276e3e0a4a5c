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
