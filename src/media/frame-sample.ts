// Samples the frames worth reading for screen text, without decoding the whole video: keyframes (encoders put many
// of them at scene cuts, which is where slides change) plus frames seeked into any longer stretch between them.
// One ffprobe lists keyframes from packet flags (no decoding). ffmpeg then decodes keyframes only, and for each long
// stretch seeks into it, which decodes from the keyframe before it; those seeked inputs are spread over two processes
// run side by side, a few inputs each, since every input holds a decoder in memory. Containers that cannot seek to a
// keyframe (MPEG-TS/PS) are instead decoded in one pass that skips the frames nothing refers to.

import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { VideoRagError } from "../spec/index.js";
import { ffmpegPath } from "./ffmpeg-path.js";
import { encodeGrayPng, shrinkGray, type GrayImage } from "./gray-image.js";
import { runProcess } from "./run-process.js";

/** A sampled frame: its time, an image to read text from, and a tiny thumbnail to tell frames apart. */
export interface SampledFrame {
  timeSecond: number;
  /** Grayscale PNG, at most `width` pixels wide. */
  image: Buffer;
  /** `thumbnailWidth` x `thumbnailHeight` grayscale pixels, row by row, for `frameHash`. */
  thumbnail: Uint8Array;
  /**
   * `detailWidth` x `detailHeight` grayscale pixels, for `sameScreen`: fine enough to see a line of text change where
   * the thumbnail's 72 pixels cannot (two slides of one layout hash alike).
   */
  detail: Uint8Array;
}

export interface SampleFramesOptions {
  /** Longest stretch of video without a sampled frame. */
  maxGapSeconds?: number;
  /** Widest image returned; smaller videos keep their size. */
  width?: number;
  /** The video's duration when already probed; read from the file otherwise. */
  durationSeconds?: number;
  /**
   * Keyframes only, no frames seeked into the stretches between them (`sampleGapFrames` fills those later, where they
   * are needed): the cheap pass a light index makes to see where the picture changes.
   */
  keyframesOnly?: boolean;
  /** Thumbnails only (`image` left empty): for telling frames apart, not reading them. */
  thumbnailsOnly?: boolean;
  /** Where the frames are written while they are read (the library's per-process scratch); default the system's temp folder. */
  scratchDir?: string;
  signal?: AbortSignal;
}

export const thumbnailWidth = 9;
export const thumbnailHeight = 8;
export const detailWidth = 128;
export const detailHeight = 72;
// A detail pixel (a 10 x 10 box of a 720p frame) has changed when its mean moved by more than this: the few levels
// of an encoder's re-quantisation of a still picture stay under it, a word's strokes appearing or going pass it.
const changedLevels = 24;
// Two frames show the same screen while at most this many detail pixels changed: a ticking clock or a cursor, not a
// new line of text (a word of 48-pixel type covers twenty or more).
const sameScreenChangedPixels = 8;

/** Evenly spaced frames inside one stretch between keyframes, decoded by one seeked ffmpeg input. */
interface FillRun {
  /** Where decoding really starts: the keyframe before the run. */
  decodeFromSecond: number;
  startSecond: number;
  spacingSeconds: number;
  count: number;
}

interface KeyframeIndex {
  hasVideo: boolean;
  /** ffprobe's demuxer name, e.g. "mov,mp4,m4a,3gp,3g2,mj2". */
  formatName: string;
  width: number;
  height: number;
  durationSeconds: number;
  /** Time of the last video packet. */
  lastFrameSecond: number;
  frameRate: number | undefined;
  keyframeSeconds: number[];
}

// Each seeked input keeps a decoder (about 20 MB at 720p); this bounds one process's memory.
const maxRunsPerProcess = 6;
const parallelProcesses = 2;
// Demuxers that seek through an index to a keyframe.
const indexedContainer = /mov|mp4|matroska|webm|avi|asf|flv|nut|mxf/;

