// Speech recognition with a Whisper model run by transformers.js, with segment timestamps.
// The pipeline wants the whole signal as one Float32Array, and an hour of 16 kHz audio is 230 MB of floats, so the file
// is fed in blocks of about five minutes cut at the quietest moment near each boundary; the pipeline cuts each block
// into its own 30 s windows, and segment times are shifted back onto the file's clock.

import type { AutomaticSpeechRecognitionOutput } from "@huggingface/transformers";
import type { Warning } from "../../spec/model.js";
import type { Transcriber, TranscriptSegment } from "../../spec/providers.js";
import {
  energyFrameSamples,
  energyFramesPerSecond,
  extractWav,
  quietestCut,
  readFrameEnergies,
  openSpeechWav,
  speechSampleRate,
  type AudioSpan,
} from "../../media/index.js";
import { lazy, loadPretrained, modelSource, throwIfAborted, type TransformersProviderOptions } from "./load-pretrained.js";
import { whisperLanguages } from "../../text/index.js";

export type WhisperTranscriberOptions = TransformersProviderOptions;

const blockSeconds = 300;
// A block boundary moves back by up to this much to land in a pause rather than inside a word.
const boundarySearchSeconds = 20;
const wavHeaderBytes = 44;


/** Creates a Transcriber over a Whisper model; nothing is read until the first call. */
export function createWhisperTranscriber(options: WhisperTranscriberOptions = {}): Transcriber {
  const source = modelSource(options, "Xenova/whisper-base.en");
  const recognizer = lazy(() =>
    loadPretrained(source, (transformers, pretrained) =>
      transformers.pipeline("automatic-speech-recognition", source.model, pretrained),
    ),
  );
  return {
    id: `transformers:${source.model}`,
    capabilities: {
      languages: source.model.endsWith(".en") ? ["en"] : [...whisperLanguages],
      maxConcurrency: 1,
      timestamps: "segment",
    },
    async transcribe(wavPath, transcribeOptions = {}) {
      const { signal, onProgress } = transcribeOptions;
      const warnings: Warning[] = [];
      throwIfAborted(signal, "speech recognition");
      const { file, layout } = await openSpeechWav(wavPath);
      try {
        const totalSamples = Math.floor(layout.dataBytes / 2);
        const totalSeconds = totalSamples / speechSampleRate;
        onProgress?.(0, totalSeconds);
        if (totalSamples < energyFrameSamples) return { segments: [], warnings };

        const recognize = await recognizer();
        const energies = await readFrameEnergies(file, layout, energyFrameSamples);
        const segments: TranscriptSegment[] = [];
        for (const block of planBlocks(energies, totalSamples)) {
          throwIfAborted(signal, "speech recognition");
          const wav = await extractWav(file, layout, block.startSample, block.endSample);
          const audio = pcmToFloat(wav.subarray(wavHeaderBytes));
          // A multilingual checkpoint told the video's language transcribes it, instead of guessing it per 30 s window.
          const known = transcribeOptions.language && !source.model.endsWith(".en") && whisperLanguages.includes(transcribeOptions.language) ? { language: transcribeOptions.language, task: "transcribe" } : {};
          const output = await recognize(audio, { return_timestamps: true, chunk_length_s: 30, ...known });
          segments.push(...toSegments(output, block.startSample / speechSampleRate, block.endSample / speechSampleRate));
          onProgress?.(block.endSample / speechSampleRate, totalSeconds);
        }
        // No language is reported: transformers.js's pipeline (4.3) decodes without `return_language`, so the language
        // Whisper detected never reaches its output; told one, the model transcribes in it (above).
        return { segments, warnings };
      } finally {
        await file.close();
      }
    },
  };
}

/**
 * Cuts the audio into blocks of about `blockSeconds`, each boundary moved back into the quietest 200 ms of the preceding
 * `boundarySearchSeconds`. `energies` holds one value per 10 ms frame (readFrameEnergies).
 */
export function planBlocks(energies: Float64Array, totalSamples: number): AudioSpan[] {
  const blocks: AudioSpan[] = [];
  const blockFrames = blockSeconds * energyFramesPerSecond;
  const searchFrames = boundarySearchSeconds * energyFramesPerSecond;
  let startFrame = 0;
  // The last block may run up to a third longer rather than leave a short tail.
  while (energies.length - startFrame > blockFrames * (4 / 3)) {
    const boundaryFrame = startFrame + blockFrames;
    const cutFrame = quietestCut(energies, boundaryFrame - searchFrames, boundaryFrame);
    blocks.push({ startSample: startFrame * energyFrameSamples, endSample: cutFrame * energyFrameSamples });
    startFrame = cutFrame;
  }
  blocks.push({ startSample: startFrame * energyFrameSamples, endSample: totalSamples });
  return blocks;
}

/** Whisper's chunks as segments on the file's clock; empty and bracketed non-speech ("[BLANK_AUDIO]", "(music)") dropped. */
export function toSegments(
  output: AutomaticSpeechRecognitionOutput,
  offsetSecond: number,
  blockEndSecond: number,
): TranscriptSegment[] {
  const segments: TranscriptSegment[] = [];
  const whole = { timestamp: [0, blockEndSecond - offsetSecond] as [number, number], text: output.text };
  for (const chunk of output.chunks ?? [whole]) {
    const text = chunk.text.trim();
    if (!text || /^(\[[^\]]*\]|\([^)]*\))$/.test(text)) continue;
    // The last chunk of a window can come back without an end time (null) when the speech runs past it.
    const [start, end] = chunk.timestamp as [number | null, number | null];
    const startSecond = Math.min(offsetSecond + (start ?? 0), blockEndSecond);
    const endSecond = end === null || end === undefined ? blockEndSecond : Math.min(offsetSecond + end, blockEndSecond);
    segments.push({ startSecond: round(startSecond), endSecond: round(Math.max(startSecond, endSecond)), text });
  }
  return segments;
}

function pcmToFloat(pcm: Buffer): Float32Array {
  const samples = new Float32Array(Math.floor(pcm.length / 2));
  for (let index = 0; index < samples.length; index += 1) samples[index] = pcm.readInt16LE(index * 2) / 32768;
  return samples;
}

function round(second: number): number {
  return Math.round(second * 1000) / 1000;
}
