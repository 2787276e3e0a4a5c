import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { VideoRagError } from "../spec/index.js";
import { needsShared, sharedPath } from "../test-support/shared.js";
import { encodeJpeg, fitWithin, sampleRgbFrames, type TimedRgbImage } from "./rgb-frames.js";
import { runProcess } from "./run-process.js";

const dir = mkdtempSync(join(tmpdir(), "videorag-rgb-frames-test-"));
const file = (name: string): string => join(dir, name);
const ffmpeg = (...args: string[]) => runProcess("ffmpeg", ["-hide_banner", "-nostdin", "-v", "error", "-y", ...args]);

before(async () => {
  // Two seconds each of red, blue and green, so a frame's colour tells which second it came from.
  const colour = (name: string): string[] => ["-f", "lavfi", "-i", `color=c=${name}:size=320x240:rate=25:duration=2`];
  await ffmpeg(...colour("red"), ...colour("blue"), ...colour("lime"), "-filter_complex", "[0:v][1:v][2:v]concat=n=3:v=1[v]",
    "-map", "[v]", "-c:v", "libx264", "-pix_fmt", "yuv420p", file("colours.mp4"));
  await ffmpeg("-f", "lavfi", "-i", "sine=sample_rate=16000:duration=2", file("audio.m4a"));
  // Stored 320 x 180, shown turned a quarter, as phones record portrait video.
  await ffmpeg("-f", "lavfi", "-i", "testsrc=size=320x180:rate=5:duration=3", "-c:v", "libx264", "-pix_fmt", "yuv420p", file("landscape.mp4"));
  await ffmpeg("-i", file("landscape.mp4"), "-c", "copy", "-metadata:s:v:0", "rotate=90", file("portrait.mp4"));
  // Long enough that ffmpeg is still writing when the reader stops.
  await ffmpeg("-f", "lavfi", "-i", "testsrc=size=160x120:rate=5:duration=120", "-c:v", "libx264", "-pix_fmt", "yuv420p", file("long.mp4"));
});

after(() => rmSync(dir, { recursive: true, force: true }));

async function collect(frames: AsyncIterable<TimedRgbImage>): Promise<TimedRgbImage[]> {
  const all: TimedRgbImage[] = [];
  for await (const frame of frames) all.push(frame);
  return all;
}

/** The RGB value at the centre of the frame. */
function centre(frame: TimedRgbImage): [number, number, number] {
  const offset = (Math.floor(frame.height / 2) * frame.width + Math.floor(frame.width / 2)) * 3;
  return [frame.data[offset] ?? -1, frame.data[offset + 1] ?? -1, frame.data[offset + 2] ?? -1];
}

function assertColour(actual: [number, number, number], expected: [number, number, number], at: number): void {
  assert.ok(
    actual.every((value, channel) => Math.abs(value - (expected[channel] ?? 0)) <= 12),
    `frame at ${at} s is ${actual.join(",")}, expected about ${expected.join(",")}`,
  );
}

function jpegSize(jpeg: Buffer): { width: number; height: number } {
  // Walks the marker segments to the start-of-frame, which holds the size.
  let offset = 2;
  while (offset + 9 < jpeg.length) {
    const marker = jpeg.readUInt16BE(offset);
    if (marker === 0xffc0 || marker === 0xffc2) return { height: jpeg.readUInt16BE(offset + 5), width: jpeg.readUInt16BE(offset + 7) };
    offset += 2 + jpeg.readUInt16BE(offset + 2);
  }
  throw new Error("no start-of-frame marker");
}

test("frames every 2 s, in RGB order, at the times they show", async () => {
  const frames = await collect(sampleRgbFrames(file("colours.mp4"), { maxSide: 160 }));
  assert.deepEqual(frames.map((frame) => frame.timeSecond), [0, 2, 4]);
  for (const frame of frames) {
    assert.deepEqual([frame.width, frame.height], [160, 120]);
    assert.equal(frame.data.length, 160 * 120 * 3);
  }
  assertColour(centre(frames[0] as TimedRgbImage), [255, 0, 0], 0);
  assertColour(centre(frames[1] as TimedRgbImage), [0, 0, 255], 2);
  assertColour(centre(frames[2] as TimedRgbImage), [0, 255, 0], 4);
});

test("startSecond and endSecond bound the frames, and everySeconds spaces them", async () => {
  const frames = await collect(sampleRgbFrames(file("colours.mp4"), { everySeconds: 0.5, startSecond: 1.5, endSecond: 4.5 }));
  assert.deepEqual(frames.map((frame) => frame.timeSecond), [1.5, 2, 2.5, 3, 3.5, 4]);
  // The video is smaller than maxSide: it keeps its size.
  assert.deepEqual([frames[0]?.width, frames[0]?.height], [320, 240]);
  assertColour(centre(frames[0] as TimedRgbImage), [255, 0, 0], 1.5);
  assertColour(centre(frames[3] as TimedRgbImage), [0, 0, 255], 3);
  assertColour(centre(frames[5] as TimedRgbImage), [0, 255, 0], 4);
});

