// A library on Postgres fed by queue workers, as on several machines: a server answers while a worker commits, and a
// database that goes down in the middle of a job fails it retryably; its retry ingests the file once.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { after, before, describe, test } from "node:test";
import { openLibrary, type Library } from "../library.js";
import { startServer } from "../server/start-server.js";
import { needsPostgres, startPostgres, type TestPostgres } from "../test-support/postgres.js";
import { needsRedis, startRedis, type TestRedis } from "../test-support/redis.js";
import { needsShared, sharedPath } from "../test-support/shared.js";
import { enqueueIngest, queueStatus, runWorker, type WorkerEvent } from "./index.js";

const skip = needsPostgres || needsRedis || needsShared;
if (skip) console.log(`# skipping the Postgres queue tests: ${skip}`);

describe("queue workers on a Postgres library", { skip }, () => {
  let postgres: TestPostgres;
  let redis: TestRedis;
  const state = mkdtempSync(join(tmpdir(), "videorag-pg-queue-"));
  const previousState = process.env.VIDEORAG_STATE_DIR;
  before(async () => {
    [postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
    process.env.VIDEORAG_STATE_DIR = state;
  });
  after(async () => {
    if (previousState === undefined) delete process.env.VIDEORAG_STATE_DIR;
    else process.env.VIDEORAG_STATE_DIR = previousState;
    await Promise.all([postgres?.stop(), redis?.stop()]);
    rmSync(state, { recursive: true, force: true });
  });

  /** Runs an in-process worker until `settled` holds for the queue, then stops it; returns what it reported. */
  async function work(library: Library, onEvent: (event: WorkerEvent) => void, seconds: number): Promise<WorkerEvent[]> {
    const events: WorkerEvent[] = [];
    const controller = new AbortController();
    const running = runWorker({ queueUrl: redis.url, library, signal: controller.signal, onEvent: (event) => (events.push(event), onEvent(event)) });
    try {
      const deadline = Date.now() + seconds * 1000;
      for (;;) {
        const status = await queueStatus(redis.url);
        if (status.waiting + status.active === 0 && status.done + status.failed > 0) break;
        if (Date.now() > deadline) assert.fail(`the queue did not settle in ${seconds} s: ${JSON.stringify(status)}; events ${JSON.stringify(events)}`);
        await delay(200);
      }
    } finally {
      controller.abort();
      await running;
    }
    return events;
  }

  test("a server answers searches while a worker commits videos, and finds them once they are in", async () => {
    const url = await postgres.createDatabase();
    const writer = await openLibrary({ path: url, visual: false, modelsDir: sharedPath("models") });
    const reader = await openLibrary({ path: url, visual: false, modelsDir: sharedPath("models") });
    const server = await startServer({ library: reader, port: 0 });
    let searching = true;
    const answers: number[] = [];
    const searches = (async () => {
      while (searching) {
        const response = await fetch(`${server.url}/api/search`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ query: "bad humor" }),
        });
        answers.push(response.status);
        await response.arrayBuffer();
      }
    })();
    try {
      const files = [sharedPath("media/subtitled/friday.mp4"), sharedPath("media/subtitled/popeye_pgs.mkv")];
      await enqueueIngest(redis.url, url, files);
      const events = await work(writer, () => undefined, 120);
      assert.deepEqual(events.flatMap((event) => (event.type === "job-failed" ? [event.code] : [])), []);
      searching = false;
      await searches;
      assert.ok(answers.length > 5, `only ${answers.length} searches ran meanwhile`);
      assert.deepEqual([...new Set(answers)], [200]);
      const response = await fetch(`${server.url}/api/search`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ query: "bad humor" }) });
      const body = (await response.json()) as { hits: { title: string }[] };
      assert.equal(body.hits[0]?.title, "friday.mp4");
      assert.equal((await reader.list()).length, 2);
    } finally {
      searching = false;
      await searches;
      await server.close();
      await Promise.all([reader.close(), writer.close()]);
    }
  });

  test("Postgres going down mid-job fails it with STORE_UNAVAILABLE, retryably; the retry ingests the file once", async () => {
    const url = await postgres.createDatabase();
    const library = await openLibrary({ path: url, visual: false, modelsDir: sharedPath("models") });
    try {
      const file = sharedPath("media/subtitled/popeye_vobsub.mkv");
      await enqueueIngest(redis.url, url, [file]);
      // Down as soon as the job starts; up again once the worker has reported the failure (after the stop completed).
      let down: Promise<void> | undefined;
      let up: Promise<void> | undefined;
      const events = await work(
        library,
        (event) => {
          if (event.type === "job-start" && !down) down = postgres.kill();
          if (event.type === "job-failed" && down && !up) up = down.then(() => postgres.start());
        },
        90,
      );
      await up;
      const failed = events.find((event) => event.type === "job-failed");
      assert.ok(failed?.type === "job-failed", JSON.stringify(events));
      assert.equal(failed.code, "STORE_UNAVAILABLE", failed.message);
      assert.equal(failed.retried, true);
      assert.doesNotMatch(failed.message, /password/i);
      const done = events.filter((event) => event.type === "job-done" && event.result.status === "ingested");
      assert.equal(done.length, 1, JSON.stringify(events));
      const videos = await library.list();
      assert.deepEqual(videos.map((video) => video.path), [file]);
      assert.ok((videos[0]?.clipCount ?? 0) > 0);
      assert.match((await library.search("biggest buzzard", { limit: 1 }))[0]?.title ?? "", /popeye_vobsub/);
    } finally {
      await library.close();
    }
  });
});
