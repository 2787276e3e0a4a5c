// Decoded RGB frames for image models (detectors, taggers, image encoders) and JPEG encoding for vision-language
// models. One ffmpeg process streams evenly spaced frames through a pipe; the generator reads them one at a time and
// pauses ffmpeg while the consumer is busy, so a two-hour film costs a few frames of memory, not thousands.

import type { RgbImage } from "../spec/index.js";
import { VideoRagError } from "../spec/index.js";
import { ffmpegPath } from "./ffmpeg-path.js";
import { probeMedia } from "./probe.js";
import { lastMeaningfulLine, runProcess, spawnTied } from "./run-process.js";

/** An RGB frame and the second of the video it shows. */
export interface TimedRgbImage extends RgbImage {
  timeSecond: number;
}

export interface SampleRgbFramesOptions {
  /** Seconds between frames; the first frame is at `startSecond`. Default 2. */
  everySeconds?: number;
  /** Longest side of the returned frames in pixels; smaller videos keep their size. Default 640. */
  maxSide?: number;
  /** Where sampling starts, in seconds from the start of the video. Default 0. */
  startSecond?: number;
  /** Where sampling stops (exclusive). Default: the end of the video. */
  endSecond?: number;
  /**
   * Decode keyframes only: each sampled time shows the last keyframe at or before it. Many times cheaper (nothing
   * between keyframes is decoded), for a light pass that only needs to know roughly what is shown where.
   */
  keyframesOnly?: boolean;
  signal?: AbortSignal;
}

export interface EncodeJpegOptions {
  /** 1 (smallest file) to 100 (best picture), spread evenly over ffmpeg's mjpeg qscale 31..2. Default 85. */
  quality?: number;
  /** Longest side of the JPEG in pixels; smaller images keep their size. Default: the image's own size. */
  maxSide?: number;
  signal?: AbortSignal;
}

// Frames decoded ahead of the consumer: enough to overlap decoding with a model call, few enough to bound memory.
const readAheadFrames = 3;

// ffmpeg's messages for a stream it could not decode, as opposed to a failure of ffmpeg itself.
const undecodable = /Invalid data found|error while decoding|corrupt|Error splitting the input|decode_slice_header error/i;

/**
 * Frames every `everySeconds` from `startSecond` (default 0) up to `endSecond` (default the end), scaled so their
 * longer side is at most `maxSide` with even dimensions. A file without a picture yields nothing.
 * Fails with the probe's INPUT_* codes, INPUT_CORRUPT when the picture cannot be decoded, TOOL_FAILED otherwise.
 */
export async function* sampleRgbFrames(path: string, options: SampleRgbFramesOptions = {}): AsyncGenerator<TimedRgbImage> {
  const everySeconds = options.everySeconds ?? 2;
  const maxSide = options.maxSide ?? 640;
  const startSecond = options.startSecond ?? 0;
  if (!(everySeconds >= 0.001)) throw new VideoRagError("ARGUMENT_INVALID", `everySeconds must be at least 0.001, not ${everySeconds}`);
  if (!(maxSide >= 16)) throw new VideoRagError("ARGUMENT_INVALID", `maxSide must be at least 16 pixels, not ${maxSide}`);
  if (!(startSecond >= 0)) throw new VideoRagError("ARGUMENT_INVALID", `startSecond must be >= 0, not ${startSecond}`);
  if (options.endSecond !== undefined && !(options.endSecond > startSecond)) {
    throw new VideoRagError("ARGUMENT_INVALID", `endSecond (${options.endSecond}) must be after startSecond (${startSecond})`);
  }

  const [info, rotation] = await Promise.all([probeMedia(path, { signal: options.signal }), readDisplayRotation(path, options.signal)]);
  if (!info.hasVideo || !info.width || !info.height) return;
  const endSecond = Math.min(options.endSecond ?? Number.POSITIVE_INFINITY, info.durationSeconds || Number.POSITIVE_INFINITY);
  if (endSecond <= startSecond) return;
  // ffmpeg turns phone videos upright as it decodes: a quarter turn swaps the stored width and height.
  const quarterTurn = Math.abs(Math.round(rotation / 90)) % 2 === 1;
  const { width, height } = quarterTurn
    ? fitWithin(info.height, info.width, maxSide)
    : fitWithin(info.width, info.height, maxSide);

  // Millisecond rationals: the fps filter parses "1000/2500" exactly where "1/2.5" is not a valid rate.
  const frameRate = `1000/${Math.round(everySeconds * 1000)}`;
  const args = [
    "-hide_banner", "-nostdin", "-nostats", "-v", "error",
    ...(options.keyframesOnly ? ["-skip_frame", "nokey"] : []),
    ...(startSecond > 0 ? ["-ss", String(startSecond)] : []),
    ...(Number.isFinite(endSecond) ? ["-t", String(endSecond - startSecond)] : []),
    "-i", ffmpegPath(path),
    "-map", "0:V:0",
    // start_time=0 pins the fps filter's grid to the (seeked) start, so frame n is at startSecond + n·everySeconds
    // even when the picture starts a little late. An explicit size keeps every frame exactly one chunk long.
    "-vf", `fps=fps=${frameRate}:start_time=0,scale=${width}:${height}`,
    "-fps_mode", "passthrough",
    "-pix_fmt", "rgb24", "-f", "rawvideo", "pipe:1",
  ];
  const frameBytes = width * height * 3;
  let index = 0;
  for await (const data of streamFixedChunks("ffmpeg", args, frameBytes, path, options.signal)) {
    // Rounded to the millisecond so 0.1 + 2·0.2 reads 0.5, not 0.5000000000000001.
    const timeSecond = Math.round((startSecond + index * everySeconds) * 1000) / 1000;
    index++;
    yield { width, height, data, timeSecond };
  }
}