/** Frames sorted by time: keyframes, and frames seeked into every stretch longer than `maxGapSeconds`. */
export async function sampleFrames(path: string, options: SampleFramesOptions = {}): Promise<SampledFrame[]> {
  const maxGapSeconds = options.maxGapSeconds ?? 5;
  const width = options.width ?? 1280;
  if (!(maxGapSeconds > 0)) throw new VideoRagError("ARGUMENT_INVALID", `maxGapSeconds must be > 0, not ${maxGapSeconds}`);
  if (!(width >= 16)) throw new VideoRagError("ARGUMENT_INVALID", `width must be at least 16 pixels, not ${width}`);

  const index = await readKeyframeIndex(path, options.signal);
  if (!index.hasVideo) return [];
  // The picture may stop before the file does (a subtitle or audio track running on); seeking past it finds nothing.
  const durationSeconds = Math.min(options.durationSeconds ?? index.durationSeconds, index.lastFrameSecond);
  // Encoders that place keyframes every second or two (and intra-only codecs, every frame) would double or worse the
  // frames sampled, and so the OCR work, without showing anything the half-gap spacing misses for long.
  const minSpacingSeconds = maxGapSeconds / 2;
  // Containers without an index (MPEG-TS, MPEG-PS, raw streams) seek to a byte guess, not to a keyframe, and decode
  // garbage or nothing from there; for those one pass decodes the reference frames and picks samples on the way.
  const seekable = indexedContainer.test(index.formatName);
  const keyframes = thinTimes(index.keyframeSeconds, minSpacingSeconds);
  const batches = seekable && !options.keyframesOnly ? assignToProcesses(planFillRuns(keyframes, durationSeconds, maxGapSeconds)) : [[]];
  const scan: Scan = seekable
    ? { inputOptions: ["-skip_frame", "nokey"], select: spacedSelect(minSpacingSeconds) }
    : { inputOptions: ["-skip_frame", "noref"], select: keyframeOrGapSelect(minSpacingSeconds, aimSeconds(maxGapSeconds)) };
  // A fixed output size lets keyframes stream through a pipe, cut into frames by length, however many there are.
  const outputWidth = Math.min(width, index.width);
  const outputHeight = Math.max(1, Math.round((index.height * outputWidth) / index.width));

  const sampled = await decodeBatches(path, batches, {
    scan,
    // Enough past a run's last target to meet a frame: a few frame durations.
    marginSeconds: Math.max(0.25, 4 / (index.frameRate ?? 25)),
    width: outputWidth,
    height: outputHeight,
    scratchDir: options.scratchDir,
    thumbnailsOnly: options.thumbnailsOnly,
    signal: options.signal,
  });
  return sampled.filter((frame, position) => position === 0 || frame.timeSecond - (sampled[position - 1]?.timeSecond ?? 0) > 0.01);
}

/**
 * Decodes batches of runs (the first also scanning keyframes when `scan` is given), two processes side by side, in a
 * scratch folder removed after; the frames sorted by time.
 */
