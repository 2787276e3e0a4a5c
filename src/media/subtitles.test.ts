import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { VideoRagError } from "../spec/index.js";
import { needsShared, sharedPath } from "../test-support/shared.js";
import { probeMedia } from "./probe.js";
import { runProcess } from "./run-process.js";
import { parseSubtitleText, type SubtitleCue } from "./subtitle-parse.js";
import { extractTextSubtitles, findSidecarSubtitles, readSubtitleFile, readSubtitles, renderBitmapSubtitles } from "./subtitles.js";

const dir = mkdtempSync(join(tmpdir(), "videorag-subtitles-test-"));
const file = (name: string): string => join(dir, name);
const ffmpeg = (...args: string[]) => runProcess("ffmpeg", ["-hide_banner", "-nostdin", "-v", "error", "-y", ...args]);
const subtitled = (name: string): string => sharedPath("media", "subtitled", name);

const noTesseract = spawnSync("tesseract", ["--version"]).error ? "tesseract is not installed (apt-get install tesseract-ocr)" : false;
const needsOcr = needsShared || noTesseract;

/** The OCR a caller would inject: tesseract reading one block of text. */
async function tesseract(image: Buffer): Promise<string> {
  return (await runProcess("tesseract", ["stdin", "stdout", "--psm", "6"], { input: image })).stdout.toString("utf8");
}