/** JPEG bytes of `image` (for models that take encoded images), shrunk to `maxSide` when given. */
export async function encodeJpeg(image: RgbImage, options: EncodeJpegOptions = {}): Promise<Buffer> {
  checkRgbImage(image);
  const quality = options.quality ?? 85;
  if (!(quality >= 1 && quality <= 100)) throw new VideoRagError("ARGUMENT_INVALID", `quality must be 1..100, not ${quality}`);
  if (options.maxSide !== undefined && !(options.maxSide >= 16)) {
    throw new VideoRagError("ARGUMENT_INVALID", `maxSide must be at least 16 pixels, not ${options.maxSide}`);
  }
  const size = options.maxSide === undefined ? image : fitWithin(image.width, image.height, options.maxSide);
  const qscale = Math.round(2 + ((100 - quality) * 29) / 99);
  const scale = size.width === image.width && size.height === image.height ? [] : ["-vf", `scale=${size.width}:${size.height}:flags=area`];
  const { stdout } = await runProcess(
    "ffmpeg",
    [
      "-hide_banner", "-nostdin", "-v", "error",
      "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", `${image.width}x${image.height}`, "-i", "pipe:0",
      ...scale,
      "-frames:v", "1", "-c:v", "mjpeg", "-q:v", String(qscale), "-pix_fmt", "yuvj420p", "-f", "image2pipe", "pipe:1",
    ],
    { input: Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength), signal: options.signal },
  );
  if (stdout.length < 4 || stdout[0] !== 0xff || stdout[1] !== 0xd8) {
    throw new VideoRagError("TOOL_FAILED", "ffmpeg did not write a JPEG image");
  }
  return stdout;
}

/** The size that fits `width` x `height` within `maxSide` keeping the aspect, both sides even and at least 2. */
export function fitWithin(width: number, height: number, maxSide: number): { width: number; height: number } {
  const scale = Math.min(1, maxSide / Math.max(width, height));
  const even = (value: number): number => Math.max(2, 2 * Math.round((value * scale) / 2));
  // Rounding up to even may step one pixel past maxSide; the longer side is pinned below it instead.
  const limit = 2 * Math.floor(maxSide / 2);
  return { width: Math.min(even(width), Math.max(2, limit)), height: Math.min(even(height), Math.max(2, limit)) };
}

/**
 * Degrees the picture is turned for display (phone videos: 90 or -90), 0 when it is stored upright.
 * MediaInfo does not carry this yet; once probeMedia reports it, this second ffprobe can go.
 */