async function decodeBatches(
  path: string,
  batches: FillRun[][],
  options: Omit<BatchOptions, "runs" | "outputPrefix" | "scan"> & { scan?: Scan; scratchDir: string | undefined },
): Promise<SampledFrame[]> {
  const workDir = await mkdtemp(join(options.scratchDir ?? tmpdir(), "videorag-frames-"));
  try {
    const sampled: SampledFrame[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < batches.length) {
        const batchIndex = next++;
        const frames = await decodeBatch(path, {
          runs: batches[batchIndex] ?? [],
          scan: batchIndex === 0 ? options.scan : undefined,
          marginSeconds: options.marginSeconds,
          width: options.width,
          height: options.height,
          outputPrefix: join(workDir, `batch${batchIndex}-`),
          thumbnailsOnly: options.thumbnailsOnly,
          signal: options.signal,
        });
        sampled.push(...frames);
      }
    };
    await Promise.all(Array.from({ length: Math.min(parallelProcesses, batches.length) }, worker));
    return sampled.sort((a, b) => a.timeSecond - b.timeSecond);
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

export interface SampleGapFramesOptions {
  /** Frames already sampled in the stretch (keyframes), by time; the gaps between them are filled. */
  anchorSeconds: number[];
  startSecond: number;
  endSecond: number;
  maxGapSeconds: number;
  /** The video's picture size, and the widest image returned. */
  videoWidth: number;
  videoHeight: number;
  width?: number;
  /** Where the frames are written while they are read; default the system's temp folder. */
  scratchDir?: string;
  /** Decode the anchors too (the light index kept only their times and hashes): to compare and read every frame. */
  anchorsToo?: boolean;
  signal?: AbortSignal;
}

/**
 * Frames seeked into every stretch of [startSecond, endSecond) longer than `maxGapSeconds` without an anchor: what
 * `sampleFrames` adds between keyframes, for one stretch of a video (a clip whose screen text is read later).
 */
export async function sampleGapFrames(path: string, options: SampleGapFramesOptions): Promise<SampledFrame[]> {
  const { startSecond, endSecond, maxGapSeconds } = options;
  if (!(maxGapSeconds > 0)) throw new VideoRagError("ARGUMENT_INVALID", `maxGapSeconds must be > 0, not ${maxGapSeconds}`);
  if (!(endSecond > startSecond)) return [];
  const anchors = options.anchorSeconds.filter((second) => second >= startSecond && second < endSecond).sort((a, b) => a - b);
  // The stretch's start counts as an anchor when a frame sits there; planFillRuns fills from 0 otherwise.
  const relative = anchors.map((second) => second - startSecond);
  const runs = planFillRuns(relative, endSecond - startSecond, maxGapSeconds).map((run) => ({
    decodeFromSecond: run.decodeFromSecond + startSecond,
    startSecond: run.startSecond + startSecond,
    spacingSeconds: run.spacingSeconds,
    count: run.count,
  }));
  // An anchor is a keyframe: seeking to it decodes that one frame.
  if (options.anchorsToo) runs.push(...anchors.map((second) => ({ decodeFromSecond: second, startSecond: second, spacingSeconds: maxGapSeconds, count: 1 })));
  if (runs.length === 0) return [];
  const outputWidth = Math.min(options.width ?? 1280, options.videoWidth);
  const outputHeight = Math.max(1, Math.round((options.videoHeight * outputWidth) / options.videoWidth));
  // Anchors cost no seeking, so several can land in one process and leave another with nothing to do.
  const batches = assignToProcesses(runs).filter((batch) => batch.length > 0);
  const frames = await decodeBatches(path, batches, {
    marginSeconds: 0.25,
    width: outputWidth,
    height: outputHeight,
    scratchDir: options.scratchDir,
    signal: options.signal,
  });
  return frames.filter((frame) => frame.timeSecond < endSecond);
}

/**
 * One frame at `second` as a grayscale PNG at most `width` pixels wide (smaller videos keep their size): what OCR reads
 * when the light index kept only the frame's time and hash. An accurate seek, decoding from the keyframe before it.
 * INPUT_CORRUPT when no frame comes out there, TOOL_FAILED when ffmpeg fails.
 */
export async function grayFrameAt(path: string, second: number, options: { width?: number; signal?: AbortSignal } = {}): Promise<Buffer> {
  const width = options.width ?? 1280;
  if (!(second >= 0)) throw new VideoRagError("ARGUMENT_INVALID", `second must be >= 0, not ${second}`);
  const result = await runProcess(
    "ffmpeg",
    [
      "-hide_banner", "-nostdin", "-nostats", "-v", "error",
      "-ss", seconds(second), "-i", ffmpegPath(path),
      "-map", "0:V:0", "-frames:v", "1",
      "-vf", `scale='min(${width},iw)':-2,format=gray`,
      "-c:v", "png", "-f", "image2pipe", "pipe:1",
    ],
    { signal: options.signal, allowFailure: true },
  );
  if (result.exitCode !== 0) {
    throw new VideoRagError("TOOL_FAILED", `ffmpeg could not decode the frame at ${second} s: ${result.stderr.trim().split("\n").at(-1) ?? ""}`, { subject: path });
  }
  if (result.stdout.length === 0) throw new VideoRagError("INPUT_CORRUPT", `no frame could be decoded at ${second} s`, { subject: path });
  return result.stdout;
}

/** A pass over the whole video, streamed through stdout: its decoder options and the frames it keeps. */
interface Scan {
  inputOptions: string[];
  select: string;
}

interface BatchOptions {
  /** Skip the PNG: only the thumbnails (hashes) are wanted. */
  thumbnailsOnly?: boolean;
  runs: FillRun[];
  scan: Scan | undefined;
  marginSeconds: number;
  width: number;
  height: number;
  outputPrefix: string;
  signal: AbortSignal | undefined;
}

/**
 * One ffmpeg process: optionally a scan of the whole video (its keyframes), streamed through stdout and encoded as
 * frames arrive (a long film has thousands), plus the given runs, each a few frames written raw to a file.
 */
async function decodeBatch(path: string, batch: BatchOptions): Promise<SampledFrame[]> {
  const input = ffmpegPath(path);
  const frameSize = batch.width * batch.height;
  const scale = `scale=${batch.width}:${batch.height},format=gray`;
  const args = ["-hide_banner", "-nostdin", "-nostats", "-loglevel", "info", "-copyts", "-start_at_zero"];
  const chains: string[] = [];
  const outputs: string[] = [];
  let inputIndex = 0;
  if (batch.scan) {
    args.push(...batch.scan.inputOptions, "-i", input);
    chains.push(`[${inputIndex++}:V:0]${batch.scan.select},${scale},showinfo@scan[scan]`);
    outputs.push("-map", "[scan]", "-fps_mode", "passthrough", "-f", "rawvideo", "-");
  }
  batch.runs.forEach((run, position) => {
    const spanSeconds = (run.count - 1) * run.spacingSeconds + batch.marginSeconds;
    // Skipping frames nothing refers to leaves every other frame exact; skipping more (B-frames, deblocking) smears
    // the picture where the encoder referenced them. One decoder thread: the parallelism is across processes.
    args.push("-threads", "1", "-skip_frame", "noref", "-ss", seconds(run.startSecond), "-t", seconds(spanSeconds), "-i", input);
    const targets = `select='gte(t\\,${seconds(run.startSecond)}+selected_n*${seconds(run.spacingSeconds)})'`;
    chains.push(`[${inputIndex++}:V:0]${targets},${scale},showinfo@fill${position}[fill${position}]`);
    outputs.push("-map", `[fill${position}]`, "-frames:v", String(run.count), "-fps_mode", "passthrough", "-f", "rawvideo");
    outputs.push(`${batch.outputPrefix}fill${position}.gray`);
  });
  args.push("-filter_complex", chains.join(";"), ...outputs);

  const scanned: Promise<Omit<SampledFrame, "timeSecond">>[] = [];
  const pending = Buffer.alloc(frameSize);
  let filled = 0;
  const result = await runProcess("ffmpeg", args, {
    signal: batch.signal,
    onStdout: (chunk) => {
      let offset = 0;
      while (offset < chunk.length) {
        const copied = chunk.copy(pending, filled, offset, Math.min(chunk.length, offset + frameSize - filled));
        filled += copied;
        offset += copied;
        if (filled === frameSize) {
          scanned.push(encodeFrame({ width: batch.width, height: batch.height, pixels: Uint8Array.from(pending) }, batch.thumbnailsOnly));
          filled = 0;
        }
      }
    },
  });

  // Times are in the log, in the order the frames were written; a frame logged but not written was cut off.
  const shown = parseShowinfo(result.stderr);
  const frames: Promise<SampledFrame>[] = scanned.map(async (frame, position) => ({ timeSecond: shown.get("scan")?.[position] ?? Number.NaN, ...(await frame) }));
  for (let position = 0; position < batch.runs.length; position++) {
    const times = shown.get(`fill${position}`) ?? [];
    if (times.length === 0) continue;
    const raw = await readFile(`${batch.outputPrefix}fill${position}.gray`);
    for (let offset = 0, frame = 0; offset + frameSize <= raw.length && frame < times.length; offset += frameSize, frame++) {
      const image = { width: batch.width, height: batch.height, pixels: raw.subarray(offset, offset + frameSize) };
      frames.push(encodeFrame(image, batch.thumbnailsOnly).then((encoded) => ({ timeSecond: times[frame] ?? Number.NaN, ...encoded })));
    }
  }
  return (await Promise.all(frames)).filter((frame) => Number.isFinite(frame.timeSecond));
}

async function encodeFrame(image: GrayImage, thumbnailOnly = false): Promise<Omit<SampledFrame, "timeSecond">> {
  return {
    image: thumbnailOnly ? Buffer.alloc(0) : await encodeGrayPng(image),
    thumbnail: shrinkGray(image, thumbnailWidth, thumbnailHeight).pixels,
    detail: shrinkGray(image, detailWidth, detailHeight).pixels,
  };
}

/** Passes the first frame, then each frame at least `minSeconds` after the last one passed. */
function spacedSelect(minSeconds: number): string {
  return `select='isnan(prev_selected_t)+gte(t-prev_selected_t\\,${seconds(minSeconds)})'`;
}

/** Passes the first frame, then a keyframe `minSeconds` after the last one passed, or any frame `maxSeconds` after. */
function keyframeOrGapSelect(minSeconds: number, maxSeconds: number): string {
  const since = "t-prev_selected_t";
  return `select='isnan(prev_selected_t)+key*gte(${since}\\,${seconds(minSeconds)})+gte(${since}\\,${seconds(maxSeconds)})'`;
}

/** Splits runs over processes so their decoding work (seconds from the keyframe before each run) is even. */
function assignToProcesses(runs: FillRun[]): FillRun[][] {
  const count = Math.max(Math.min(parallelProcesses, runs.length), Math.ceil(runs.length / maxRunsPerProcess), 1);
  const batches: { runs: FillRun[]; work: number }[] = Array.from({ length: count }, () => ({ runs: [], work: 0 }));
  const work = (run: FillRun): number => run.startSecond + (run.count - 1) * run.spacingSeconds - run.decodeFromSecond;
  for (const run of [...runs].sort((a, b) => work(b) - work(a))) {
    const open = batches.filter((batch) => batch.runs.length < maxRunsPerProcess);
    const lightest = open.reduce((best, batch) => (batch.work < best.work ? batch : best), open[0] ?? { runs: [], work: 0 });
    lightest.runs.push(run);
    lightest.work += work(run);
  }
  return batches.map((batch) => batch.runs.sort((a, b) => a.startSecond - b.startSecond));
}

/** 64-bit difference hash of a 9x8 thumbnail as 16 hex characters: bit set where a pixel is brighter than its right neighbour. */
export function frameHash(thumbnail: Uint8Array): string {
  if (thumbnail.length !== thumbnailWidth * thumbnailHeight) {
    throw new VideoRagError("ARGUMENT_INVALID", `a thumbnail has ${thumbnailWidth * thumbnailHeight} pixels, not ${thumbnail.length}`);
  }
  let hex = "";
  for (let y = 0; y < thumbnailHeight; y++) {
    let byte = 0;
    for (let x = 0; x < thumbnailWidth - 1; x++) {
      const left = thumbnail[y * thumbnailWidth + x] ?? 0;
      const right = thumbnail[y * thumbnailWidth + x + 1] ?? 0;
      byte = (byte << 1) | (left > right ? 1 : 0);
    }
    hex += byte.toString(16).padStart(2, "0");
  }
  return hex;
}

/**
 * True when two frames' `detail` pixels show the same screen: all but a handful within a few levels. Unlike the hash,
 * this tells one slide from the next when only their words differ.
 */
export function sameScreen(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== detailWidth * detailHeight || b.length !== a.length) {
    throw new VideoRagError("ARGUMENT_INVALID", `frame details have ${detailWidth * detailHeight} pixels, not ${a.length} and ${b.length}`);
  }
  let changed = 0;
  for (let index = 0; index < a.length; index++) {
    if (Math.abs((a[index] ?? 0) - (b[index] ?? 0)) > changedLevels && ++changed > sameScreenChangedPixels) return false;
  }
  return true;
}

