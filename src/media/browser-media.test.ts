// Which real files a browser plays as they are, and that a transcode of the others is an H.264 MP4 of the same length.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { needsShared, sharedPath } from "../test-support/shared.js";
import { browserPlayback, transcodeForBrowser, writeThumbnail } from "./browser-media.js";
import { probeMedia } from "./probe.js";

const scratch = mkdtempSync(join(tmpdir(), "videorag-browser-media-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

test("browsers play H.264/AAC MP4 and WAV as they are; HEVC in Matroska, MPEG-1, MPEG-4 Part 2 in AVI need a transcode", { skip: needsShared }, async () => {
  const expected: [string, string | false][] = [
    ["subtitled/friday.mp4", "video/mp4"],
    ["speech/sintel_trailer-720p.mp4", "video/mp4"],
    ["audio/jfk.wav", "audio/wav"],
    ["subtitled/popeye_vobsub.mkv", false],
    ["subtitled/popeye_pgs.mkv", false],
    ["speech/grid/bbaf2n.mpg", false],
    ["surveillance/vtest.avi", false],
  ];
  for (const [file, contentType] of expected) {
    const playback = browserPlayback(await probeMedia(sharedPath("media", file)));
    assert.equal(playback.playable ? playback.contentType : false, contentType, file);
  }
});

test("an AVI with MPEG-4 Part 2 becomes an H.264 MP4 of the same length, written whole or not at all", { skip: needsShared }, async () => {
  const output = join(scratch, "vtest.mp4");
  await transcodeForBrowser(sharedPath("media/surveillance/vtest.avi"), output);
  const info = await probeMedia(output);
  assert.equal(info.videoCodec, "h264");
  assert.equal(browserPlayback(info).playable, true);
  const source = await probeMedia(sharedPath("media/surveillance/vtest.avi"));
  assert.ok(Math.abs(info.durationSeconds - source.durationSeconds) < 0.5, `${info.durationSeconds} vs ${source.durationSeconds}`);
  assert.deepEqual(readdirSync(scratch).filter((name) => name.includes("partial")), [], "no partial file is left");

  const aborted = new AbortController();
  aborted.abort();
  await assert.rejects(transcodeForBrowser(sharedPath("media/surveillance/vtest.avi"), join(scratch, "never.mp4"), { signal: aborted.signal }), { code: "INTERRUPTED" });
  assert.equal(existsSync(join(scratch, "never.mp4")), false);
});

test("a thumbnail is a JPEG no wider than asked", { skip: needsShared }, async () => {
  const output = join(scratch, "thumb.jpg");
  await writeThumbnail(sharedPath("media/speech/sintel_trailer-720p.mp4"), 20, output, { width: 320 });
  const size = execFileSync("ffprobe", ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", output], { encoding: "utf8" }).trim();
  assert.equal(size, "320,180");
});
