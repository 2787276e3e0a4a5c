// Frame selection against uniform sampling on real videos from ../shared/media: frames at 1 per second, colour and
// edge features, then for k = 5, 10, 15 the k-means++ key frames and k evenly spaced frames are compared on
// - representation error: the mean distance from every frame's features to the nearest chosen frame's (lower is better);
// - scenes covered: of the shots found by cutting where consecutive frames differ by more than `cutDistance`, how many
//   have a chosen frame (higher is better).
// Run: node --import tsx scripts/bench-frames.ts
import { basename, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { frameFeatures, sampleRgbFrames } from "../src/media/index.js";
import { selectKeyFrames, uniformFrames, type FeatureFrame } from "../src/retrieval/index.js";
import { needsShared, sharedPath } from "../src/test-support/shared.js";

/** Consecutive frames whose features are farther apart than this are a cut (features are L2-normalised). */
const cutDistance = 0.35;
const counts = [5, 10, 15];

const distance = (a: Float32Array, b: Float32Array): number => Math.sqrt(a.reduce((sum, value, index) => sum + (value - (b[index] ?? 0)) ** 2, 0));

function representationError(frames: FeatureFrame[], chosen: FeatureFrame[]): number {
  return frames.reduce((sum, frame) => sum + Math.min(...chosen.map((pick) => distance(frame.vector, pick.vector))), 0) / frames.length;
}

/** The shot each frame belongs to. */
function shots(frames: FeatureFrame[]): number[] {
  let shot = 0;
  return frames.map((frame, index) => (index > 0 && distance(frame.vector, frames[index - 1]?.vector ?? frame.vector) > cutDistance ? ++shot : shot));
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : ((sorted[Math.floor((sorted.length - 1) / 2)] ?? 0) + (sorted[Math.ceil((sorted.length - 1) / 2)] ?? 0)) / 2;
};
const round = (value: number): number => Math.round(value * 1000) / 1000;

export async function benchFrames(): Promise<Record<string, unknown>> {
  if (needsShared) return { skipped: needsShared };
  const videos = [
    "speech/sintel_trailer-720p.mp4",
    "subtitled/popeye_vobsub.mkv",
    "surveillance/one-by-one-person-detection.mp4",
    "surveillance/vtest.avi",
    "surveillance/person-bicycle-car-detection.mp4",
  ].map((path) => sharedPath("media", path));
  const rows: Record<string, unknown>[] = [];
  const errorRatios: number[] = [];
  const coverageRatios: number[] = [];
  let featureMs = 0;
  let clusterMs = 0;
  let frameCount = 0;
  for (const video of videos) {
    const frames: FeatureFrame[] = [];
    for await (const image of sampleRgbFrames(video, { everySeconds: 1, maxSide: 256 })) {
      const started = performance.now();
      frames.push({ timeSecond: image.timeSecond ?? frames.length, vector: frameFeatures(image) });
      featureMs += performance.now() - started;
    }
    frameCount += frames.length;
    const shotOf = shots(frames);
    const shotCount = (shotOf.at(-1) ?? 0) + 1;
    for (const count of counts) {
      const started = performance.now();
      const keys = selectKeyFrames(frames, count);
      clusterMs += performance.now() - started;
      const uniform = uniformFrames(frames, count);
      const covered = (chosen: FeatureFrame[]): number => new Set(chosen.map((frame) => shotOf[frames.indexOf(frame)])).size;
      const row = {
        video: basename(video),
        frames: frames.length,
        shots: shotCount,
        k: count,
        errorKmeans: round(representationError(frames, keys)),
        errorUniform: round(representationError(frames, uniform)),
        shotsKmeans: covered(keys),
        shotsUniform: covered(uniform),
      };
      rows.push(row);
      if (row.errorUniform > 0) errorRatios.push(row.errorKmeans / row.errorUniform);
      if (row.shotsUniform > 0) coverageRatios.push(row.shotsKmeans / row.shotsUniform);
      console.error(JSON.stringify(row));
    }
  }
  return {
    cutDistance,
    rows,
    medianErrorRatioKmeansOverUniform: round(median(errorRatios)),
    medianShotCoverageRatioKmeansOverUniform: round(median(coverageRatios)),
    featureMsPerFrame: round(featureMs / frameCount),
    clusteringMsPerFrame: round(clusterMs / (frameCount * counts.length)),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  console.log(JSON.stringify(await benchFrames(), null, 2));
}
