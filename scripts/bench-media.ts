// Media ingest benchmark: x real time for generated 720p videos with sidecar subtitles and OCR, and with pocketsphinx
// instead of subtitles. Each run ingests into a fresh library; medians over the runs are reported.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { openLibrary } from "../src/index.js";
import { needsShared, sharedPath } from "../src/test-support/shared.js";
// @ts-expect-error plain JS helper shared with the demo
import { makeSampleMedia } from "./make-sample-media.mjs";

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

interface Variant {
  name: string;
  inputs: string[];
  options: { ocr: boolean; speech: boolean };
}

async function measure(variant: Variant, runs: number): Promise<Record<string, unknown>> {
  const factors: number[] = [];
  const walls: number[] = [];
  let mediaSeconds = 0;
  let stageSeconds: Record<string, number> = {};
  for (let run = 0; run < runs; run++) {
    const libraryDir = mkdtempSync(join(tmpdir(), "videorag-bench-"));
    const library = await openLibrary({ path: libraryDir, ...variant.options });
    try {
      const report = await library.ingest(variant.inputs);
      if (report.failed > 0) throw new Error(`bench ingest failed: ${JSON.stringify(report.results.filter((result) => result.status === "failed"))}`);
      mediaSeconds = report.hours * 3600;
      walls.push(report.wallSeconds);
      factors.push(mediaSeconds / report.wallSeconds);
      stageSeconds = Object.fromEntries(Object.entries(report.stageSeconds).map(([stage, seconds]) => [stage, Number((seconds ?? 0).toFixed(2))]));
    } finally {
      await library.close();
      rmSync(libraryDir, { recursive: true, force: true });
    }
  }
  return {
    variant: variant.name,
    runs,
    mediaSeconds: Number(mediaSeconds.toFixed(1)),
    medianWallSeconds: Number(median(walls).toFixed(2)),
    medianRealTimeFactor: Number(median(factors).toFixed(1)),
    realTimeFactors: factors.map((factor) => Number(factor.toFixed(1))),
    lastRunStageSeconds: stageSeconds,
  };
}

export async function benchMedia(runs = 3): Promise<Record<string, unknown>[]> {
  const mediaDir = join(tmpdir(), "videorag-bench-media");
  const made: { path: string }[] = makeSampleMedia(mediaDir);
  const subtitled = made.map((video) => video.path).filter((path) => !basename(path).startsWith("harbor"));
  // The same videos without their sidecar subtitles, so speech recognition has to produce the transcript.
  const bare = mkdtempSync(join(tmpdir(), "videorag-bench-bare-"));
  mkdirSync(bare, { recursive: true });
  const bareInputs = subtitled.map((path) => {
    const target = join(bare, basename(path));
    copyFileSync(path, target);
    return target;
  });
  try {
    return [
      await measure({ name: "720p, sidecar subtitles + OCR", inputs: subtitled, options: { ocr: true, speech: true } }, runs),
      await measure({ name: "720p, pocketsphinx (no subtitles) + OCR", inputs: bareInputs, options: { ocr: true, speech: true } }, Math.min(runs, 2)),
      // A real film (cuts, motion, credits) rather than slides; speech off stands for a sidecar subtitle file.
      ...(needsShared
        ? []
        : [await measure({ name: "720p film (Sintel trailer), OCR, speech off", inputs: [sharedPath("media/speech/sintel_trailer-720p.mp4")], options: { ocr: true, speech: false } }, runs)]),
    ];
  } finally {
    rmSync(bare, { recursive: true, force: true });
  }
}
