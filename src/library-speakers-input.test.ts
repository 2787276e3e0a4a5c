// Speakers on awkward input, through the whole ingest: telephone-band (8 kHz) stereo audio, a long silence between two
// stretches of one voice, music with no one speaking, and a video with no sound at all. Each gives a clear outcome and
// leaves nothing half-written.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { openLibrary, type Library } from "./library.js";
import { needsFfmpeg } from "./test-support/meeting.js";
import { needsShared, sharedPath } from "./test-support/shared.js";

describe("speakers on awkward input", { skip: needsFfmpeg || needsShared }, () => {
  const scratch = mkdtempSync(join(tmpdir(), "videorag-speakers-input-"));
  let library: Library;
  const picture = ["-f", "lavfi", "-i", "color=c=gray:s=160x120:r=5"];
  const make = (file: string, args: string[]): string => {
    const path = join(scratch, file);
    const made = spawnSync("ffmpeg", ["-v", "error", "-y", ...args, path]);
    assert.equal(made.status, 0, String(made.stderr));
    return path;
  };
  before(async () => {
    // Silero VAD decides where speech is, so music is heard as no one speaking.
    library = await openLibrary({ path: join(scratch, "library"), ocr: false, visual: false, modelsDir: sharedPath("models") });
  });
  after(async () => {
    await library?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  test("JFK at 8 kHz in stereo: one speaker", async () => {
    const phone = make("phone.mp4", [...picture, "-i", sharedPath("media/audio/jfk.wav"), "-shortest", "-ar", "8000", "-ac", "2", "-pix_fmt", "yuv420p", "-c:a", "aac"]);
    const report = await library.ingest([phone]);
    assert.equal(report.failed, 0, JSON.stringify(report.results));
    assert.deepEqual((await library.speakers("phone.mp4")).speakers.map((speaker) => speaker.label), ["Speaker 1"]);
  });

  test("one voice, a minute of silence, the same voice: one speaker, and no one speaks in the silence", async () => {
    const jfk = sharedPath("media/audio/jfk.wav");
    const pause = make("pause.mp4", [
      ...picture, "-i", jfk, "-f", "lavfi", "-t", "60", "-i", "anullsrc=r=16000:cl=mono", "-i", jfk,
      "-filter_complex", "[1:a][2:a][3:a]concat=n=3:v=0:a=1[out]", "-map", "0:v", "-map", "[out]", "-shortest", "-pix_fmt", "yuv420p", "-c:a", "aac",
    ]);
    const report = await library.ingest([pause]);
    assert.equal(report.failed, 0, JSON.stringify(report.results));
    const { speakers } = await library.speakers("pause.mp4");
    assert.deepEqual(speakers.map((speaker) => speaker.label), ["Speaker 1"], JSON.stringify(speakers));
    const spoken = (await library.transcript("pause.mp4")).segments.filter((segment) => segment.source === "speech");
    assert.ok(spoken.some((segment) => segment.startSecond > 71), "the voice after the silence was heard");
    assert.ok(spoken.every((segment) => segment.endSecond <= 13 || segment.startSecond >= 69), JSON.stringify(spoken.map((segment) => [segment.startSecond, segment.endSecond])));
  });

  test("music alone: no one speaks", async () => {
    // Plucked chords, one a second (A, C♯, E and an octave, each note decaying), over a low drone.
    const note = (hertz: number, gain: number): string => `${gain}*sin(2*PI*${hertz}*t)*exp(-3*mod(t,1))`;
    const chords = `aevalsrc='${[note(220, 0.2), note(277.2, 0.15), note(329.6, 0.12), note(440, 0.08)].join("+")}+0.05*sin(2*PI*110*t)':s=16000:d=20`;
    const music = make("music.mp4", [...picture, "-f", "lavfi", "-i", chords, "-shortest", "-pix_fmt", "yuv420p", "-c:a", "aac"]);
    const report = await library.ingest([music]);
    assert.equal(report.failed, 0, JSON.stringify(report.results));
    assert.deepEqual((await library.speakers("music.mp4")).speakers, []);
  });

  test("a video with no sound: ingested, no speakers, nothing pending, nothing left in the library's scratch", async () => {
    const silent = make("silent.mp4", [...picture, "-t", "8", "-pix_fmt", "yuv420p"]);
    const report = await library.ingest([silent]);
    assert.equal(report.failed, 0, JSON.stringify(report.results));
    assert.deepEqual((await library.speakers("silent.mp4")).speakers, []);
    assert.equal((await library.status()).stages.speakers?.pending ?? 0, 0);
    const leftovers = readdirSync(join(scratch, "library")).includes("tmp") ? readdirSync(join(scratch, "library", "tmp"), { recursive: true }) : [];
    assert.deepEqual(leftovers.filter((entry) => String(entry).includes("speakers-")), []);
  });
});
