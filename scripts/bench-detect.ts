// Object detection and tagging speed on the surveillance clips in ../shared: one frame every 2 s through the YOLOX
// detector and the MobileNet tagger, timed per model and end to end (decoding included) as x real time.
// Run: node --import tsx scripts/bench-detect.ts [--threads N]
import { availableParallelism } from "node:os";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";
import { probeMedia } from "../src/media/probe.js";
import { sampleRgbFrames } from "../src/media/rgb-frames.js";
import { createMobilenetTagger, createYoloxDetector } from "../src/providers/onnx/index.js";
import { needsShared, sharedPath } from "../src/test-support/shared.js";

export interface BenchDetectOptions {
  /** Folder with yolox_nano.onnx, mobilenetv2-12-int8.onnx and their label files. Default ../shared/models. */
  modelsDir?: string;
  /** Videos to run. Default the four surveillance clips in ../shared/media/surveillance. */
  videos?: string[];
  /** Seconds between sampled frames. Default 2. */
  everySeconds?: number;
  /** onnxruntime intra-op threads per model. Default: onnxruntime's choice. */
  intraOpThreads?: number;
}

/** Timings for one video. */
export interface DetectBenchResult {
  video: string;
  durationSeconds: number;
  frames: number;
  detectorMsPerFrameMedian: number;
  taggerMsPerFrameMedian: number;
  /** Frames through decoding, detector and tagger per second of wall time. */
  framesPerSecond: number;
  wallSeconds: number;
  /** Video duration ÷ wall time, decoding included. */
  realTimeFactor: number;
  /** For each label, how many frames it was detected in. */
  labelFrames: Record<string, number>;
}

export interface DetectBenchReport {
  cpus: number;
  intraOpThreads: number | "default";
  /** Loading both models and one warm-up call each, before the timed runs. */
  loadMilliseconds: number;
  results: DetectBenchResult[];
}

const defaultClips = ["car-detection", "person-bicycle-car-detection", "one-by-one-person-detection", "bottle-detection"];

export async function benchDetect(options: BenchDetectOptions = {}): Promise<DetectBenchReport> {
  if (needsShared && (!options.modelsDir || !options.videos)) throw new Error(`bench-detect needs ${String(needsShared)}`);
  const modelsDir = options.modelsDir ?? sharedPath("models");
  const videos = options.videos ?? defaultClips.map((clip) => sharedPath("media", "surveillance", `${clip}.mp4`));
  const everySeconds = options.everySeconds ?? 2;
  const detector = createYoloxDetector({
    modelPath: join(modelsDir, "yolox_nano.onnx"),
    labelsPath: join(modelsDir, "coco_labels.txt"),
    intraOpThreads: options.intraOpThreads,
  });
  const tagger = createMobilenetTagger({
    modelPath: join(modelsDir, "mobilenetv2-12-int8.onnx"),
    labelsPath: join(modelsDir, "imagenet_labels.txt"),
    intraOpThreads: options.intraOpThreads,
  });

  const loadStart = performance.now();
  const blank = { width: 64, height: 64, data: new Uint8Array(64 * 64 * 3) };
  await detector.detect([blank]);
  await tagger.tag([blank]);
  const loadMilliseconds = performance.now() - loadStart;

  const results: DetectBenchResult[] = [];
  for (const video of videos) {
    const start = performance.now();
    const detectorMs: number[] = [];
    const taggerMs: number[] = [];
    const labelFrames: Record<string, number> = {};
    for await (const frame of sampleRgbFrames(video, { everySeconds })) {
      const detectStart = performance.now();
      const [detections = []] = await detector.detect([frame]);
      const tagStart = performance.now();
      await tagger.tag([frame]);
      taggerMs.push(performance.now() - tagStart);
      detectorMs.push(tagStart - detectStart);
      for (const label of new Set(detections.map((detection) => detection.label))) labelFrames[label] = (labelFrames[label] ?? 0) + 1;
    }
    const wallSeconds = (performance.now() - start) / 1000;
    // Probed after the timed run so the figure is the video's length, not part of the work measured.
    const { durationSeconds } = await probeMedia(video);
    results.push({
      video: basename(video),
      durationSeconds: round(durationSeconds, 1),
      frames: detectorMs.length,
      detectorMsPerFrameMedian: round(median(detectorMs), 1),
      taggerMsPerFrameMedian: round(median(taggerMs), 1),
      framesPerSecond: round(detectorMs.length / wallSeconds, 1),
      wallSeconds: round(wallSeconds, 2),
      realTimeFactor: round(durationSeconds / wallSeconds, 1),
      labelFrames: Object.fromEntries(Object.entries(labelFrames).sort((a, b) => b[1] - a[1])),
    });
  }
  return {
    cpus: availableParallelism(),
    intraOpThreads: options.intraOpThreads ?? "default",
    loadMilliseconds: round(loadMilliseconds, 0),
    results,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

function printReport(report: DetectBenchReport): void {
  console.log(`cpus ${report.cpus}, intra-op threads ${report.intraOpThreads}, model load + warm-up ${report.loadMilliseconds} ms`);
  console.log(["video", "seconds", "frames", "detect ms", "tag ms", "frames/s", "x real time"].join("\t"));
  for (const result of report.results) {
    console.log(
      [
        result.video,
        result.durationSeconds,
        result.frames,
        result.detectorMsPerFrameMedian,
        result.taggerMsPerFrameMedian,
        result.framesPerSecond,
        result.realTimeFactor,
      ].join("\t"),
    );
  }
  const totalSeconds = report.results.reduce((sum, result) => sum + result.durationSeconds, 0);
  const totalWall = report.results.reduce((sum, result) => sum + result.wallSeconds, 0);
  console.log(`all videos: ${round(totalSeconds, 1)} s of video in ${round(totalWall, 2)} s = ${round(totalSeconds / totalWall, 1)}x real time`);
  console.log(JSON.stringify(report, null, 2));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const threadsFlag = process.argv.indexOf("--threads");
  const intraOpThreads = threadsFlag > 0 ? Number(process.argv[threadsFlag + 1]) : undefined;
  printReport(await benchDetect({ intraOpThreads }));
}
