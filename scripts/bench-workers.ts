// Benchmark of distributed ingest: the media in ../shared ingested by one `videorag worker` process, then by two, from
// a Redis queue into a fresh library each time (a throwaway PostgreSQL database where PostgreSQL is installed, a SQLite
// folder otherwise), against a plain `videorag ingest` of the same files. Reports each run's wall time as x real time
// and the queue's overhead per job (worker run minus plain run, over the jobs).
//
//   npm run bench workers        (about 10 minutes on two cores; needs redis-server)

import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { probeMedia } from "../src/media/index.js";
import { enqueueIngest, queueStatus } from "../src/queue/index.js";
import { cliArguments } from "../src/test-support/cli.js";
import { needsPostgres, startPostgres, type TestPostgres } from "../src/test-support/postgres.js";
import { needsRedis, startRedis } from "../src/test-support/redis.js";
import { sharedDir } from "../src/test-support/shared.js";

const mediaExtensions = /\.(mp4|mkv|mpg|avi|mov|webm|wav|mp3|flac|ogg)$/i;

/** Every media file under a folder, by path. */
function mediaFiles(folder: string): string[] {
  return readdirSync(folder)
    .flatMap((name) => {
      const path = join(folder, name);
      return statSync(path).isDirectory() ? mediaFiles(path) : mediaExtensions.test(name) ? [path] : [];
    })
    .sort();
}

export async function benchWorkers(): Promise<Record<string, unknown>> {
  if (!sharedDir) return { skipped: "../shared (media) is not beside this checkout" };
  if (needsRedis) return { skipped: needsRedis };
  const shared = sharedDir;
  const files = mediaFiles(join(shared, "media"));
  let mediaSeconds = 0;
  for (const file of files) mediaSeconds += (await probeMedia(file)).durationSeconds;
  const scratch = mkdtempSync(join(tmpdir(), "videorag-bench-workers-"));
  const postgres: TestPostgres | undefined = needsPostgres ? undefined : await startPostgres();
  let runs = 0;
  // Each run gets its own local folder: a Postgres library keeps its model-output cache there, and a run must not find
  // the previous run's detections cached.
  const envFor = (run: number) => ({ ...process.env, CI: "1", VIDEORAG_STATE_DIR: join(scratch, `state-${run}`), VIDEORAG_MODELS_DIR: join(shared, "models") });
  const freshLibrary = async (): Promise<string> => (postgres ? postgres.createDatabase() : join(scratch, `library-${++runs}`));
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  try {
    // The plain ingest of the same files: what a worker adds is the queue.
    const plainLibrary = await freshLibrary();
    let started = performance.now();
    const plain = spawnSync(process.execPath, cliArguments(["ingest", "--library", plainLibrary, ...files]), { cwd: scratch, env: envFor(0), encoding: "utf8" });
    if (plain.status !== 0) throw new Error(`videorag ingest failed: ${plain.stderr}`);
    const plainSeconds = (performance.now() - started) / 1000;
    log(`plain ingest: ${plainSeconds.toFixed(1)} s for ${files.length} files, ${mediaSeconds.toFixed(0)} s of media`);

    const byWorkers: Record<string, unknown>[] = [];
    for (const workers of [1, 2]) {
      const redis = await startRedis();
      const library = await freshLibrary();
      try {
        const jobs = await enqueueIngest(redis.url, library, files);
        started = performance.now();
        const children = Array.from({ length: workers }, () =>
          spawn(process.execPath, cliArguments(["worker", "--queue", redis.url, "--library", library]), { cwd: scratch, env: envFor(workers), stdio: "ignore" }),
        );
        for (;;) {
          const status = await queueStatus(redis.url);
          if (status.done + status.failed >= jobs.length && status.waiting + status.active === 0) {
            const seconds = (performance.now() - started) / 1000;
            byWorkers.push({
              workers,
              seconds: Math.round(seconds * 10) / 10,
              xRealTime: Math.round((mediaSeconds / seconds) * 10) / 10,
              failed: status.failed,
              queueOverheadPerJobSeconds: Math.round(((seconds - plainSeconds) / jobs.length) * 100) / 100,
            });
            log(`${workers} worker(s): ${seconds.toFixed(1)} s, ${(mediaSeconds / seconds).toFixed(1)}x real time`);
            break;
          }
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
        for (const child of children) child.kill("SIGTERM");
        await Promise.all(children.map((child) => new Promise((resolve) => (child.exitCode === null ? child.once("exit", resolve) : resolve(null)))));
      } finally {
        await redis.stop();
      }
    }
    return {
      store: postgres ? "postgres" : "sqlite",
      files: files.length,
      mediaSeconds: Math.round(mediaSeconds),
      plain: { seconds: Math.round(plainSeconds * 10) / 10, xRealTime: Math.round((mediaSeconds / plainSeconds) * 10) / 10 },
      byWorkers,
    };
  } finally {
    await postgres?.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}
