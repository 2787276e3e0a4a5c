// Frame selection against uniform sampling on real videos from ../shared/media: frames at 1 per second (longer side
// 256 px), colour and edge features, then for k = 5, 10, 15 the k-means++ key frames and k evenly spaced frames are
// compared on
// - representation error: the mean distance from every frame's features to the nearest chosen frame's (lower is better);
// - scenes covered: of the shots found by cutting where consecutive frames differ by more than `cutDistance`, how many
//   have a chosen frame (higher is better).
// Each ratio is k-means++ ÷ uniform: below 1 is better for error, above 1 better for scenes.
// Run: node --import tsx scripts/bench-frames.ts (or `npm run bench frames` for the JSON alone)
import { basename, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { frameFeatures, sampleRgbFrames } from "../src/media/index.js";
import { selectKeyFrames, uniformFrames, type FeatureFrame } from "../src/retrieval/index.js";
import { needsShared, sharedPath } from "../src/test-support/shared.js";

/**
 * Consecutive frames whose features are farther apart than this start a new scene. Calibrated on the Sintel trailer at
 * 1 frame per second with its cuts marked by eye (28 cuts, 17 steps within a shot): 0.35 misjudges 3 of the 45, a cut
 * between two shots of the same sunset city and the two seconds in which the title fades in over the desert; 0.3 or
 * 0.4 misjudge more.
 */
const cutDistance = 0.35;
const defaultVideos = [
  "speech/sintel_trailer-720p.mp4",
  "subtitled/popeye_vobsub.mkv",
  "surveillance/one-by-one-person-detection.mp4",
  "surveillance/vtest.avi",
  "surveillance/person-bicycle-car-detection.mp4",
];

export interface BenchFramesOptions {
  /** Videos to run. Default five clips of ../shared/media: a trailer, a cartoon and three fixed cameras. */
  videos?: string[];
  /** Frames to choose. Default 5, 10 and 15 (a vision-language model takes about 15). */
  counts?: number[];
}

/** One video and one k. */
export interface FramesBenchRow {
  video: string;
  frames: number;
  scenes: number;
  k: number;
  errorKmeans: number;
  errorUniform: number;
  /** errorKmeans ÷ errorUniform: below 1 means the key frames stand for the video better. */
  errorRatio: number;
  scenesKmeans: number;
  scenesUniform: number;
  /** scenesKmeans ÷ scenesUniform: above 1 means the key frames miss fewer scenes. */
  scenesRatio: number;
}

export type FramesBenchReport =
  | { skipped: string }
  | {
      cutDistance: number;
      rows: FramesBenchRow[];
      medianErrorRatio: number;
      medianScenesRatio: number;
      /** Computing one frame's features (decoding not included). */
      featureMsPerFrame: number;
      /** One k-means++ selection's time divided by the frames it chose from. */
      clusteringMsPerFrame: number;
    };

const distance = (a: Float32Array, b: Float32Array): number => Math.sqrt(a.reduce((sum, value, index) => sum + (value - (b[index] ?? 0)) ** 2, 0));

function representationError(frames: FeatureFrame[], chosen: FeatureFrame[]): number {
  return frames.reduce((sum, frame) => sum + Math.min(...chosen.map((pick) => distance(frame.vector, pick.vector))), 0) / frames.length;
}

/** The scene each frame belongs to. */
function scenes(frames: FeatureFrame[]): number[] {
  let scene = 0;
  return frames.map((frame, index) => (index > 0 && distance(frame.vector, frames[index - 1]?.vector ?? frame.vector) > cutDistance ? ++scene : scene));
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : ((sorted[Math.floor((sorted.length - 1) / 2)] ?? 0) + (sorted[Math.ceil((sorted.length - 1) / 2)] ?? 0)) / 2;
};
const round = (value: number): number => Math.round(value * 1000) / 1000;

export async function benchFrames(options: BenchFramesOptions = {}): Promise<FramesBenchReport> {
  if (needsShared && !options.videos) return { skipped: needsShared };
  const videos = options.videos ?? defaultVideos.map((path) => sharedPath("media", path));
  const counts = options.counts ?? [5, 10, 15];
  const rows: FramesBenchRow[] = [];
  let featureMs = 0;
  let clusterMs = 0;
  let clusteredFrames = 0;
  let frameCount = 0;
  for (const video of videos) {
    const frames: FeatureFrame[] = [];
    for await (const image of sampleRgbFrames(video, { everySeconds: 1, maxSide: 256 })) {
      const started = performance.now();
      frames.push({ timeSecond: image.timeSecond, vector: frameFeatures(image) });
      featureMs += performance.now() - started;
    }
    frameCount += frames.length;
    const sceneOf = scenes(frames);
    const covered = (chosen: FeatureFrame[]): number => new Set(chosen.map((frame) => sceneOf[frames.indexOf(frame)])).size;
    for (const count of counts) {
      const started = performance.now();
      const keys = selectKeyFrames(frames, count);
      clusterMs += performance.now() - started;
      clusteredFrames += frames.length;
      const uniform = uniformFrames(frames, count);
      const errorKmeans = representationError(frames, keys);
      const errorUniform = representationError(frames, uniform);
      const scenesKmeans = covered(keys);
      const scenesUniform = covered(uniform);
      rows.push({
        video: basename(video),
        frames: frames.length,
        scenes: (sceneOf.at(-1) ?? 0) + 1,
        k: count,
        errorKmeans: round(errorKmeans),
        errorUniform: round(errorUniform),
        errorRatio: round(errorUniform > 0 ? errorKmeans / errorUniform : 1),
        scenesKmeans,
        scenesUniform,
        scenesRatio: round(scenesUniform > 0 ? scenesKmeans / scenesUniform : 1),
      });
    }
  }
  return {
    cutDistance,
    rows,
    medianErrorRatio: round(median(rows.map((row) => row.errorRatio))),
    medianScenesRatio: round(median(rows.map((row) => row.scenesRatio))),
    featureMsPerFrame: round(featureMs / Math.max(1, frameCount)),
    clusteringMsPerFrame: round(clusterMs / Math.max(1, clusteredFrames)),
  };
}

function printReport(report: FramesBenchReport): void {
  if ("skipped" in report) {
    console.log(`skipped: ${report.skipped}`);
    return;
  }
  console.log(`scenes cut where consecutive features differ by more than ${report.cutDistance}; ratios are k-means++ ÷ uniform`);
  console.log(["video", "frames", "scenes", "k", "error k-means", "error uniform", "error ratio", "scenes k-means", "scenes uniform", "scenes ratio"].join("\t"));
  for (const row of report.rows) {
    console.log(
      [row.video, row.frames, row.scenes, row.k, row.errorKmeans, row.errorUniform, row.errorRatio, row.scenesKmeans, row.scenesUniform, row.scenesRatio].join("\t"),
    );
  }
  console.log(`median error ratio ${report.medianErrorRatio} (below 1: k-means++ better), median scenes ratio ${report.medianScenesRatio} (above 1: better)`);
  console.log(`features ${report.featureMsPerFrame} ms per frame, k-means++ selection ${report.clusteringMsPerFrame} ms per frame`);
  console.log(JSON.stringify(report, null, 2));
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  printReport(await benchFrames());
}
