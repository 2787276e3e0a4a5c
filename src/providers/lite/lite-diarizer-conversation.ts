// Conversations with known turns, built from recordings of single voices, for the diarizer's tests and benchmark:
// decode any audio to 16 kHz mono samples (ffmpeg), find where a recording speaks, lay turns end to end with pauses
// or overlaps, mix in a background, and write the 16 kHz mono 16-bit WAV every diarizer takes.

import { writeFile } from "node:fs/promises";
import { ffmpegPath } from "../../media/ffmpeg-path.js";
import { runProcess, speechSampleRate } from "../../media/index.js";
import type { SpeakerTurn } from "../../spec/index.js";

/** The first audio stream of `path` as 16 kHz mono samples in [-1, 1). */
export async function decodeSpeech(path: string, options: { startSecond?: number; durationSeconds?: number; signal?: AbortSignal } = {}): Promise<Float32Array> {
  const { stdout } = await runProcess(
    "ffmpeg",
    [
      "-hide_banner", "-nostdin", "-v", "error",
      ...(options.startSecond ? ["-ss", String(options.startSecond)] : []),
      ...(options.durationSeconds ? ["-t", String(options.durationSeconds)] : []),
      "-i", ffmpegPath(path),
      "-map", "0:a:0", "-ac", "1", "-ar", String(speechSampleRate), "-f", "s16le", "-c:a", "pcm_s16le", "-",
    ],
    { signal: options.signal },
  );
  const samples = new Float32Array(Math.floor(stdout.length / 2));
  for (let index = 0; index < samples.length; index += 1) samples[index] = stdout.readInt16LE(index * 2) / 32768;
  return samples;
}

/** Writes samples as a 16 kHz mono 16-bit PCM WAV file, clipping what exceeds full scale. */
export async function writeSpeechWav(path: string, samples: Float32Array): Promise<void> {
  const data = Buffer.alloc(samples.length * 2);
  for (let index = 0; index < samples.length; index += 1) {
    data.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round((samples[index] as number) * 32768))), index * 2);
  }
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "ascii");
  header.writeUInt32LE(36 + data.length, 4);
  header.write("WAVEfmt ", 8, "ascii");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(speechSampleRate, 24);
  header.writeUInt32LE(speechSampleRate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36, "ascii");
  header.writeUInt32LE(data.length, 40);
  await writeFile(path, Buffer.concat([header, data]));
}

/**
 * Where a recording of one voice speaks, in samples: 10 ms frames louder than 35 dB below its loud speech (the 99th
 * percentile), 10 dB above its noise floor (the 10th) and -60 dBFS, pauses shorter than `bridgeSeconds` bridged.
 * What a careful annotator would mark as that voice's speech.
 */
export function speechStretches(samples: Float32Array, bridgeSeconds = 0.3): { startSample: number; endSample: number }[] {
  const frame = speechSampleRate / 100;
  const frames = Math.floor(samples.length / frame);
  if (frames === 0) return [];
  const energies = new Float64Array(frames);
  for (let index = 0; index < frames; index += 1) {
    let sum = 0;
    for (let sample = index * frame; sample < (index + 1) * frame; sample += 1) sum += (samples[sample] as number) ** 2;
    energies[index] = sum / frame;
  }
  const sorted = Float64Array.from(energies).sort();
  const loud = sorted[Math.floor(0.99 * (frames - 1))] as number;
  const floor = sorted[Math.floor(0.1 * (frames - 1))] as number;
  const threshold = Math.max(loud * 10 ** -3.5, floor * 10, 1e-6);
  const stretches: { startSample: number; endSample: number }[] = [];
  for (let index = 0; index < frames; index += 1) {
    if ((energies[index] as number) <= threshold) continue;
    const last = stretches.at(-1);
    if (last && index * frame - last.endSample <= bridgeSeconds * speechSampleRate) last.endSample = (index + 1) * frame;
    else stretches.push({ startSample: index * frame, endSample: (index + 1) * frame });
  }
  return stretches.filter((stretch) => stretch.endSample - stretch.startSample >= 0.1 * speechSampleRate);
}

/** The part of a recording from its first speech to its last. */
export function trimSilence(samples: Float32Array): Float32Array {
  const stretches = speechStretches(samples);
  const first = stretches[0];
  const last = stretches.at(-1);
  return first && last ? samples.subarray(first.startSample, last.endSample) : samples.subarray(0, 0);
}

/** One turn of a built conversation. */
export interface ConversationTurn {
  speaker: string;
  /** The voice's samples, silence trimmed. */
  samples: Float32Array;
  /** Seconds between the end of the turn before and this one's start; negative for an overlap. */
  gapSeconds: number;
  /** Linear gain applied to the samples; default 1. */
  gain?: number;
}

/** A built conversation: its samples and who speaks when (each turn split at its own pauses longer than 0.3 s). */
export interface Conversation {
  samples: Float32Array;
  reference: SpeakerTurn[];
  /** Where each turn starts and ends, in seconds, pauses included. */
  turnSpans: { startSecond: number; endSecond: number; speaker: string }[];
}

/** Lays the turns out in order after `leadSeconds` of silence, sums overlaps, and adds `background` (looped) beneath. */
export function mixConversation(
  turns: ConversationTurn[],
  options: { leadSeconds?: number; tailSeconds?: number; background?: Float32Array; backgroundGain?: number } = {},
): Conversation {
  const rate = speechSampleRate;
  const starts: number[] = [];
  let cursor = Math.round((options.leadSeconds ?? 0.5) * rate);
  let end = cursor;
  for (const [index, turn] of turns.entries()) {
    const start = index === 0 ? cursor : Math.max(0, cursor + Math.round(turn.gapSeconds * rate));
    starts.push(start);
    cursor = start + turn.samples.length;
    end = Math.max(end, cursor);
  }
  const samples = new Float32Array(end + Math.round((options.tailSeconds ?? 0.5) * rate));
  const reference: SpeakerTurn[] = [];
  const turnSpans: Conversation["turnSpans"] = [];
  turns.forEach((turn, index) => {
    const start = starts[index] as number;
    const gain = turn.gain ?? 1;
    for (let sample = 0; sample < turn.samples.length; sample += 1) samples[start + sample] = (samples[start + sample] as number) + gain * (turn.samples[sample] as number);
    turnSpans.push({ startSecond: start / rate, endSecond: (start + turn.samples.length) / rate, speaker: turn.speaker });
    for (const stretch of speechStretches(turn.samples)) {
      reference.push({ startSecond: (start + stretch.startSample) / rate, endSecond: (start + stretch.endSample) / rate, speaker: turn.speaker });
    }
  });
  const background = options.background;
  if (background && background.length > 0) {
    const gain = options.backgroundGain ?? 0.1;
    for (let sample = 0; sample < samples.length; sample += 1) samples[sample] = (samples[sample] as number) + gain * (background[sample % background.length] as number);
  }
  reference.sort((a, b) => a.startSecond - b.startSecond);
  return { samples, reference, turnSpans };
}

/** Root-mean-square level of samples, to set voices and backgrounds to chosen loudness. */
export function rootMeanSquare(samples: Float32Array): number {
  let sum = 0;
  for (const value of samples) sum += value * value;
  return Math.sqrt(sum / Math.max(1, samples.length));
}