/** Number of differing bits between two `frameHash` values: 0 for the same picture, around 32 for unrelated ones. */
export function hashDistance(a: string, b: string): number {
  if (a.length !== b.length || !/^[0-9a-f]*$/i.test(a + b)) {
    throw new VideoRagError("ARGUMENT_INVALID", `frame hashes must be hex strings of equal length ("${a}", "${b}")`);
  }
  let distance = 0;
  for (let position = 0; position < a.length; position++) {
    let bits = parseInt(a[position] ?? "0", 16) ^ parseInt(b[position] ?? "0", 16);
    while (bits) {
      distance += bits & 1;
      bits >>= 1;
    }
  }
  return distance;
}

/**
 * Runs of frames so that no stretch between samples, or from the last one to the end, exceeds `maxGapSeconds`.
 * Within a stretch the fills end a gap before the next keyframe and are spread evenly up to there: every second
 * further into the stretch is a second more to decode from the keyframe before it.
 */
function planFillRuns(keyframes: number[], endSecond: number, maxGapSeconds: number): FillRun[] {
  const aim = aimSeconds(maxGapSeconds);
  const runs: FillRun[] = [];
  const first = keyframes[0];
  // A video that does not start on a keyframe (or lists none) gets frames from its very start.
  if (first === undefined || first > Math.min(0.5, maxGapSeconds)) {
    const stretch = first ?? endSecond;
    const count = Math.max(1, Math.ceil(stretch / aim));
    runs.push({ decodeFromSecond: 0, startSecond: 0, spacingSeconds: stretch / count, count });
  }
  const anchors = [...keyframes, endSecond];
  for (let position = 0; position + 1 < anchors.length; position++) {
    const from = anchors[position] ?? 0;
    const stretch = (anchors[position + 1] ?? 0) - from;
    if (stretch <= maxGapSeconds) continue;
    const count = Math.ceil(stretch / aim) - 1;
    const spacingSeconds = (stretch - aim) / count;
    runs.push({ decodeFromSecond: from, startSecond: from + spacingSeconds, spacingSeconds, count });
  }
  return runs;
}

