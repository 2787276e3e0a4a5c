import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { VideoRagError } from "../spec/index.js";
import { needsShared, sharedPath } from "../test-support/shared.js";
import { frameHash, hashDistance, sameScreen, sampleFrames, sampleGapFrames, thumbnailHeight, thumbnailWidth, type SampledFrame } from "./frame-sample.js";
import { shrinkGray } from "./gray-image.js";
import { runProcess } from "./run-process.js";

const dir = mkdtempSync(join(tmpdir(), "videorag-frames-test-"));
const file = (name: string): string => join(dir, name);
const ffmpeg = (...args: string[]) => runProcess("ffmpeg", ["-hide_banner", "-nostdin", "-v", "error", "-y", ...args]);

before(async () => {
  // One keyframe every 25 s: sampling must seek into the stretch to keep gaps under the limit.
  await ffmpeg("-f", "lavfi", "-i", "testsrc=size=320x240:rate=10:duration=30", "-c:v", "libx264", "-pix_fmt", "yuv420p",
    "-g", "250", "-keyint_min", "250", "-sc_threshold", "0", file("long-gop.mp4"));
  // A cut from one picture to another at 4 s, which x264 (default settings, 25 fps) encodes as a keyframe.
  await ffmpeg("-f", "lavfi", "-i", "testsrc=size=320x240:rate=25:duration=4", "-f", "lavfi", "-i", "smptebars=size=320x240:rate=25:duration=4",
    "-filter_complex", "[0:v][1:v]concat=n=2:v=1[v]", "-map", "[v]", "-c:v", "libx264", "-pix_fmt", "yuv420p", file("cut.mp4"));
  // The same in MPEG-TS, which has no index to seek by.
  await ffmpeg("-i", file("long-gop.mp4"), "-c", "copy", "-f", "mpegts", file("long-gop.ts"));
  // A keyframe every half second, as some encoders and all intra-only codecs produce.
  await ffmpeg("-f", "lavfi", "-i", "testsrc=size=160x120:rate=10:duration=10", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-g", "5", file("dense-keyframes.mp4"));
  await ffmpeg("-f", "lavfi", "-i", "sine=sample_rate=16000:duration=2", file("audio.m4a"));
});

const fontFile = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
const needsFont = existsSync(fontFile) ? false : `no font at ${fontFile} to draw slides with`;

after(() => rmSync(dir, { recursive: true, force: true }));

function pngSize(image: Buffer): { width: number; height: number } {
  assert.equal(image.subarray(1, 4).toString("latin1"), "PNG");
  return { width: image.readUInt32BE(16), height: image.readUInt32BE(20) };
}

function largestGap(frames: SampledFrame[], durationSeconds: number): number {
  const times = [...frames.map((frame) => frame.timeSecond), durationSeconds];
  return Math.max(...times.slice(1).map((time, position) => time - (times[position] ?? 0)));
}

test("stretches between keyframes are filled so no gap exceeds maxGapSeconds", async () => {
  const frames = await sampleFrames(file("long-gop.mp4"), { maxGapSeconds: 5 });
  assert.equal(frames[0]?.timeSecond, 0);
  assert.ok(frames.some((frame) => Math.abs(frame.timeSecond - 25) < 0.01), "the keyframe at 25 s is sampled");
  assert.ok(largestGap(frames, 30) <= 5 + 0.1, `largest gap ${largestGap(frames, 30)} s`);
  assert.ok(frames.length <= 9, `${frames.length} frames for 30 s is more than the gaps need`);
  assert.deepEqual(frames.map((frame) => frame.timeSecond), [...frames.map((frame) => frame.timeSecond)].sort((a, b) => a - b));
  for (const frame of frames) {
    assert.deepEqual(pngSize(frame.image), { width: 320, height: 240 });
    assert.equal(frame.thumbnail.length, thumbnailWidth * thumbnailHeight);
  }
});

test("frames seeked between keyframes are the exact pictures a player shows at that time", async () => {
  const frames = await sampleFrames(file("long-gop.mp4"), { maxGapSeconds: 5 });
  const seeked = frames.filter((frame) => frame.timeSecond !== 0 && frame.timeSecond !== 25);
  assert.ok(seeked.length >= 4);
  for (const frame of seeked) {
    const reference = await runProcess("ffmpeg", ["-v", "error", "-ss", String(frame.timeSecond), "-i", file("long-gop.mp4"), "-frames:v", "1", "-vf", "format=gray", "-f", "rawvideo", "-"]);
    const expected = shrinkGray({ width: 320, height: 240, pixels: reference.stdout }, thumbnailWidth, thumbnailHeight).pixels;
    const worst = Math.max(...expected.map((value, index) => Math.abs(value - (frame.thumbnail[index] ?? 0))));
    assert.ok(worst <= 2, `frame at ${frame.timeSecond} s differs from the decoded picture by ${worst} gray levels`);
  }
});

test("a stream without an index (MPEG-TS) is sampled in one pass with the same gap limit", async () => {
  const frames = await sampleFrames(file("long-gop.ts"), { maxGapSeconds: 5 });
  assert.equal(frames[0]?.timeSecond, 0);
  assert.ok(largestGap(frames, 30) <= 5 + 0.1, `largest gap ${largestGap(frames, 30)} s`);
  assert.ok(frames.length <= 8, `${frames.length} frames`);
});

test("images are scaled down to the requested width, keeping the aspect ratio", async () => {
  const frames = await sampleFrames(file("long-gop.mp4"), { maxGapSeconds: 20, width: 160 });
  assert.ok(frames.length >= 2);
  for (const frame of frames) assert.deepEqual(pngSize(frame.image), { width: 160, height: 120 });
});

test("a scene cut is sampled through its keyframe, and its hash differs from the first picture", async () => {
  const frames = await sampleFrames(file("cut.mp4"), { maxGapSeconds: 5 });
  assert.deepEqual(frames.map((frame) => frame.timeSecond), [0, 4]);
  const [before, after] = frames.map((frame) => frameHash(frame.thumbnail));
  assert.ok(hashDistance(before ?? "", after ?? "") > 10, `${before} vs ${after}`);
});

test("dense keyframes are thinned to half the gap, not all decoded into frames for OCR", async () => {
  const frames = await sampleFrames(file("dense-keyframes.mp4"), { maxGapSeconds: 5 });
  const times = frames.map((frame) => frame.timeSecond);
  assert.ok(frames.length <= 4, `${frames.length} frames at ${times.join(", ")}`);
  assert.ok(times.slice(1).every((time, position) => time - (times[position] ?? 0) >= 2.5), times.join(", "));
  assert.ok(largestGap(frames, 10) <= 5 + 0.1, `largest gap ${largestGap(frames, 10)} s`);
});

test("a file without video gives no frames", async () => {
  assert.deepEqual(await sampleFrames(file("audio.m4a")), []);
});

test("cancelling stops sampling with INTERRUPTED", async () => {
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(sampleFrames(file("long-gop.mp4"), { signal: controller.signal }), (error: unknown) => VideoRagError.isInstance(error) && error.code === "INTERRUPTED");
});

test("frameHash is a 64-bit difference hash and hashDistance counts differing bits", () => {
  const flat = new Uint8Array(thumbnailWidth * thumbnailHeight).fill(100);
  const fallingToTheRight = Uint8Array.from({ length: thumbnailWidth * thumbnailHeight }, (_, index) => 200 - (index % thumbnailWidth) * 10);
  assert.equal(frameHash(flat), "0000000000000000");
  assert.equal(frameHash(fallingToTheRight), "ffffffffffffffff");
  assert.equal(hashDistance(frameHash(flat), frameHash(fallingToTheRight)), 64);
  assert.equal(hashDistance("00000000000000f1", "0000000000000001"), 4);
  assert.throws(() => frameHash(new Uint8Array(10)), (error: unknown) => VideoRagError.isInstance(error) && error.code === "ARGUMENT_INVALID");
});

test("the Sintel trailer samples keyframes plus fills in well under two seconds", { skip: needsShared }, async () => {
  const path = sharedPath("media", "speech", "sintel_trailer-720p.mp4");
  const started = performance.now();
  const frames = await sampleFrames(path, { maxGapSeconds: 5, durationSeconds: 52.209 });
  const seconds = (performance.now() - started) / 1000;
  console.log(`sampled ${frames.length} frames of sintel_trailer-720p.mp4 in ${seconds.toFixed(2)} s`);
  for (const keyframe of [0, 9.333, 13.917, 24.333, 32.167, 42.583, 47.5]) {
    assert.ok(frames.some((frame) => Math.abs(frame.timeSecond - keyframe) < 0.01), `keyframe at ${keyframe} s`);
  }
  assert.ok(largestGap(frames, 52.209) <= 5 + 0.1, `largest gap ${largestGap(frames, 52.209)} s`);
  for (const frame of frames) assert.deepEqual(pngSize(frame.image), { width: 1280, height: 720 });
  // Generous: this machine may be busy with other tests; an accidental full decode takes several times longer.
  assert.ok(seconds < 4, `sampling took ${seconds.toFixed(2)} s`);
});

test("slides of one layout whose words differ are different screens, though their hashes are near; one slide is one screen", { skip: needsFont }, async () => {
  // Three 4-second slides, black 48-pixel text at one place on white, as a talk's slides or a lyrics video show them.
  const lines = ["The lighthouse keeper lights the lamp", "A storm is coming over the bay", "Ships wait in the harbour"];
  const inputs = lines.flatMap((line) => ["-f", "lavfi", "-i", `color=c=white:s=1280x720:r=2:d=4,drawtext=fontfile=${fontFile}:text='${line}':fontsize=48:fontcolor=black:x=80:y=200`]);
  await ffmpeg(...inputs, "-filter_complex", "[0:v][1:v][2:v]concat=n=3:v=1[v]", "-map", "[v]", "-c:v", "libx264", "-pix_fmt", "yuv420p", file("slides.mp4"));
  const keyframes = await sampleFrames(file("slides.mp4"), { maxGapSeconds: 2, keyframesOnly: true, thumbnailsOnly: true });
  const frames = await sampleGapFrames(file("slides.mp4"), {
    anchorSeconds: keyframes.map((frame) => frame.timeSecond),
    anchorsToo: true,
    startSecond: 0,
    endSecond: 12,
    maxGapSeconds: 2,
    videoWidth: 1280,
    videoHeight: 720,
  });
  const at = (second: number): SampledFrame => {
    const frame = frames.find((candidate) => Math.abs(candidate.timeSecond - second) < 1);
    assert.ok(frame, `a frame near ${second} s among ${frames.map((candidate) => candidate.timeSecond).join(", ")}`);
    return frame;
  };
  const [first, second, third] = [at(0), at(4), at(8)];
  assert.ok(hashDistance(frameHash(first.thumbnail), frameHash(second.thumbnail)) <= 6, "the 64-bit hash cannot tell these slides apart");
  assert.equal(sameScreen(first.detail, second.detail), false);
  assert.equal(sameScreen(second.detail, third.detail), false);
  assert.equal(sameScreen(first.detail, at(2.5).detail), true, "one slide, two frames: one screen");
  assert.ok(frames.every((frame) => frame.image.length > 0), "keyframes come back as images to read");
});

test("anchors alone, with no stretch to fill, are decoded: one frame at each", async () => {
  const frames = await sampleGapFrames(file("cut.mp4"), { anchorSeconds: [0, 4], anchorsToo: true, startSecond: 0, endSecond: 8, maxGapSeconds: 5, videoWidth: 320, videoHeight: 240 });
  assert.deepEqual(frames.map((frame) => Math.round(frame.timeSecond)), [0, 4]);
  assert.equal(sameScreen(frames[0]?.detail ?? new Uint8Array(), frames[1]?.detail ?? new Uint8Array()), false, "testsrc, then colour bars");
});