const words = (text: string): string => text.toLowerCase().replace(/[^a-z0-9']+/g, " ").trim();

before(async () => {
  if (needsShared) return;
  const muxed: [string, string][] = [
    ["friday-mov_text.mp4", "mov_text"],
    ["friday-subrip.mkv", "subrip"],
    ["friday-ass.mkv", "ass"],
  ];
  for (const [name, codec] of muxed) {
    await ffmpeg("-i", subtitled("friday.mp4"), "-i", subtitled("friday.vtt"), "-map", "0", "-map", "1", "-c", "copy", "-c:s", codec, file(name));
  }
});

after(() => rmSync(dir, { recursive: true, force: true }));

test("the sidecar with the video's exact stem wins, then an English one, then any language", async () => {
  const video = file("talk.mp4");
  writeFileSync(video, "");
  assert.equal(await findSidecarSubtitles(video), undefined);
  writeFileSync(file("talk2.srt"), "");
  writeFileSync(file("talk.mp4.txt"), "");
  assert.equal(await findSidecarSubtitles(video), undefined, "another stem or extension is not a sidecar");
  writeFileSync(file("talk.fr.srt"), "");
  assert.equal(await findSidecarSubtitles(video), file("talk.fr.srt"));
  writeFileSync(file("talk.en.srt"), "");
  assert.equal(await findSidecarSubtitles(video), file("talk.en.srt"));
  writeFileSync(file("talk.VTT"), "");
  assert.equal(await findSidecarSubtitles(video), file("talk.VTT"));
  for (const name of ["talk.VTT", "talk.en.srt"]) unlinkSync(file(name));
  writeFileSync(file("talk.eng.vtt"), "");
  assert.equal(await findSidecarSubtitles(video), file("talk.eng.vtt"));
});

test("a sidecar in Windows-1252 is read without mangling accents", async () => {
  writeFileSync(file("cafe.srt"), Buffer.from("1\r\n00:00:01,000 --> 00:00:02,000\r\nUn caf\xe9, s'il vous pla\xeet\r\n", "latin1"));
  assert.deepEqual(await readSubtitleFile(file("cafe.srt")), [{ startSecond: 1, endSecond: 2, text: "Un café, s'il vous plaît" }]);
});

test("readSubtitles takes the sidecar beside the video first", { skip: needsShared }, async () => {
  const path = subtitled("friday.mp4");
  const found = await readSubtitles(path, await probeMedia(path));
  assert.equal(found.source, "sidecar");
  assert.equal(found.detail, "friday.vtt");
  assert.deepEqual(found.cues[0], { startSecond: 0, endSecond: 0.999, text: "Hildy!" });
  assert.equal(found.cues[2]?.text, "Tell me, is the lord of the universe in?");
});

test("embedded text streams (mov_text, SubRip, ASS) come back as the same cues", { skip: needsShared }, async () => {
  const expected = parseSubtitleText(readFileSync(subtitled("friday.vtt"), "utf8"));
  for (const name of ["friday-mov_text.mp4", "friday-subrip.mkv", "friday-ass.mkv"]) {
    const cues = await extractTextSubtitles(file(name), 0);
    assert.deepEqual(cues.map((cue) => cue.text), expected.map((cue) => cue.text), name);
    cues.forEach((cue, index) => assert.ok(Math.abs(cue.startSecond - (expected[index]?.startSecond ?? -1)) < 0.02, `${name} cue ${index}`));
  }
  const movText = file("friday-mov_text.mp4");
  const found = await readSubtitles(movText, await probeMedia(movText));
  assert.equal(found.source, "embedded-text");
  assert.match(found.detail, /mov_text/);
  assert.equal(found.cues.at(-1)?.text, "Somebody must've stolen the crown jewels");
});

test("a video with no subtitles anywhere says so", { skip: needsShared }, async () => {
  copyFileSync(subtitled("friday.mp4"), file("bare.mp4"));
  const found = await readSubtitles(file("bare.mp4"), await probeMedia(file("bare.mp4")));
  assert.deepEqual(found, { source: "none", cues: [], detail: "no sidecar subtitle file and no subtitle stream" });
});

test("bitmap subtitles without an OCR function are skipped with a reason", { skip: needsShared }, async () => {
  const path = subtitled("popeye_vobsub.mkv");
  const found = await readSubtitles(path, await probeMedia(path));
  assert.equal(found.source, "none");
  assert.match(found.detail, /bitmap subtitle stream .*dvd_subtitle.*no OCR/);
});

for (const [name, expectedCues] of [
  ["popeye_vobsub.mkv", 15],
  // This PGS track lacks four of the excerpt's fifteen lines.
  ["popeye_pgs.mkv", 11],
] as const) {
  test(`${name}: each bitmap cue is rendered once, at its own time, legible to tesseract`, { skip: needsOcr }, async () => {
    const path = subtitled(name);
    const reference = parseSubtitleText(readFileSync(subtitled("popeye_p3.eng.srt"), "utf8"));
    const started = performance.now();
    const found = await readSubtitles(path, await probeMedia(path), { recognize: tesseract });
    console.log(`${name}: ${found.cues.length} cues rendered and read in ${((performance.now() - started) / 1000).toFixed(2)} s`);
    assert.equal(found.source, "embedded-bitmap");
    assert.equal(found.cues.length, expectedCues);

    // A cue matches a line of the human-made SRT with the same words starting within a second of it.
    const matched = found.cues.filter((cue) =>
      reference.some((line) => words(line.text) === words(cue.text) && Math.abs(line.startSecond - cue.startSecond) <= 1),
    );
    assert.ok(matched.length >= Math.ceil(expectedCues * 0.8), `only ${matched.length} of ${found.cues.length} cues match the SRT: ${JSON.stringify(found.cues)}`);
    for (const cue of found.cues) assert.ok(cue.endSecond > cue.startSecond, `cue at ${cue.startSecond} ends at ${cue.endSecond}`);
    const lifeboats = found.cues.find((cue) => words(cue.text) === "oh man the lifeboats");
    assert.ok(lifeboats && Math.abs(lifeboats.startSecond - 44.992) <= 1, "Oh, man the lifeboats at 45.0 s");
  });
}

test("the VobSub buzzard line is read at 57 s and ends when the next line starts", { skip: needsOcr }, async () => {
  const rendered = await renderBitmapSubtitles(subtitled("popeye_vobsub.mkv"), 0);
  const cues: SubtitleCue[] = [];
  for (const subtitle of rendered.filter((candidate) => candidate.startSecond > 56 && candidate.startSecond < 60)) {
    assert.equal(subtitle.image.subarray(1, 4).toString("latin1"), "PNG");
    cues.push({ startSecond: subtitle.startSecond, endSecond: subtitle.endSecond, text: await tesseract(subtitle.image) });
  }
  const buzzard = cues.find((cue) => /biggest buzzard/.test(cue.text));
  assert.ok(buzzard, JSON.stringify(cues));
  assert.ok(Math.abs(buzzard.startSecond - 57.0) < 0.5, `starts at ${buzzard.startSecond}`);
  assert.ok(Math.abs(buzzard.endSecond - 59.0) < 0.5, `ends at ${buzzard.endSecond}`);
});

test("asking for a subtitle stream the file lacks is ARGUMENT_INVALID", { skip: needsShared }, async () => {
  await assert.rejects(renderBitmapSubtitles(subtitled("popeye_pgs.mkv"), 3), (error: unknown) => VideoRagError.isInstance(error) && error.code === "ARGUMENT_INVALID");
});
