import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { VideoRagError } from "../spec/index.js";
import { extractAudio } from "./audio.js";
import { readWavLayout } from "./wav-file.js";
import { runProcess } from "./run-process.js";

const dir = mkdtempSync(join(tmpdir(), "videorag-audio-test-"));
const file = (name: string): string => join(dir, name);
const ffmpeg = (...args: string[]) => runProcess("ffmpeg", ["-hide_banner", "-nostdin", "-v", "error", "-y", ...args]);

before(async () => {
  // A 440 Hz tone in stereo at 44.1 kHz, inside a video.
  await ffmpeg("-f", "lavfi", "-i", "testsrc=size=64x48:rate=5:duration=3", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=3",
    "-ac", "2", "-c:v", "libx264", "-c:a", "aac", "-shortest", file("tone.mp4"));
  await ffmpeg("-f", "lavfi", "-i", "testsrc=size=64x48:rate=5:duration=1", "-c:v", "libx264", file("silent-film.mp4"));
});

after(() => rmSync(dir, { recursive: true, force: true }));

/** The 16-bit samples of a WAV file, found through its RIFF chunks. */
async function readWavSamples(path: string): Promise<Int16Array> {
  const handle = await open(path, "r");
  try {
    const layout = await readWavLayout(handle, path);
    const bytes = Buffer.alloc(layout.dataBytes);
    await handle.read(bytes, 0, layout.dataBytes, layout.dataOffset);
    return Int16Array.from({ length: Math.floor(bytes.length / 2) }, (_, index) => bytes.readInt16LE(index * 2));
  } finally {
    await handle.close();
  }
}

function wavFile(chunks: { id: string; body: Buffer }[]): Buffer {
  const parts = chunks.map(({ id, body }) => {
    const header = Buffer.alloc(8);
    header.write(id, 0, "latin1");
    header.writeUInt32LE(body.length, 4);
    return Buffer.concat([header, body, Buffer.alloc(body.length % 2)]);
  });
  const riff = Buffer.alloc(12);
  riff.write("RIFF", 0, "latin1");
  riff.writeUInt32LE(4 + parts.reduce((sum, part) => sum + part.length, 0), 4);
  riff.write("WAVE", 8, "latin1");
  return Buffer.concat([riff, ...parts]);
}

function pcmFormat(bitsPerSample = 16): Buffer {
  const body = Buffer.alloc(16);
  body.writeUInt16LE(1, 0);
  body.writeUInt16LE(1, 2);
  body.writeUInt32LE(16000, 4);
  body.writeUInt32LE(16000 * (bitsPerSample / 8), 8);
  body.writeUInt16LE(bitsPerSample / 8, 12);
  body.writeUInt16LE(bitsPerSample, 14);
  return body;
}

test("extracted audio is 16 kHz mono 16-bit and keeps the tone", async () => {
  await extractAudio(file("tone.mp4"), file("tone.wav"));
  const header = readFileSync(file("tone.wav"));
  const formatAt = header.indexOf("fmt ");
  assert.equal(header.readUInt16LE(formatAt + 10), 1, "mono");
  assert.equal(header.readUInt32LE(formatAt + 12), 16000, "16 kHz");
  assert.equal(header.readUInt16LE(formatAt + 22), 16, "16-bit");

  const samples = await readWavSamples(file("tone.wav"));
  assert.ok(Math.abs(samples.length - 3 * 16000) < 1600, `${samples.length} samples for 3 s`);
  // A 440 Hz sine crosses zero 880 times a second.
  const middle = samples.subarray(16000, 32000);
  let crossings = 0;
  for (let index = 1; index < middle.length; index++) if (((middle[index - 1] ?? 0) < 0) !== ((middle[index] ?? 0) < 0)) crossings++;
  assert.ok(Math.abs(crossings - 880) < 20, `${crossings} zero crossings`);
});

test("a file without audio is INPUT_UNSUPPORTED", async () => {
  await assert.rejects(extractAudio(file("silent-film.mp4"), file("none.wav")), (error: unknown) => VideoRagError.isInstance(error) && error.code === "INPUT_UNSUPPORTED");
});

test("the WAV reader finds the data chunk past other chunks, odd-sized ones padded", async () => {
  const samples = Buffer.alloc(8);
  [1, -2, 32767, -32768].forEach((value, index) => samples.writeInt16LE(value, index * 2));
  writeFileSync(file("chunks.wav"), wavFile([
    { id: "fmt ", body: pcmFormat() },
    { id: "LIST", body: Buffer.from("INFOodd") },
    { id: "data", body: samples },
  ]));
  assert.deepEqual([...(await readWavSamples(file("chunks.wav")))], [1, -2, 32767, -32768]);
});

test("the WAV reader rejects what is not PCM WAV", async () => {
  const float = pcmFormat();
  float.writeUInt16LE(3, 0);
  writeFileSync(file("float.wav"), wavFile([{ id: "fmt ", body: float }, { id: "data", body: Buffer.alloc(4) }]));
  writeFileSync(file("text.wav"), "not a wav file at all");
  for (const name of ["float.wav", "text.wav"]) {
    await assert.rejects(readWavSamples(file(name)), (error: unknown) => VideoRagError.isInstance(error) && error.code === "INPUT_UNSUPPORTED");
  }
});
