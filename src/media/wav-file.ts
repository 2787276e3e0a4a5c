// Reads 16-bit PCM WAV files piecewise: the header, a loudness profile, and sample ranges copied into new WAV files.
// Piecewise because an hour of 16 kHz speech is 115 MB and the transcriber only ever needs a chunk of it at a time.

import { open, type FileHandle } from "node:fs/promises";
import { VideoRagError } from "../spec/index.js";

/** Where the samples of a PCM WAV file lie and how they are laid out. */
export interface WavLayout {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  /** Byte offset of the first sample in the file. */
  dataOffset: number;
  /** Bytes of sample data, clamped to what the file really holds. */
  dataBytes: number;
}

const pcmFormat = 1;
// WAVE_FORMAT_EXTENSIBLE keeps the real format in a sub-format GUID whose first two bytes are the plain format code.
const extensibleFormat = 0xfffe;

/** Parses the RIFF chunks of an open WAV file. Throws INPUT_UNSUPPORTED unless it is integer PCM. */
export async function readWavLayout(file: FileHandle, path: string): Promise<WavLayout> {
  const { size: fileBytes } = await file.stat();
  if (fileBytes === 0) throw new VideoRagError("INPUT_EMPTY", "the audio file is empty", { subject: path });
  const riff = await readAt(file, 0, 12);
  if (riff.length < 12 || riff.toString("ascii", 0, 4) !== "RIFF" || riff.toString("ascii", 8, 12) !== "WAVE") {
    throw unsupported(path, "it is not a RIFF/WAVE file");
  }
  let format: Omit<WavLayout, "dataOffset" | "dataBytes"> | undefined;
  let offset = 12;
  while (offset + 8 <= fileBytes) {
    const header = await readAt(file, offset, 8);
    const id = header.toString("ascii", 0, 4);
    const chunkBytes = header.readUInt32LE(4);
    const bodyOffset = offset + 8;
    if (id === "fmt ") {
      const body = await readAt(file, bodyOffset, Math.min(chunkBytes, 40));
      if (body.length < 16) throw unsupported(path, "its fmt chunk is truncated");
      let code = body.readUInt16LE(0);
      if (code === extensibleFormat && body.length >= 26) code = body.readUInt16LE(24);
      if (code !== pcmFormat) throw unsupported(path, `its sample format is ${code}, not integer PCM`);
      format = { channels: body.readUInt16LE(2), sampleRate: body.readUInt32LE(4), bitsPerSample: body.readUInt16LE(14) };
    } else if (id === "data") {
      if (!format) throw unsupported(path, "its data chunk comes before the fmt chunk");
      // Streaming writers (ffmpeg to a pipe) leave the size at 0 or 0xFFFFFFFF; the file's end is the truth then.
      const available = fileBytes - bodyOffset;
      const dataBytes = chunkBytes === 0 || chunkBytes > available ? available : chunkBytes;
      return { ...format, dataOffset: bodyOffset, dataBytes };
    }
    // Chunks are padded to an even length.
    offset = bodyOffset + chunkBytes + (chunkBytes % 2);
  }
  throw unsupported(path, "it has no data chunk");
}

/**
 * Mean square amplitude of each `frameSamples`-long frame of 16-bit mono audio, in order.
 * Read in large blocks so that profiling an hour of audio costs a few dozen reads.
 */
export async function readFrameEnergies(file: FileHandle, layout: WavLayout, frameSamples: number): Promise<Float64Array> {
  const frameBytes = frameSamples * 2;
  const frameCount = Math.floor(layout.dataBytes / frameBytes);
  const energies = new Float64Array(frameCount);
  const framesPerRead = 4096;
  for (let first = 0; first < frameCount; first += framesPerRead) {
    const count = Math.min(framesPerRead, frameCount - first);
    const block = await readAt(file, layout.dataOffset + first * frameBytes, count * frameBytes);
    for (let frame = 0; frame < count; frame += 1) {
      let sum = 0;
      for (let sample = 0; sample < frameSamples; sample += 1) {
        const value = block.readInt16LE((frame * frameSamples + sample) * 2);
        sum += value * value;
      }
      energies[first + frame] = sum / frameSamples;
    }
  }
  return energies;
}

/** Copies samples [startSample, endSample) of a mono 16-bit file into a new, self-contained WAV buffer. */
export async function extractWav(file: FileHandle, layout: WavLayout, startSample: number, endSample: number): Promise<Buffer> {
  const bytesPerSample = (layout.bitsPerSample / 8) * layout.channels;
  const samples = await readAt(file, layout.dataOffset + startSample * bytesPerSample, (endSample - startSample) * bytesPerSample);
  return Buffer.concat([wavHeader(layout, samples.length), samples]);
}

function wavHeader(layout: WavLayout, dataBytes: number): Buffer {
  const header = Buffer.alloc(44);
  const blockAlign = (layout.bitsPerSample / 8) * layout.channels;
  header.write("RIFF", 0, "ascii");
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write("WAVE", 8, "ascii");
  header.write("fmt ", 12, "ascii");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(pcmFormat, 20);
  header.writeUInt16LE(layout.channels, 22);
  header.writeUInt32LE(layout.sampleRate, 24);
  header.writeUInt32LE(layout.sampleRate * blockAlign, 28);
  header.writeUInt16LE(blockAlign, 32);
  header.writeUInt16LE(layout.bitsPerSample, 34);
  header.write("data", 36, "ascii");
  header.writeUInt32LE(dataBytes, 40);
  return header;
}

async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await file.read(buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/** Throws INPUT_UNSUPPORTED unless the layout is 16 kHz mono 16-bit PCM, the format speech recognition takes. */
export function requireSpeechLayout(layout: WavLayout, path: string): void {
  if (layout.sampleRate === 16_000 && layout.channels === 1 && layout.bitsPerSample === 16) return;
  throw unsupported(path, `it is ${layout.sampleRate} Hz, ${layout.channels} channel(s), ${layout.bitsPerSample}-bit`);
}

/**
 * Opens a 16 kHz mono 16-bit PCM WAV file and reads its layout: INPUT_NOT_FOUND when it cannot be read, INPUT_UNSUPPORTED
 * in another format (the file closed again). The caller closes the file.
 */
export async function openSpeechWav(path: string): Promise<{ file: FileHandle; layout: WavLayout }> {
  const file = await open(path, "r").catch((error: unknown) => {
    throw new VideoRagError("INPUT_NOT_FOUND", `cannot read ${path}`, { cause: error, subject: path });
  });
  try {
    const layout = await readWavLayout(file, path);
    requireSpeechLayout(layout, path);
    return { file, layout };
  } catch (error) {
    await file.close();
    throw error;
  }
}

function unsupported(path: string, reason: string): VideoRagError {
  return new VideoRagError("INPUT_UNSUPPORTED", `expected a 16 kHz mono 16-bit PCM WAV file, but ${reason}`, { subject: path });
}
