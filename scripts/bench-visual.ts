// Ingest speed with the detector and tagger on, as x real time over the surveillance clips in ../shared, and the output
// cache: a second ingest of the same videos with the same models must make zero model calls.
// Run: npm run bench visual   (BENCH_RUNS=3 by default; each run ingests into a fresh library)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLibrary } from "../src/library.js";
import { needsShared, sharedPath } from "../src/test-support/shared.js";

const clips = ["car-detection.mp4", "person-bicycle-car-detection.mp4", "one-by-one-person-detection.mp4", "bottle-detection.mp4"];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

interface Profile {
  name: string;
  ocr: boolean;
  speech: boolean;
}

async function ingestOnce(path: string, profile: Profile, videos: string[]) {
  const library = await openLibrary({ path, modelsDir: sharedPath("models"), ocr: profile.ocr, speech: profile.speech });
  try {
    const report = await library.ingest(videos);
    const stats = await library.modelStats();
    const calls = Object.values(stats).reduce((sum, model) => sum + model.calls, 0);
    const cacheHits = Object.values(stats).reduce((sum, model) => sum + model.cacheHits, 0);
    const seconds = report.results.reduce((sum, result) => sum + result.durationSeconds, 0);
    return { report, calls, cacheHits, seconds, stats, providers: report.providers ?? [] };
  } finally {
    await library.close();
  }
}

export async function benchVisual(runs = 3) {
  if (needsShared) return { skipped: needsShared };
  const videos = clips.map((clip) => sharedPath("media/surveillance", clip));
  const profiles: Profile[] = [
    { name: "detection only (OCR and speech off)", ocr: false, speech: false },
    { name: "full lite profile (OCR, pocketsphinx, detection)", ocr: true, speech: true },
  ];
  const results = [];
  for (const profile of profiles) {
    const first: number[] = [];
    const second: number[] = [];
    let secondCalls = 0;
    let detail: Record<string, unknown> = {};
    for (let run = 0; run < runs; run++) {
      const scratch = mkdtempSync(join(tmpdir(), "videorag-bench-visual-"));
      try {
        const path = join(scratch, "library");
        const cold = await ingestOnce(path, profile, videos);
        first.push(cold.seconds / cold.report.wallSeconds);
        // Same library, videos removed and ingested again: every model output comes from the cache.
        const library = await openLibrary({ path, modelsDir: sharedPath("models"), ocr: profile.ocr, speech: profile.speech });
        for (const video of await library.list()) await library.remove(video.id);
        await library.close();
        const warm = await ingestOnce(path, profile, videos);
        second.push(warm.seconds / warm.report.wallSeconds);
        secondCalls += warm.calls;
        detail = { videoSeconds: Number(cold.seconds.toFixed(1)), stageSeconds: cold.report.stageSeconds, firstCalls: cold.calls, secondCalls: warm.calls, secondCacheHits: warm.cacheHits, providers: cold.providers };
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }
      console.error(`${profile.name}: run ${run + 1}: ${first.at(-1)?.toFixed(1)}x cold, ${second.at(-1)?.toFixed(1)}x from the cache`);
    }
    results.push({
      profile: profile.name,
      xRealTimeMedian: Number(median(first).toFixed(1)),
      xRealTimeRuns: first.map((value) => Number(value.toFixed(1))),
      cachedXRealTimeMedian: Number(median(second).toFixed(1)),
      modelCallsOnSecondIngest: secondCalls,
      ...detail,
    });
  }
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await benchVisual(Number(process.env.BENCH_RUNS ?? 3)), null, 2));
}