/** A sampled frame lands up to a frame after its target; aiming a little short keeps every gap within the limit. */
function aimSeconds(maxGapSeconds: number): number {
  return maxGapSeconds - Math.min(0.1, maxGapSeconds / 10);
}

/** Keeps times at least `minSpacingSeconds` after the last one kept, as the key chain's `select` does. */
function thinTimes(times: number[], minSpacingSeconds: number): number[] {
  const kept: number[] = [];
  for (const time of times) {
    const last = kept.at(-1);
    if (last === undefined || time - last >= minSpacingSeconds) kept.push(time);
  }
  return kept;
}

async function readKeyframeIndex(path: string, signal: AbortSignal | undefined): Promise<KeyframeIndex> {
  const result = await runProcess(
    "ffprobe",
    [
      "-v", "error",
      "-select_streams", "V:0",
      "-show_entries", "packet=pts_time,dts_time,flags:stream=width,height,avg_frame_rate:format=format_name,duration,start_time",
      "-of", "json",
      ffmpegPath(path),
    ],
    { signal },
  );
  const output = JSON.parse(result.stdout.toString("utf8")) as {
    packets?: { pts_time?: string; dts_time?: string; flags?: string }[];
    streams?: { width?: number; height?: number; avg_frame_rate?: string }[];
    format?: { format_name?: string; duration?: string; start_time?: string };
  };
  const packets = output.packets ?? [];
  const startSecond = Number(output.format?.start_time) || 0;
  const packetSecond = (packet: { pts_time?: string; dts_time?: string }): number =>
    Number(packet.pts_time !== undefined && packet.pts_time !== "N/A" ? packet.pts_time : packet.dts_time) - startSecond;
  const keyframeSeconds = packets
    .filter((packet) => packet.flags?.startsWith("K"))
    .map(packetSecond)
    .filter((time) => Number.isFinite(time) && time >= 0)
    .sort((a, b) => a - b);
  const lastFrameSecond = packets.reduce((latest, packet) => {
    const time = packetSecond(packet);
    return Number.isFinite(time) && time > latest ? time : latest;
  }, 0);
  const durationSeconds = Number(output.format?.duration);
  const stream = output.streams?.[0];
  const [numerator, denominator] = (stream?.avg_frame_rate ?? "").split("/").map(Number);
  return {
    hasVideo: packets.length > 0 && Boolean(stream?.width && stream.height),
    formatName: output.format?.format_name ?? "",
    width: stream?.width ?? 0,
    height: stream?.height ?? 0,
    durationSeconds: Number.isFinite(durationSeconds) ? durationSeconds : lastFrameSecond,
    lastFrameSecond,
    frameRate: numerator && denominator ? numerator / denominator : undefined,
    keyframeSeconds,
  };
}

/** Times of the frames each labelled `showinfo@<label>` filter passed, in order. */
function parseShowinfo(stderr: string): Map<string, number[]> {
  const shown = new Map<string, number[]>();
  for (const match of stderr.matchAll(/^\[showinfo@(\w+) @ [^\]]+\] n:\s*\d+ pts:\s*-?\d+\s+pts_time:(-?[\d.e+-]+)\s/gm)) {
    const [, label = "", time = ""] = match;
    const times = shown.get(label) ?? [];
    times.push(Number(time));
    shown.set(label, times);
  }
  return shown;
}

/** Whole milliseconds, rounded down so a frame exactly at a target is not missed by rounding. */
function seconds(value: number): string {
  return (Math.floor(value * 1000) / 1000).toFixed(3);
}
