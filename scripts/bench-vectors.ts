// Vector store benchmark: inserts 100k random 384-d clip vectors into a fresh SQLite library, then reports the median
// (p50) of 20 exact `searchVectors` calls with limit 20. `--compare` also times the same search on a sqlite-vec vec0
// table, the alternative weighed in src/store/sqlite/sqlite-schema.ts.
//   node --import tsx scripts/bench-vectors.ts [--compare] [--vectors 100000] [--dimensions 384]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import type { VectorRecord, VideoContent } from "../src/spec/index.js";
import { openSqliteStore } from "../src/store/index.js";
import { seededRandom } from "./seeded-random.js";

const argument = (name: string, fallback: number): number => {
  const index = process.argv.indexOf(name);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
};
const vectorCount = argument("--vectors", 100_000);
const dimensions = argument("--dimensions", 384);
const clipsPerVideo = 100;
const queryCount = 20;
const limit = 20;
const space = "text:bench";


function randomVectors(count: number, seed: number): Float32Array[] {
  const next = seededRandom(seed);
  return Array.from({ length: count }, () => Float32Array.from({ length: dimensions }, next));
}

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

function videoContent(id: string, clipCount: number): VideoContent {
  return {
    video: {
      id,
      path: `/bench/${id}.mp4`,
      title: id,
      durationSeconds: clipCount * 30,
      kind: "media",
      sizeBytes: 1,
      hasAudio: true,
      hasVideo: true,
      timesEstimated: false,
    },
    clips: Array.from({ length: clipCount }, (_, index) => ({
      videoId: id,
      index,
      startSecond: index * 30,
      endSecond: index * 30 + 30,
      transcript: `clip ${index}`,
      screen: "",
      visual: "",
    })),
    segments: [],
    frames: [],
    fingerprint: id,
  };
}

const timeMs = (work: () => void): number => {
  const started = performance.now();
  work();
  return performance.now() - started;
};

const timeMsAsync = async (work: () => Promise<void>): Promise<number> => {
  const started = performance.now();
  await work();
  return performance.now() - started;
};

const round = (value: number): number => Number(value.toFixed(1));

const dir = mkdtempSync(join(tmpdir(), "videorag-bench-vectors-"));
try {
  const vectors = randomVectors(vectorCount, 42);
  const queries = randomVectors(queryCount, 7);
  const videoCount = Math.ceil(vectorCount / clipsPerVideo);
  const videoId = (index: number): string => `video-${String(index).padStart(5, "0")}`;

  const store = openSqliteStore(join(dir, "library.sqlite"));
  for (let video = 0; video < videoCount; video++) {
    await store.commitVideo(videoContent(videoId(video), Math.min(clipsPerVideo, vectorCount - video * clipsPerVideo)));
  }
  const insertMs = await timeMsAsync(async () => {
    for (let video = 0; video < videoCount; video++) {
      const id = videoId(video);
      const records: VectorRecord[] = vectors
        .slice(video * clipsPerVideo, (video + 1) * clipsPerVideo)
        .map((vector, clipIndex) => ({ space, owner: "clip", videoId: id, clipIndex, vector }));
      await store.addVectors(id, records);
    }
  });
  const searchTimes = async (options: { videoIds?: string[] } = {}): Promise<{ times: number[]; top: string[] }> => {
    const top: string[] = [];
    const times: number[] = [];
    for (const vector of queries) {
      times.push(
        await timeMsAsync(async () => {
          const [best] = await store.searchVectors({ space, vector, limit, ...options });
          top.push(`${best?.videoId}/${best?.clipIndex}`);
        }),
      );
    }
    return { times, top };
  };
  await searchTimes(); // warm the page cache, as a library in use would be
  const all = await searchTimes();
  const someVideos = await searchTimes({ videoIds: Array.from({ length: 10 }, (_, index) => videoId(index * 7)) });
  const result: Record<string, unknown> = {
    vectors: await store.vectorCount(),
    dimensions,
    insertSeconds: round(insertMs / 1000),
    insertedPerSecond: Math.round(vectorCount / (insertMs / 1000)),
    searchP50Ms: round(percentile(all.times, 0.5)),
    searchP90Ms: round(percentile(all.times, 0.9)),
    searchTenVideosP50Ms: round(percentile(someVideos.times, 0.5)),
  };
  await store.close();

  if (process.argv.includes("--compare")) {
    const db = new Database(join(dir, "vec0.sqlite"));
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    sqliteVec.load(db);
    db.exec(`CREATE VIRTUAL TABLE vec_bench USING vec0 (vector float[${dimensions}] distance_metric=cosine,
      video_key integer, owner text, +clip_index integer, +time_second float)`);
    const insert = db.prepare(`INSERT INTO vec_bench (vector, video_key, owner, clip_index) VALUES (?, ?, 'clip', ?)`);
    const bytes = (vector: Float32Array): Buffer => Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
    const vec0InsertMs = timeMs(() =>
      db.transaction(() =>
        vectors.forEach((vector, index) =>
          insert.run(bytes(vector), BigInt(Math.floor(index / clipsPerVideo)), BigInt(index % clipsPerVideo)),
        ),
      )(),
    );
    const search = db.prepare(`SELECT video_key, clip_index, distance FROM vec_bench WHERE vector MATCH ? AND k = ?`);
    const run = (): { times: number[]; top: string[] } => {
      const top: string[] = [];
      const times = queries.map((vector) =>
        timeMs(() => {
          const [best] = search.all(bytes(vector), limit) as { video_key: number; clip_index: number }[];
          top.push(`${videoId(best?.video_key ?? -1)}/${best?.clip_index}`);
        }),
      );
      return { times, top };
    };
    run();
    const vec0 = run();
    db.close();
    result.vec0 = {
      insertSeconds: round(vec0InsertMs / 1000),
      searchP50Ms: round(percentile(vec0.times, 0.5)),
      searchP90Ms: round(percentile(vec0.times, 0.9)),
      sameNearest: vec0.top.every((key, index) => key === all.top[index]),
    };
  }
  console.log(JSON.stringify(result, null, 2));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