test("a video stored turned a quarter comes out upright, its sides swapped", async () => {
  const frames = await collect(sampleRgbFrames(file("portrait.mp4"), { maxSide: 160 }));
  assert.deepEqual(frames.map((frame) => [frame.timeSecond, frame.width, frame.height]), [[0, 90, 160], [2, 90, 160]]);
});

test("stopping early or aborting ends ffmpeg; an aborted run fails with INTERRUPTED", async () => {
  for await (const frame of sampleRgbFrames(file("long.mp4"), { everySeconds: 0.2 })) {
    assert.equal(frame.timeSecond, 0);
    break;
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
  const children = await runProcess("ps", ["-o", "comm=", "--ppid", String(process.pid)]);
  assert.doesNotMatch(children.stdout.toString("utf8"), /ffmpeg/);
  const controller = new AbortController();
  await assert.rejects(
    async () => {
      for await (const _frame of sampleRgbFrames(file("colours.mp4"), { everySeconds: 0.5, signal: controller.signal })) controller.abort();
    },
    (error: unknown) => VideoRagError.isInstance(error) && error.code === "INTERRUPTED",
  );
});

test("a file without a picture yields no frames; a missing file and bad options fail with their codes", async () => {
  assert.deepEqual(await collect(sampleRgbFrames(file("audio.m4a"))), []);
  await assert.rejects(
    collect(sampleRgbFrames(file("missing.mp4"))),
    (error: unknown) => VideoRagError.isInstance(error) && error.code === "INPUT_NOT_FOUND",
  );
  await assert.rejects(
    collect(sampleRgbFrames(file("colours.mp4"), { everySeconds: 0 })),
    (error: unknown) => VideoRagError.isInstance(error) && error.code === "ARGUMENT_INVALID",
  );
  await assert.rejects(
    collect(sampleRgbFrames(file("colours.mp4"), { startSecond: 3, endSecond: 2 })),
    (error: unknown) => VideoRagError.isInstance(error) && error.code === "ARGUMENT_INVALID",
  );
});

test("fitWithin keeps the aspect, shrinks only, and makes both sides even", () => {
  assert.deepEqual(fitWithin(768, 432, 640), { width: 640, height: 360 });
  assert.deepEqual(fitWithin(1080, 1920, 640), { width: 360, height: 640 });
  assert.deepEqual(fitWithin(320, 240, 640), { width: 320, height: 240 });
  assert.deepEqual(fitWithin(321, 241, 640), { width: 322, height: 242 });
  assert.deepEqual(fitWithin(1001, 1001, 640), { width: 640, height: 640 });
});

test("encodeJpeg writes a JPEG of the image, shrunk to maxSide", async () => {
  const [frame] = await collect(sampleRgbFrames(file("colours.mp4"), { endSecond: 1 }));
  assert.ok(frame);
  const jpeg = await encodeJpeg(frame);
  assert.deepEqual([...jpeg.subarray(0, 2)], [0xff, 0xd8]);
  assert.deepEqual([...jpeg.subarray(-2)], [0xff, 0xd9]);
  assert.deepEqual(jpegSize(jpeg), { width: 320, height: 240 });
  const small = await encodeJpeg(frame, { maxSide: 100, quality: 50 });
  assert.deepEqual(jpegSize(small), { width: 100, height: 76 });
  await assert.rejects(
    encodeJpeg({ width: 10, height: 10, data: new Uint8Array(10) }),
    (error: unknown) => VideoRagError.isInstance(error) && error.code === "ARGUMENT_INVALID",
  );
});

test("car-detection.mp4: 15 frames at 0, 2, ... 28 s, 640x360", { skip: needsShared }, async () => {
  const frames = await collect(sampleRgbFrames(sharedPath("media/surveillance/car-detection.mp4")));
  assert.equal(frames.length, 15);
  frames.forEach((frame, position) => {
    assert.ok(Math.abs(frame.timeSecond - position * 2) < 0.05, `frame ${position} at ${frame.timeSecond} s`);
    assert.deepEqual([frame.width, frame.height, frame.data.length], [640, 360, 640 * 360 * 3]);
  });
  const jpeg = await encodeJpeg(frames[3] as TimedRgbImage, { maxSide: 320 });
  assert.deepEqual([...jpeg.subarray(0, 2)], [0xff, 0xd8]);
  assert.deepEqual(jpegSize(jpeg), { width: 320, height: 180 });
});
