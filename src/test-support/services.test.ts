// Proves the throwaway servers the Postgres store and job queue tests rely on: a cluster with working pgvector, a Redis
// that stores and returns a value, and that stopping either really closes its port.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { connect } from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { needsPostgres, postgresBinDir, startPostgres } from "./postgres.js";
import { needsRedis, startRedis } from "./redis.js";

const run = promisify(execFile);

// `pg` is not a dependency yet; psql speaks to the server over the same TCP URL a client library would use.
async function psql(url: string, sql: string): Promise<string> {
  const { stdout } = await run(join(postgresBinDir, "psql"), [url, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql]);
  return stdout.trim();
}

async function redisCli(url: string, ...args: string[]): Promise<string> {
  const { stdout } = await run("redis-cli", ["-u", url, ...args]);
  return stdout.trim();
}

function acceptsConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.on("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });
}

test("a throwaway Postgres finds the nearest vector with pgvector, and stop closes its port", { skip: needsPostgres }, async (t) => {
  const postgres = await startPostgres();
  t.after(() => postgres.stop().catch(() => undefined));
  const port = Number(new URL(postgres.url).port);

  const nearest = await psql(
    postgres.url,
    `CREATE EXTENSION vector;
     CREATE TABLE t (name text, v vector(3));
     INSERT INTO t VALUES ('x', '[1,0,0]'), ('y', '[0,1,0]'), ('z', '[0,0,1]');
     SELECT name FROM t ORDER BY v <-> '[0.1,0.9,0.2]' LIMIT 1;`,
  );
  assert.equal(nearest, "y");

  await postgres.stop();
  assert.equal(await acceptsConnections(port), false);
});

test("a throwaway Redis stores and returns a value, and stop closes its port", { skip: needsRedis }, async (t) => {
  const redis = await startRedis();
  t.after(() => redis.stop());
  const port = Number(new URL(redis.url).port);

  assert.equal(await redisCli(redis.url, "SET", "question", "who is in a bad humor?"), "OK");
  assert.equal(await redisCli(redis.url, "GET", "question"), "who is in a bad humor?");

  await redis.stop();
  assert.equal(await acceptsConnections(port), false);
});