async function readDisplayRotation(path: string, signal: AbortSignal | undefined): Promise<number> {
  // Failures are left to probeMedia, which classifies them.
  const result = await runProcess(
    "ffprobe",
    [
      "-v", "error", "-select_streams", "V:0",
      "-show_entries", "stream_side_data=rotation:stream_tags=rotate", "-of", "json", ffmpegPath(path),
    ],
    { signal, allowFailure: true },
  );
  if (result.exitCode !== 0) return 0;
  try {
    const output = JSON.parse(result.stdout.toString("utf8")) as {
      streams?: { side_data_list?: { rotation?: number | string }[]; tags?: { rotate?: string } }[];
    };
    const stream = output.streams?.[0];
    const rotation = Number(stream?.side_data_list?.find((entry) => entry.rotation !== undefined)?.rotation ?? stream?.tags?.rotate ?? 0);
    return Number.isFinite(rotation) ? rotation : 0;
  } catch {
    return 0;
  }
}

function checkRgbImage(image: RgbImage): void {
  if (!(Number.isInteger(image.width) && Number.isInteger(image.height) && image.width > 0 && image.height > 0)) {
    throw new VideoRagError("ARGUMENT_INVALID", `an image needs a positive whole width and height, not ${image.width}x${image.height}`);
  }
  if (image.data.length !== image.width * image.height * 3) {
    throw new VideoRagError(
      "ARGUMENT_INVALID",
      `a ${image.width}x${image.height} RGB image has ${image.width * image.height * 3} bytes, not ${image.data.length}`,
    );
  }
}

/**
 * Runs `program` and yields its stdout cut into `chunkBytes`-long pieces, pausing the program's output while more
 * than `readAheadFrames` pieces wait. Ending the loop early stops the program.
 */
async function* streamFixedChunks(
  program: string,
  args: string[],
  chunkBytes: number,
  subject: string,
  signal: AbortSignal | undefined,
): AsyncGenerator<Uint8Array> {
  if (signal?.aborted) throw interrupted(signal);
  const child = spawnTied(program, args, { stdio: ["ignore", "pipe", "pipe"] });
  const ready: Uint8Array[] = [];
  let pending = Buffer.allocUnsafe(chunkBytes);
  let filled = 0;
  let failure: VideoRagError | undefined;
  let exited = false;
  let stderr = "";
  let wake: (() => void) | undefined;
  const notify = (): void => {
    wake?.();
    wake = undefined;
  };

  child.stdout.on("data", (chunk: Buffer) => {
    let offset = 0;
    while (offset < chunk.length) {
      const copied = chunk.copy(pending, filled, offset, Math.min(chunk.length, offset + chunkBytes - filled));
      filled += copied;
      offset += copied;
      if (filled === chunkBytes) {
        ready.push(pending);
        pending = Buffer.allocUnsafe(chunkBytes);
        filled = 0;
      }
    }
    if (ready.length >= readAheadFrames) child.stdout.pause();
    notify();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    // The tail explains a failure; a damaged file can log without end.
    stderr = (stderr + chunk.toString("utf8")).slice(-64 * 1024);
  });
  child.on("error", (error: NodeJS.ErrnoException) => {
    failure =
      error.code === "ENOENT"
        ? new VideoRagError("TOOL_MISSING", `${program} is not installed (apt-get install ffmpeg)`, { cause: error })
        : new VideoRagError("TOOL_FAILED", `${program} could not be started: ${error.message}`, { cause: error });
    exited = true;
    notify();
  });
  child.on("close", (code, killedBy) => {
    if (code !== 0 && !failure) {
      const why = lastMeaningfulLine(stderr) || (killedBy ? `killed by ${killedBy}` : `exit status ${code}`);
      failure = undecodable.test(stderr)
        ? new VideoRagError("INPUT_CORRUPT", `the video cannot be decoded (${why})`, { subject })
        : new VideoRagError("TOOL_FAILED", `${program} failed: ${why}`, { subject });
    }
    exited = true;
    notify();
  });
  const onAbort = (): void => {
    failure ??= interrupted(signal);
    child.kill("SIGKILL");
    notify();
  };
  signal?.addEventListener("abort", onAbort, { once: true });

  try {
    for (;;) {
      if (signal?.aborted) throw interrupted(signal);
      const next = ready.shift();
      if (next) {
        if (ready.length < readAheadFrames) child.stdout.resume();
        yield next;
        continue;
      }
      if (failure) throw failure;
      if (exited) return;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
}

function interrupted(signal: AbortSignal | undefined): VideoRagError {
  return new VideoRagError("INTERRUPTED", "ffmpeg was stopped: the work was cancelled", { cause: signal?.reason });
}
