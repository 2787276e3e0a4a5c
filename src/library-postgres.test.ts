// The library on a Postgres store (`--library postgres://…`): the same cases as on SQLite, on real media, against a
// throwaway PostgreSQL 15 + pgvector cluster. Each library is a fresh database; its local folder (scratch, caches) is
// a temporary one given by VIDEORAG_STATE_DIR.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { graphLibraryCases } from "./library-graph.case.js";
import { incrementalLibraryCases } from "./library-incremental.case.js";
import { subtitledLibraryCases } from "./library.case.js";
import { openLibrary } from "./library.js";
import { needsPostgres, startPostgres, type TestPostgres } from "./test-support/postgres.js";
import { needsShared, sharedPath } from "./test-support/shared.js";

if (needsPostgres) console.log(`# skipping the Postgres library tests: ${needsPostgres}`);

describe("a library on Postgres", { skip: needsPostgres }, () => {
  let server: TestPostgres;
  const state = mkdtempSync(join(tmpdir(), "videorag-pg-library-"));
  const previousState = process.env.VIDEORAG_STATE_DIR;
  before(async () => {
    server = await startPostgres();
    process.env.VIDEORAG_STATE_DIR = state;
  });
  after(async () => {
    if (previousState === undefined) delete process.env.VIDEORAG_STATE_DIR;
    else process.env.VIDEORAG_STATE_DIR = previousState;
    rmSync(state, { recursive: true, force: true });
    await server?.stop();
  });
  const open = async (_name: string, options = {}) => openLibrary({ ...options, path: await server.createDatabase() });

  subtitledLibraryCases("postgres", open);
  graphLibraryCases("postgres", open);
  incrementalLibraryCases("postgres", open);

  test("the library is named by its URL without the password, and its scratch stays in the local folder", { skip: needsShared }, async () => {
    const url = (await server.createDatabase()).replace("postgres@", "postgres:unused-secret@");
    const library = await openLibrary({ path: url, speech: false, visual: false });
    try {
      assert.doesNotMatch(library.location, /unused-secret/);
      assert.match(library.location, /^postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/test_/);
      assert.equal(library.path, state);
      const report = await library.ingest([sharedPath("media/subtitled/friday.mp4")]);
      assert.equal(report.failed, 0);
      assert.equal((await library.list()).length, 1);
    } finally {
      await library.close();
    }
  });
});
