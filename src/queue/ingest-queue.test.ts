// Ingest through the job queue on a real Redis and real media: jobs run once, bad input fails with its code and is not
// tried again, and a worker killed mid-job leaves its job to another worker without a duplicate or a partial video.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { after, describe, test } from "node:test";
import { openLibrary, type Library } from "../library.js";
import { cliArguments } from "../test-support/cli.js";
import { needsPostgres, startPostgres } from "../test-support/postgres.js";
import { needsRedis, startRedis } from "../test-support/redis.js";
import { needsShared, sharedPath } from "../test-support/shared.js";
import { enqueueIngest, queueStatus, runWorker, type QueueStatus, type WorkerEvent } from "./index.js";

const scratch = mkdtempSync(join(tmpdir(), "videorag-queue-test-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** Polls the queue until `done` holds; fails after `seconds` (generous: a shared 2-core machine under load is slow), showing the last status. */
async function waitForQueue(url: string, done: (status: QueueStatus) => boolean, seconds = 120): Promise<QueueStatus> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const status = await queueStatus(url);
    if (done(status)) return status;
    if (Date.now() > deadline) assert.fail(`the queue did not settle within ${seconds} s: ${JSON.stringify(status)}`);
    await delay(200);
  }
}

/** Runs an in-process worker on the library while `work` runs, then stops it; returns what it reported. */
async function withWorker(url: string, library: Library, work: () => Promise<void>): Promise<WorkerEvent[]> {
  const events: WorkerEvent[] = [];
  const controller = new AbortController();
  let ready!: () => void;
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  const running = runWorker({
    queueUrl: url,
    library,
    signal: controller.signal,
    onEvent: (event) => {
      events.push(event);
      if (event.type === "ready") ready();
    },
  });
  try {
    await Promise.race([isReady, running]);
    await work();
  } finally {
    controller.abort();
    await running;
  }
  return events;
}

