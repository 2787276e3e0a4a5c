// Audio for speech recognition: extraction to 16 kHz mono 16-bit WAV, the format every transcriber takes, and reading
// such a file's samples back.

import { readFileSync } from "node:fs";
import { endianness } from "node:os";
import { VideoRagError } from "../spec/index.js";
import { ffmpegPath } from "./ffmpeg-path.js";
import { lastMeaningfulLine, runProcess } from "./run-process.js";

/**
 * Writes the first audio stream of `path` to `wavPath` as 16 kHz mono signed 16-bit PCM WAV.
 * Callers check `MediaInfo.hasAudio` first; a file without audio fails with INPUT_UNSUPPORTED.
 */
export async function extractAudio(path: string, wavPath: string, options: { signal?: AbortSignal } = {}): Promise<void> {
  const result = await runProcess(
    "ffmpeg",
    [
      "-hide_banner", "-nostdin", "-v", "error", "-y",
      "-i", ffmpegPath(path),
      "-map", "0:a:0", "-vn", "-sn", "-dn",
      "-ac", "1", "-ar", "16000", "-c:a", "pcm_s16le", "-f", "wav",
      ffmpegPath(wavPath),
    ],
    { signal: options.signal, allowFailure: true },
  );
  if (result.exitCode === 0) return;
  const why = lastMeaningfulLine(result.stderr);
  if (/matches no streams/.test(result.stderr)) {
    throw new VideoRagError("INPUT_UNSUPPORTED", "the file has no audio stream to extract", { subject: path });
  }
  throw new VideoRagError("TOOL_FAILED", `ffmpeg could not extract the audio: ${why}`, { subject: path });
}

/** The samples of a 16-bit PCM WAV file (interleaved if it has several channels), read from its `data` chunk. */
export function readWavSamples(wavPath: string): Int16Array {
  let bytes: Buffer;
  try {
    bytes = readFileSync(wavPath);
  } catch (error) {
    throw new VideoRagError("INPUT_NOT_FOUND", "cannot read the WAV file", { cause: error, subject: wavPath });
  }
  const invalid = (why: string): VideoRagError => new VideoRagError("INPUT_UNSUPPORTED", `not a 16-bit PCM WAV file: ${why}`, { subject: wavPath });
  if (bytes.length < 12 || bytes.toString("latin1", 0, 4) !== "RIFF" || bytes.toString("latin1", 8, 12) !== "WAVE") {
    throw invalid("no RIFF/WAVE header");
  }
  let offset = 12;
  let sawFormat = false;
  while (offset + 8 <= bytes.length) {
    const chunkId = bytes.toString("latin1", offset, offset + 4);
    const declaredSize = bytes.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (chunkId === "fmt ") {
      const format = bytes.readUInt16LE(body);
      const bitsPerSample = bytes.readUInt16LE(body + 14);
      // 0xfffe is WAVE_FORMAT_EXTENSIBLE, which ffmpeg writes for some layouts; its samples are still plain PCM here.
      if ((format !== 1 && format !== 0xfffe) || bitsPerSample !== 16) throw invalid(`format ${format}, ${bitsPerSample} bits`);
      sawFormat = true;
    } else if (chunkId === "data") {
      if (!sawFormat) throw invalid("data before the fmt chunk");
      // Streamed WAVs leave the size at 0 or 0xffffffff; a cut file is shorter than it says. Read what is there.
      const available = bytes.length - body;
      const size = declaredSize === 0 || declaredSize > available ? available : declaredSize;
      return toInt16(bytes.subarray(body, body + size - (size % 2)));
    }
    // Chunks are padded to an even size.
    offset = body + declaredSize + (declaredSize % 2);
  }
  throw invalid("no data chunk");
}

function toInt16(bytes: Buffer): Int16Array {
  const samples = new Int16Array(bytes.length / 2);
  if (endianness() === "LE") {
    new Uint8Array(samples.buffer).set(bytes);
  } else {
    for (let index = 0; index < samples.length; index++) samples[index] = bytes.readInt16LE(index * 2);
  }
  return samples;
}
