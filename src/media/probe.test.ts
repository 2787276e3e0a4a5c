import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { VideoRagError, type ErrorCode } from "../spec/index.js";
import { needsShared, sharedPath } from "../test-support/shared.js";
import { checkDecodable, probeMedia } from "./probe.js";
import { runProcess } from "./run-process.js";

const dir = mkdtempSync(join(tmpdir(), "videorag-probe-test-"));
const file = (name: string): string => join(dir, name);
const ffmpeg = (...args: string[]) => runProcess("ffmpeg", ["-hide_banner", "-nostdin", "-v", "error", "-y", ...args]);

before(async () => {
  const video = ["-f", "lavfi", "-i", "testsrc=size=160x120:rate=10", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=16000"];
  const encode = ["-t", "3", "-pix_fmt", "yuv420p", "-c:v", "libx264", "-c:a", "aac"];
  // ffmpeg writes the index (moov) last unless asked for faststart: cutting the file loses it.
  await ffmpeg(...video, ...encode, file("ok.mp4"));
  await ffmpeg(...video, ...encode, "-movflags", "+faststart", file("faststart.mp4"));
  await ffmpeg("-f", "lavfi", "-i", "sine=sample_rate=16000", "-t", "2", file("audio.wav"));
  writeFileSync(file("lines.srt"), "1\n00:00:01,000 --> 00:00:02,500\nHello there\n\n2\n00:00:03,000 --> 00:00:04,000\nGoodbye\n");
  await ffmpeg("-i", file("lines.srt"), "-c:s", "srt", file("subtitles-only.mkv"));
  await ffmpeg("-f", "lavfi", "-i", "testsrc=size=64x48", "-frames:v", "1", file("still.png"));

  const whole = readFileSync(file("ok.mp4"));
  writeFileSync(file("first-half.mp4"), whole.subarray(0, whole.length / 2));
  const faststart = readFileSync(file("faststart.mp4"));
  writeFileSync(file("header-only.mp4"), faststart.subarray(0, 3000));
  const garbage = Buffer.from(faststart);
  const mdat = garbage.indexOf("mdat");
  randomBytes(garbage.length - mdat - 4).copy(garbage, mdat + 4);
  writeFileSync(file("garbage-after-header.mp4"), garbage);
  writeFileSync(file("notes.mp4"), "These are my notes, not a video.\n");
  writeFileSync(file("random.bin"), randomBytes(5000));
  writeFileSync(file("empty.mp4"), "");
  copyFileSync(file("still.png"), file("still.mp4"));
});

after(() => rmSync(dir, { recursive: true, force: true }));

async function failureCode(promise: Promise<unknown>): Promise<ErrorCode> {
  try {
    await promise;
  } catch (error) {
    assert.ok(VideoRagError.isInstance(error), `expected a VideoRagError, got ${String(error)}`);
    return error.code;
  }
  return assert.fail("expected the call to fail");
}

test("a good mp4 reports its streams, size and duration", async () => {
  const info = await probeMedia(file("ok.mp4"));
  assert.equal(info.hasVideo, true);
  assert.equal(info.hasAudio, true);
  assert.equal(info.width, 160);
  assert.equal(info.height, 120);
  assert.equal(info.frameRate, 10);
  assert.equal(info.videoCodec, "h264");
  assert.equal(info.audioCodec, "aac");
  assert.ok(Math.abs(info.durationSeconds - 3) < 0.1, `duration ${info.durationSeconds}`);
  assert.equal(info.sizeBytes, readFileSync(file("ok.mp4")).length);
  assert.deepEqual(info.subtitleStreams, []);
  await checkDecodable(file("ok.mp4"), info);
});

test("an audio file has audio and no video", async () => {
  const info = await probeMedia(file("audio.wav"));
  assert.equal(info.hasVideo, false);
  assert.equal(info.hasAudio, true);
  assert.equal(info.width, undefined);
  assert.ok(Math.abs(info.durationSeconds - 2) < 0.05);
});

test("bad inputs fail with the code that says what is wrong", async () => {
  assert.equal(await failureCode(probeMedia(file("missing.mp4"))), "INPUT_NOT_FOUND");
  assert.equal(await failureCode(probeMedia(file("empty.mp4"))), "INPUT_EMPTY");
  assert.equal(await failureCode(probeMedia(file("notes.mp4"))), "INPUT_NOT_MEDIA");
  assert.equal(await failureCode(probeMedia(file("random.bin"))), "INPUT_NOT_MEDIA");
  assert.equal(await failureCode(probeMedia(file("still.mp4"))), "INPUT_NOT_MEDIA");
  assert.equal(await failureCode(probeMedia(file("first-half.mp4"))), "INPUT_CORRUPT");
  assert.equal(await failureCode(probeMedia(file("header-only.mp4"))), "INPUT_CORRUPT");
  assert.equal(await failureCode(probeMedia(dir)), "INPUT_UNSUPPORTED");
});

test("the error names the file as its subject", async () => {
  try {
    await probeMedia(file("missing.mp4"));
    assert.fail("expected INPUT_NOT_FOUND");
  } catch (error) {
    assert.ok(VideoRagError.isInstance(error));
    assert.equal(error.subject, file("missing.mp4"));
  }
});

test("an unreadable file is INPUT_NOT_FOUND", { skip: process.getuid?.() === 0 ? "root reads every file" : false }, async () => {
  copyFileSync(file("ok.mp4"), file("locked.mp4"));
  chmodSync(file("locked.mp4"), 0);
  assert.equal(await failureCode(probeMedia(file("locked.mp4"))), "INPUT_NOT_FOUND");
});

test("a valid header over garbage probes but fails the decode check", async () => {
  const info = await probeMedia(file("garbage-after-header.mp4"));
  assert.equal(info.hasVideo, true);
  assert.equal(await failureCode(checkDecodable(file("garbage-after-header.mp4"), info)), "INPUT_CORRUPT");
});

test("subtitles alone are INPUT_NO_STREAMS in a container and INPUT_NOT_MEDIA as a text file", async () => {
  assert.equal(await failureCode(probeMedia(file("subtitles-only.mkv"))), "INPUT_NO_STREAMS");
  copyFileSync(file("lines.srt"), file("subtitles.mp4"));
  assert.equal(await failureCode(probeMedia(file("subtitles.mp4"))), "INPUT_NOT_MEDIA");
});

test("bitmap and text subtitle streams are listed with their -map index", { skip: needsShared }, async () => {
  const vobsub = await probeMedia(sharedPath("media", "subtitled", "popeye_vobsub.mkv"));
  assert.equal(vobsub.hasAudio, false);
  assert.deepEqual(vobsub.subtitleStreams, [{ index: 1, subtitleIndex: 0, codec: "dvd_subtitle", kind: "bitmap", language: "eng" }]);
  const pgs = await probeMedia(sharedPath("media", "subtitled", "popeye_pgs.mkv"));
  assert.equal(pgs.subtitleStreams[0]?.codec, "hdmv_pgs_subtitle");

  await ffmpeg("-i", sharedPath("media", "subtitled", "friday.mp4"), "-i", sharedPath("media", "subtitled", "friday.vtt"), "-map", "0", "-map", "1", "-c", "copy", "-c:s", "mov_text", file("friday-text.mp4"));
  const text = await probeMedia(file("friday-text.mp4"));
  assert.deepEqual(text.subtitleStreams, [{ index: 2, subtitleIndex: 0, codec: "mov_text", kind: "text" }]);
});

test("the Sintel trailer is 52 s of 1280x720 at 24 fps with audio", { skip: needsShared }, async () => {
  const info = await probeMedia(sharedPath("media", "speech", "sintel_trailer-720p.mp4"));
  assert.equal(info.width, 1280);
  assert.equal(info.height, 720);
  assert.equal(info.frameRate, 24);
  assert.ok(Math.abs(info.durationSeconds - 52.2) < 0.1);
  assert.equal(info.hasAudio, true);
  await checkDecodable(info.path, info);
});