describe("ingest jobs on a queue", { skip: needsRedis || needsShared }, () => {
  test("a worker ingests each enqueued file once, and enqueuing the same files again adds no job", async () => {
    const redis = await startRedis();
    const library = await openLibrary({ path: join(scratch, "once"), visual: false, modelsDir: sharedPath("models") });
    try {
      const files = [sharedPath("media/subtitled/friday.mp4"), sharedPath("media/audio/jfk.wav"), sharedPath("media/speech/grid/bbaf2n.mpg")];
      const jobs = await enqueueIngest(redis.url, library.path, files);
      assert.deepEqual(jobs.map((job) => job.state), ["added", "added", "added"]);
      assert.equal(new Set(jobs.map((job) => job.id)).size, 3);

      const events = await withWorker(redis.url, library, async () => {
        const status = await waitForQueue(redis.url, (current) => current.done + current.failed === 3 && current.waiting + current.active === 0);
        assert.deepEqual({ waiting: status.waiting, active: status.active, failed: status.failed, done: status.done }, { waiting: 0, active: 0, failed: 0, done: 3 });
      });
      const finished = events.flatMap((event) => (event.type === "job-done" ? [event.result.status] : []));
      assert.deepEqual(finished.filter((status) => status !== "described"), ["ingested", "ingested", "ingested"]);
      // The entity descriptions ran as a job of their own, after the files: nothing is left stale.
      assert.ok(finished.includes("described"), JSON.stringify(finished));

      const videos = await library.list();
      assert.deepEqual(videos.map((video) => video.path).sort(), [...files].sort());
      assert.ok(videos.every((video) => video.clipCount > 0));

      // The same unchanged files find their finished jobs: nothing new is queued, nothing runs again.
      const again = await enqueueIngest(redis.url, library.path, files);
      assert.deepEqual(again.map((job) => job.state), ["queued", "queued", "queued"]);
      assert.deepEqual(again.map((job) => job.id), jobs.map((job) => job.id));
      const status = await queueStatus(redis.url);
      assert.deepEqual({ waiting: status.waiting, active: status.active, done: status.done }, { waiting: 0, active: 0, done: 3 });
      assert.equal((await library.list()).length, 3);
    } finally {
      await library.close();
      await redis.stop();
    }
  });

  test("a stated language travels with its job: checked before anything is queued, a job of its own, and the video is ingested in it", async () => {
    const redis = await startRedis();
    const library = await openLibrary({ path: join(scratch, "language"), visual: false, ocr: false, speech: false });
    try {
      const file = sharedPath("media/subtitled/friday.mp4");
      await assert.rejects(enqueueIngest(redis.url, library.path, [file], { language: "elvish" }), (error: { code?: string }) => error.code === "ARGUMENT_INVALID");
      assert.equal((await queueStatus(redis.url)).waiting, 0, "nothing was queued");
      const [german] = await enqueueIngest(redis.url, library.path, [file], { language: "German" });
      const [plain] = await enqueueIngest(redis.url, library.path, [file]);
      assert.equal(plain?.state, "added");
      assert.notEqual(plain?.id, german?.id, "the same file stated in a language is a job of its own");
      await withWorker(redis.url, library, async () => {
        await waitForQueue(redis.url, (current) => current.done >= 2 && current.waiting + current.active === 0);
      });
      // Ingested in German first; the job that states nothing then finds it unchanged.
      assert.equal((await library.list())[0]?.language, "de");
    } finally {
      await library.close();
      await redis.stop();
    }
  });

  test("a file that is not media fails with INPUT_NOT_MEDIA in the queue status and is not tried again", async () => {
    const redis = await startRedis();
    const library = await openLibrary({ path: join(scratch, "bad"), visual: false, modelsDir: sharedPath("models") });
    try {
      const notes = join(scratch, "notes.mp4");
      writeFileSync(notes, "these are meeting notes, not a video\n".repeat(50));
      const [job] = await enqueueIngest(redis.url, library.path, [notes]);
      assert.ok(job);
      const events = await withWorker(redis.url, library, async () => {
        await waitForQueue(redis.url, (current) => current.failed === 1);
        // Long enough for a retry to have started were one scheduled (the back-off is seconds; BullMQ would show it waiting).
        await delay(500);
      });
      const status = await queueStatus(redis.url);
      assert.deepEqual({ waiting: status.waiting, active: status.active, failed: status.failed, done: status.done }, { waiting: 0, active: 0, failed: 1, done: 0 });
      assert.equal(status.failedJobs[0]?.code, "INPUT_NOT_MEDIA");
      assert.equal(status.failedJobs[0]?.path, notes);
      assert.equal(status.failedJobs[0]?.attempts, 1);
      assert.equal(events.filter((event) => event.type === "job-start").length, 1);
      assert.deepEqual(await library.list(), []);
    } finally {
      await library.close();
      await redis.stop();
    }
  });

  const killCase = (name: string, skip: string | false, location: () => Promise<{ library: string; stop: () => Promise<void> }>) =>
  test(`a worker killed mid-job leaves its job to another worker: every video once, none partial (${name})`, { skip }, async () => {
    const redis = await startRedis();
    const { library: libraryPath, stop } = await location();
    // Created before the workers start, so the test is about the kill, not about two processes creating one library.
    const library = await openLibrary({ path: libraryPath, visual: false, modelsDir: sharedPath("models") });
    const workers: { child: ChildProcess; stderr: string; exited: Promise<number | null> }[] = [];
    try {
      const files = [
        sharedPath("media/subtitled/friday.mp4"),
        sharedPath("media/audio/jfk.wav"),
        sharedPath("media/speech/grid/bbaf2n.mpg"),
        sharedPath("media/speech/grid/brbk7n.mpg"),
      ];
      const jobs = await enqueueIngest(redis.url, libraryPath, files);
      // A dead worker's lock runs out in 2 s and the survivor looks for stalled jobs every second.
      const env = { ...process.env, CI: "1", VIDEORAG_QUEUE_LOCK_SECONDS: "2", VIDEORAG_QUEUE_STALLED_CHECK_SECONDS: "1", VIDEORAG_STATE_DIR: join(scratch, "worker-state") };
      const args = ["worker", "--queue", redis.url, "--library", libraryPath, "--no-visual", "--models-dir", sharedPath("models")];
      let killedJob: string | undefined;
      for (let index = 0; index < 2; index++) {
        const child = spawn(process.execPath, cliArguments(args), { cwd: scratch, env, stdio: ["ignore", "ignore", "pipe"] });
        const worker = { child, stderr: "", exited: new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code))) };
        child.stderr?.on("data", (chunk: Buffer) => {
          worker.stderr += chunk.toString();
          // The first worker to start a job dies in the middle of it, its lock still held.
          const started = /started job (\S+)/.exec(worker.stderr);
          if (started && killedJob === undefined) {
            killedJob = started[1];
            child.kill("SIGKILL");
          }
        });
        workers.push(worker);
      }
      const status = await waitForQueue(redis.url, (current) => current.done + current.failed === files.length && current.waiting + current.active === 0, 180);
      assert.deepEqual({ failed: status.failed, done: status.done, waiting: status.waiting }, { failed: 0, done: 4, waiting: 0 });
      assert.ok(killedJob && jobs.some((job) => job.id === killedJob), "a worker was killed in a job");

      const [first, second] = workers;
      assert.ok(first && second);
      const killed = first.child.signalCode === "SIGKILL" ? first : second;
      const survivor = killed === first ? second : first;
      assert.equal(killed.child.signalCode, "SIGKILL");
      assert.match(survivor.stderr, new RegExp(`done job ${killedJob} `), "the survivor finished the killed worker's job");
      survivor.child.kill("SIGTERM");
      assert.equal(await survivor.exited, 0, survivor.stderr);

      const videos = await library.list();
      assert.deepEqual(videos.map((video) => video.path).sort(), [...files].sort());
      assert.ok(videos.every((video) => video.clipCount > 0), JSON.stringify(videos.map((video) => [video.path, video.clipCount])));
    } finally {
      for (const worker of workers) if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill("SIGKILL");
      await Promise.all(workers.map((worker) => worker.exited));
      await library.close();
      await redis.stop();
      await stop();
    }
  });

  void killCase("SQLite library folder", false, async () => ({ library: join(scratch, "shared-library"), stop: async () => undefined }));
  void killCase("Postgres library", needsPostgres, async () => {
    const server = await startPostgres();
    return { library: await server.createDatabase(), stop: () => server.stop() };
  });
});
