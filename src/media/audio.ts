// Audio for speech recognition: extraction to 16 kHz mono 16-bit WAV, the format every transcriber takes
// (wav-file.ts reads such files back).

import { VideoRagError } from "../spec/index.js";
import { ffmpegPath } from "./ffmpeg-path.js";
import { lastMeaningfulLine, runProcess } from "./run-process.js";

export interface ExtractAudioOptions {
  /** Where the extract starts, in seconds; default the start. */
  startSecond?: number;
  /** How long the extract is; default to the end. */
  durationSeconds?: number;
  signal?: AbortSignal;
}

/**
 * Writes the first audio stream of `path` (or the stretch given) to `wavPath` as 16 kHz mono signed 16-bit PCM WAV.
 * Callers check `MediaInfo.hasAudio` first; a file without audio fails with INPUT_UNSUPPORTED.
 */
export async function extractAudio(path: string, wavPath: string, options: ExtractAudioOptions = {}): Promise<void> {
  const startSecond = options.startSecond ?? 0;
  if (!(startSecond >= 0)) throw new VideoRagError("ARGUMENT_INVALID", `startSecond must be >= 0, not ${startSecond}`);
  if (options.durationSeconds !== undefined && !(options.durationSeconds > 0)) {
    throw new VideoRagError("ARGUMENT_INVALID", `durationSeconds must be > 0, not ${options.durationSeconds}`);
  }
  const result = await runProcess(
    "ffmpeg",
    [
      "-hide_banner", "-nostdin", "-v", "error", "-y",
      // An input seek: exact for audio, and ffmpeg reads nothing before it.
      ...(startSecond > 0 ? ["-ss", String(startSecond)] : []),
      ...(options.durationSeconds !== undefined ? ["-t", String(options.durationSeconds)] : []),
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
