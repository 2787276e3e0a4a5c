// Benchmark of merging entities by name vector in a large graph: a library holding `entities` entities with 384-d name
// vectors takes more videos, each naming 20 entities (half of them new spellings of stored ones, a cosine distance of
// 0.03 away; half new), once comparing every new name with every stored vector and once only with those sharing a
// locality-sensitive bucket. Reports the commit time of each and how many of the new spellings each merged.
//
//   npm run bench entities        (ENTITIES=30000 by default)

import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { VideoContent } from "../src/spec/index.js";
import { openSqliteStore } from "../src/store/index.js";
import { seededRandom } from "./seeded-random.js";

const dimensions = 384;
const namesPerVideo = 20;
const measuredVideos = 20;
const space = "entity:bench";


function unit(values: Float32Array): Float32Array {
  let norm = 0;
  for (const value of values) norm += value * value;
  norm = Math.sqrt(norm);
  return values.map((value) => value / norm);
}

/** `vector` turned by the angle whose cosine is 1 − distance, towards a random direction. */
function nearby(vector: Float32Array, distance: number, next: () => number): Float32Array {
  const noise = unit(Float32Array.from({ length: dimensions }, next));
  const angle = Math.acos(1 - distance);
  return unit(vector.map((value, index) => Math.cos(angle) * value + Math.sin(angle) * (noise[index] as number)));
}

/** A one-clip video whose one chunk names these entities, each with its name vector. */
function graphVideo(id: string, names: string[], vectors: Float32Array[]): VideoContent {
  const text = `${id} words`;
  return {
    video: { id, path: `/bench/${id}.mp4`, title: id, durationSeconds: 30, kind: "media", sizeBytes: 1, hasAudio: true, hasVideo: true, timesEstimated: false },
    clips: [{ videoId: id, index: 0, startSecond: 0, endSecond: 30, transcript: text, screen: "", visual: "" }],
    segments: [],
    frames: [],
    fingerprint: id,
    graph: {
      extractor: "bench@1",
      chunks: [{ index: 0, clipStart: 0, clipEnd: 0, startSecond: 0, endSecond: 30, text, tokenCount: 2 }],
      extractions: [{ chunkIndex: 0, entities: names.map((name) => ({ name, nameKey: name, type: "concept", description: "" })), relations: [] }],
      entityVectors: names.map((name, index) => ({ nameKey: name, vector: vectors[index] as Float32Array })),
      entityVectorSpace: space,
    },
  };
}

const percentile = (values: number[], fraction: number): number =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * fraction))] ?? Number.NaN;
const round = (value: number): number => Math.round(value * 10) / 10;

/** Runs anywhere: the benchmark makes its own vectors and needs nothing from ../shared. */
export async function benchEntities(entityCount = Number(process.env.ENTITIES ?? 30_000), log: (line: string) => void = (line) => console.error(line)): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), "videorag-bench-entities-"));
  try {
    const next = seededRandom(42);
    const stored = Array.from({ length: entityCount }, () => unit(Float32Array.from({ length: dimensions }, next)));
    const prefilled = join(dir, "prefilled.sqlite");
    // Filled through the buckets: filling through the exact comparison is the quadratic cost being measured.
    const filling = openSqliteStore(prefilled);
    const started = performance.now();
    for (let first = 0, video = 0; first < entityCount; first += 100, video++) {
      const vectors = stored.slice(first, first + 100);
      await filling.commitVideo(graphVideo(`stored-${video}`, vectors.map((_, index) => `stored entity ${first + index}`), vectors));
    }
    const fillSeconds = round((performance.now() - started) / 1000);
    const entities = (await filling.graphStats()).entities;
    await filling.close();
    log(`filled ${entities} entities in ${fillSeconds} s`);

    const arrivals = Array.from({ length: measuredVideos }, (_, video) => {
      const names: string[] = [];
      const vectors: Float32Array[] = [];
      const respelled: [string, string][] = [];
      for (let index = 0; index < namesPerVideo; index++) {
        if (index % 2 === 0) {
          const original = Math.floor((next() + 0.5) * entityCount);
          names.push(`respelled ${video}-${index}`);
          vectors.push(nearby(stored[original] as Float32Array, 0.03, next));
          respelled.push([`respelled ${video}-${index}`, `stored entity ${original}`]);
        } else {
          names.push(`new ${video}-${index}`);
          vectors.push(unit(Float32Array.from({ length: dimensions }, next)));
        }
      }
      return { content: graphVideo(`arrival-${video}`, names, vectors), respelled };
    });

    const run = async (label: string, exactMergeScanLimit: number) => {
      const path = join(dir, `${label}.sqlite`);
      copyFileSync(prefilled, path);
      const store = openSqliteStore(path, { exactMergeScanLimit });
      try {
        const times: number[] = [];
        let merged = 0;
        let respelledCount = 0;
        for (const arrival of arrivals) {
          const begun = performance.now();
          await store.commitVideo(arrival.content);
          times.push(performance.now() - begun);
          for (const [name, original] of arrival.respelled) {
            respelledCount++;
            if ((await store.getEntity(name))?.key === (await store.getEntity(original))?.key) merged++;
          }
        }
        const row = { commitP50Ms: round(percentile(times, 0.5)), commitP95Ms: round(percentile(times, 0.95)), respelledMerged: `${merged}/${respelledCount}`, entitiesAfter: (await store.graphStats()).entities };
        log(`${label}: ${JSON.stringify(row)}`);
        return row;
      } finally {
        await store.close();
      }
    };
    const exact = await run("exact", Number.POSITIVE_INFINITY);
    const bucketed = await run("bucketed", 0);
    return { entities, dimensions, namesPerCommit: namesPerVideo, fillSeconds, exact, bucketed, commitSpeedup: round(exact.commitP50Ms / bucketed.commitP50Ms) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
