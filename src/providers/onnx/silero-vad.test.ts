// Silero voice-activity detection on real recordings: JFK's speech found with its pauses, a read sentence placed between
// silences within a few tenths of a second, silence found empty; a missing model, a wrong WAV format and a cancelled call
// each fail with their code.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { VideoRagError } from "../../spec/index.js";
import { needsShared, sharedPath } from "../../test-support/shared.js";
import { createSileroVad, tidyRegions } from "./silero-vad.js";

const scratch = mkdtempSync(join(tmpdir(), "videorag-vad-test-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs ffmpeg with the given arguments, writing 16 kHz mono 16-bit WAV to `output`. */
function ffmpeg(args: string[], output: string, format = ["-ar", "16000", "-ac", "1"]): string {
  const result = spawnSync("ffmpeg", ["-v", "error", "-y", ...args, ...format, "-c:a", "pcm_s16le", output], { encoding: "utf8" });
  assert.equal(result.status, 0, result.stderr);
  return output;
}

function durationOf(path: string): number {
  const result = spawnSync("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path], { encoding: "utf8" });
  return Number(result.stdout.trim());
}

const vad = () => createSileroVad({ modelPath: sharedPath("models/silero_vad.onnx") });

test("JFK's inaugural line: the speech and its pauses", { skip: needsShared }, async () => {
  const wav = ffmpeg(["-i", sharedPath("media/audio/jfk.wav")], join(scratch, "jfk.wav"));
  const regions = await vad().detect(wav);
  const speech = regions.reduce((sum, region) => sum + region.endSecond - region.startSecond, 0);
  assert.ok(speech > 6 && speech < 11, `${speech} s of speech in ${JSON.stringify(regions)}`);
  assert.ok(regions.length >= 2, "the pauses between phrases split it");
  assert.ok((regions[0]?.startSecond ?? 99) < 1, JSON.stringify(regions));
  assert.ok((regions.at(-1)?.endSecond ?? 0) > 9.5, JSON.stringify(regions));
});

test("a read sentence between five seconds of silence on each side is found where it is, and nothing else", { skip: needsShared }, async () => {
  const sentence = sharedPath("media/audio/librivox/sense_and_sensibility_01_austen_64kb-0870.wav");
  const length = durationOf(sentence);
  const wav = ffmpeg(
    ["-f", "lavfi", "-t", "5", "-i", "anullsrc=r=16000:cl=mono", "-i", sentence, "-f", "lavfi", "-t", "5", "-i", "anullsrc=r=16000:cl=mono",
      "-filter_complex", "[0:a][1:a][2:a]concat=n=3:v=0:a=1[out]", "-map", "[out]"],
    join(scratch, "padded.wav"),
  );
  const regions = await vad().detect(wav);
  assert.ok(regions.length >= 1, "no speech found");
  assert.ok(Math.abs((regions[0]?.startSecond ?? 0) - 5) < 0.4, JSON.stringify(regions));
  assert.ok(Math.abs((regions.at(-1)?.endSecond ?? 0) - (5 + length)) < 0.5, `${JSON.stringify(regions)} against ${5 + length}`);
  assert.ok(regions.every((region) => region.startSecond > 4.5 && region.endSecond < 5.6 + length), "speech in the silences");
});

test("silence has no speech", { skip: needsShared }, async () => {
  const wav = ffmpeg(["-f", "lavfi", "-t", "4", "-i", "anullsrc=r=16000:cl=mono"], join(scratch, "silence.wav"));
  assert.deepEqual(await vad().detect(wav), []);
});

test("a missing model file is MODEL_NOT_FOUND, naming it", async () => {
  const wav = ffmpeg(["-f", "lavfi", "-t", "1", "-i", "anullsrc=r=16000:cl=mono"], join(scratch, "short.wav"));
  const missing = join(scratch, "nowhere/silero_vad.onnx");
  await assert.rejects(createSileroVad({ modelPath: missing }).detect(wav), (error: unknown) => VideoRagError.isInstance(error) && error.code === "MODEL_NOT_FOUND" && error.message.includes(missing));
});

test("a WAV that is not 16 kHz mono is INPUT_UNSUPPORTED", { skip: needsShared }, async () => {
  const wav = ffmpeg(["-i", sharedPath("media/audio/jfk.wav")], join(scratch, "stereo.wav"), ["-ar", "44100", "-ac", "2"]);
  await assert.rejects(vad().detect(wav), (error: unknown) => VideoRagError.isInstance(error) && error.code === "INPUT_UNSUPPORTED");
});

test("a call cancelled while it reads stops with INTERRUPTED", { skip: needsShared }, async () => {
  const wav = ffmpeg(["-f", "lavfi", "-t", "60", "-i", "anullsrc=r=16000:cl=mono"], join(scratch, "minute.wav"));
  const controller = new AbortController();
  const progress: number[] = [];
  const call = vad().detect(wav, {
    signal: controller.signal,
    onProgress: (doneSeconds) => {
      progress.push(doneSeconds);
      controller.abort();
    },
  });
  await assert.rejects(call, (error: unknown) => VideoRagError.isInstance(error) && error.code === "INTERRUPTED");
  assert.equal(progress.length, 1, "it stopped after the block it was cancelled in");
  assert.ok((progress[0] ?? 60) < 60);
});

test("regions: short pauses bridged, short bursts dropped, padding kept inside the audio", () => {
  const regions = tidyRegions(
    [
      { startSecond: 0.05, endSecond: 1 },
      { startSecond: 1.2, endSecond: 2 },
      { startSecond: 3, endSecond: 3.1 },
      { startSecond: 5, endSecond: 9.99 },
    ],
    { minSpeech: 0.25, minSilence: 0.3, pad: 0.1, totalSeconds: 10, windowSeconds: 0.096 },
  );
  assert.deepEqual(regions, [
    { startSecond: 0, endSecond: 2.1 },
    { startSecond: 4.9, endSecond: 10 },
  ]);
});
