// Short-time features for the lite diarizer: mel-frequency cepstra every 10 ms over 25 ms windows of a 16 kHz mono
// 16-bit WAV, read block by block so an hour of audio never sits in memory (its features do: 35 MB of mel energies).
// Plain typed-array arithmetic and a radix-2 FFT written here; no program is spawned and no model is loaded.

import { openSpeechWav } from "../../media/index.js";
import { VideoRagError } from "../../spec/index.js";

/** The sample rate every diarizer input has (the project's speech format). */
export const featureSampleRate = 16_000;
/** Samples between frame starts: 10 ms. */
export const hopSamples = 160;
/** Samples in one analysis window: 25 ms. */
export const windowSamples = 400;
/** Seconds between frames. */
export const frameSeconds = hopSamples / featureSampleRate;
/** The time of frame `t` is `t * frameSeconds + frameCentreSeconds`: the middle of its window. */
export const frameCentreSeconds = windowSamples / 2 / featureSampleRate;

// 1024 points, not 512: the autocorrelation the pitch comes from must not wrap around for lags up to 14 ms.
const fftSize = 1024;
const spectrumBins = fftSize / 2 + 1;
/** Pitch is searched between 70 Hz and 400 Hz. */
const shortestLag = Math.floor(featureSampleRate / 400);
const longestLag = Math.ceil(featureSampleRate / 70);
/** Normalised autocorrelation above which a frame is voiced (Boersma's 0.45, a little stricter for noisy video). */
const voicingThreshold = 0.5;
/** Frames read from the file per block: 30 s of audio. */
const blockFrames = 3000;

/** Mel spectrum and loudness of every frame of one file: what the cepstra are computed from. */
export interface FrameFeatures {
  frameCount: number;
  melBands: number;
  /** frameCount × melBands band energies, row-major. */
  melEnergies: Float32Array;
  /** Natural log of each frame's mean square amplitude (full scale = 0). */
  logEnergies: Float32Array;
  /** Natural log of each frame's pitch in hertz; NaN where the frame is not voiced. */
  logPitches: Float32Array;
  durationSeconds: number;
}

export interface SpectrumSettings {
  melBands: number;
  lowHertz: number;
  highHertz: number;
}

export interface CepstrumSettings {
  /** Coefficients per frame (c1 … cN; c0 is left out because it is loudness, not voice). */
  cepstra: number;
  /** How much of the estimated steady background each mel band loses before the log (spectral subtraction); 0 for none. */
  noiseSubtraction: number;
  /** What a band keeps at least, as a share of its energy, so subtraction never leaves a hole. */
  spectralFloor: number;
}

/** Reads `wavPath` (16 kHz mono 16-bit PCM) and computes its frame features. */
export async function readFrameFeatures(wavPath: string, settings: SpectrumSettings, signal?: AbortSignal): Promise<FrameFeatures> {
  const { file, layout } = await openSpeechWav(wavPath);
  try {
    const totalSamples = Math.floor(layout.dataBytes / 2);
    const frameCount = totalSamples >= windowSamples ? Math.floor((totalSamples - windowSamples) / hopSamples) + 1 : 0;
    const analyse = createFrameAnalyser(settings);
    const features: FrameFeatures = {
      frameCount,
      melBands: settings.melBands,
      melEnergies: new Float32Array(frameCount * settings.melBands),
      logEnergies: new Float32Array(frameCount),
      logPitches: new Float32Array(frameCount),
      durationSeconds: totalSamples / featureSampleRate,
    };
    const blockSamples = (blockFrames - 1) * hopSamples + windowSamples;
    const bytes = Buffer.alloc(blockSamples * 2);
    const samples = new Float32Array(blockSamples);
    for (let firstFrame = 0; firstFrame < frameCount; firstFrame += blockFrames) {
      if (signal?.aborted) throw new VideoRagError("INTERRUPTED", "the diarization was cancelled", { cause: signal.reason });
      const frames = Math.min(blockFrames, frameCount - firstFrame);
      const wanted = (frames - 1) * hopSamples + windowSamples;
      const { bytesRead } = await file.read(bytes, 0, wanted * 2, layout.dataOffset + firstFrame * hopSamples * 2);
      const got = Math.floor(bytesRead / 2);
      for (let index = 0; index < wanted; index += 1) samples[index] = index < got ? bytes.readInt16LE(index * 2) / 32768 : 0;
      for (let frame = 0; frame < frames; frame += 2) analyse(samples, frame * hopSamples, firstFrame + frame, frame + 1 < frames, features);
    }
    return features;
  } finally {
    await file.close();
  }
}

/**
 * Analyses two frames at once (`frame` at `samples[start]` and, when `second`, the next one a hop later), writing their
 * mel energies, log energies and log pitches into `features`. Two real frames share one complex FFT (one in the real
 * part, one in the imaginary), and so do their two autocorrelations; tables and scratch buffers are made once.
 */
type FrameAnalyser = (samples: Float32Array, start: number, frame: number, second: boolean, features: FrameFeatures) => void;

function createFrameAnalyser(settings: SpectrumSettings): FrameAnalyser {
  const hamming = new Float64Array(windowSamples);
  for (let index = 0; index < windowSamples; index += 1) hamming[index] = 0.54 - 0.46 * Math.cos((2 * Math.PI * index) / (windowSamples - 1));
  const filters = melFilterbank(settings.melBands, settings.lowHertz, settings.highHertz);
  // Pre-emphasis (1 - 0.97 z⁻¹) applied in the spectrum, so the pitch sees the signal as it is: |1 - 0.97 e^(-jω)|².
  const emphasis = Float64Array.from({ length: spectrumBins }, (_, bin) => 1 + 0.97 * 0.97 - 2 * 0.97 * Math.cos((2 * Math.PI * bin) / fftSize));
  const fft = createFft(fftSize);
  // The window's own autocorrelation, which the frame's is divided by (Boersma 1993) so long lags are not penalised.
  const windowCorrelation = new Float64Array(longestLag + 2);
  for (let lag = 0; lag < windowCorrelation.length; lag += 1) {
    let sum = 0;
    for (let index = 0; index + lag < windowSamples; index += 1) sum += (hamming[index] as number) * (hamming[index + lag] as number);
    windowCorrelation[lag] = sum;
  }
  const real = new Float64Array(fftSize);
  const imaginary = new Float64Array(fftSize);
  const powers = [new Float64Array(spectrumBins), new Float64Array(spectrumBins)] as const;
  const energies = new Float64Array(2);
  return (samples, start, frame, second, features) => {
    real.fill(0);
    imaginary.fill(0);
    for (let which = 0; which < (second ? 2 : 1); which += 1) {
      const target = which === 0 ? real : imaginary;
      const offset = start + which * hopSamples;
      let mean = 0;
      for (let index = 0; index < windowSamples; index += 1) mean += samples[offset + index] as number;
      mean /= windowSamples;
      let energy = 0;
      for (let index = 0; index < windowSamples; index += 1) {
        const value = (samples[offset + index] as number) - mean;
        energy += value * value;
        target[index] = value * (hamming[index] as number);
      }
      energies[which] = energy;
    }
    fft(real, imaginary);
    // Z = FFT(a + i b): A[k] = (Z[k] + conj Z[N-k]) / 2, B[k] = (Z[k] - conj Z[N-k]) / 2i.
    for (let bin = 0; bin < spectrumBins; bin += 1) {
      const mirror = (fftSize - bin) % fftSize;
      const zr = real[bin] as number;
      const zi = imaginary[bin] as number;
      const mr = real[mirror] as number;
      const mi = imaginary[mirror] as number;
      powers[0][bin] = ((zr + mr) * (zr + mr) + (zi - mi) * (zi - mi)) / 4;
      powers[1][bin] = ((zi + mi) * (zi + mi) + (zr - mr) * (zr - mr)) / 4;
    }
    const { melBands, melEnergies, logEnergies, logPitches } = features;
    for (let which = 0; which < (second ? 2 : 1); which += 1) {
      const power = powers[which] as Float64Array;
      const out = (frame + which) * melBands;
      for (let band = 0; band < filters.length; band += 1) {
        const filter = filters[band] as MelFilter;
        let sum = 0;
        for (let index = 0; index < filter.weights.length; index += 1) {
          const bin = filter.firstBin + index;
          sum += (filter.weights[index] as number) * (power[bin] as number) * (emphasis[bin] as number);
        }
        melEnergies[out + band] = sum;
      }
      logEnergies[frame + which] = Math.log((energies[which] as number) / windowSamples + 1e-10);
    }
    // Both autocorrelations from one more FFT: the power spectra are real and even, so their transforms are real.
    for (let bin = 0; bin < spectrumBins; bin += 1) {
      real[bin] = powers[0][bin] as number;
      imaginary[bin] = powers[1][bin] as number;
      if (bin > 0 && bin < fftSize / 2) {
        real[fftSize - bin] = powers[0][bin] as number;
        imaginary[fftSize - bin] = powers[1][bin] as number;
      }
    }
    fft(real, imaginary);
    logPitches[frame] = pitchOf(real, windowCorrelation);
    if (second) logPitches[frame + 1] = pitchOf(imaginary, windowCorrelation);
  };
}

/** Log pitch from one frame's autocorrelation, or NaN when no lag repeats the frame strongly enough. */
function pitchOf(correlation: Float64Array, windowCorrelation: Float64Array): number {
  const zero = correlation[0] as number;
  if (!(zero > 1e-12)) return Number.NaN;
  const normalised = (lag: number): number => (correlation[lag] as number) / zero / ((windowCorrelation[lag] as number) / (windowCorrelation[0] as number));
  let bestLag = -1;
  let best = voicingThreshold;
  for (let lag = shortestLag; lag <= longestLag; lag += 1) {
    const value = normalised(lag);
    if (value > best && value >= normalised(lag - 1) && value >= normalised(lag + 1)) {
      best = value;
      bestLag = lag;
    }
  }
  if (bestLag < 0) return Number.NaN;
  // A peak at half the lag almost as strong is the true period; the longer one is its double.
  const half = Math.round(bestLag / 2);
  if (half >= shortestLag) {
    for (const lag of [half - 1, half, half + 1]) {
      if (normalised(lag) > 0.9 * best && normalised(lag) >= normalised(lag - 1) && normalised(lag) >= normalised(lag + 1)) {
        bestLag = lag;
        break;
      }
    }
  }
  const before = normalised(bestLag - 1);
  const at = normalised(bestLag);
  const after = normalised(bestLag + 1);
  const curvature = before - 2 * at + after;
  const refined = curvature < 0 ? bestLag + (0.5 * (before - after)) / curvature : bestLag;
  return Math.log(featureSampleRate / refined);
}

/**
 * Cepstra c1 … cN of every frame from its mel energies, after subtracting the steady background: the mean spectrum of
 * the quietest tenth of the frames. Without it, hum, hiss or a music bed shared by every voice makes the voices alike.
 */
export function melCepstra(features: FrameFeatures, settings: CepstrumSettings): Float32Array {
  const { cepstra } = settings;
  const { melBands, melEnergies, logEnergies, frameCount } = features;
  const noise = new Float64Array(melBands);
  if (settings.noiseSubtraction > 0 && frameCount > 0) {
    const order = Array.from({ length: frameCount }, (_, index) => index).sort((a, b) => (logEnergies[a] as number) - (logEnergies[b] as number));
    const quiet = Math.max(1, Math.floor(frameCount / 10));
    for (let rank = 0; rank < quiet; rank += 1) {
      const frame = order[rank] as number;
      for (let band = 0; band < melBands; band += 1) noise[band] = (noise[band] as number) + (melEnergies[frame * melBands + band] as number) / quiet;
    }
    for (let band = 0; band < melBands; band += 1) noise[band] = (noise[band] as number) * settings.noiseSubtraction;
  }
  // DCT-II rows c1 … cN over the log mel energies.
  const dct = new Float64Array(cepstra * melBands);
  for (let k = 0; k < cepstra; k += 1) {
    for (let band = 0; band < melBands; band += 1) dct[k * melBands + band] = Math.sqrt(2 / melBands) * Math.cos((Math.PI * (k + 1) * (band + 0.5)) / melBands);
  }
  const result = new Float32Array(frameCount * cepstra);
  const logMel = new Float64Array(melBands);
  for (let frame = 0; frame < frameCount; frame += 1) {
    for (let band = 0; band < melBands; band += 1) {
      const energy = melEnergies[frame * melBands + band] as number;
      // The floor keeps digital silence finite (about -92 dB re full scale).
      logMel[band] = Math.log(Math.max(energy - (noise[band] as number), settings.spectralFloor * energy) + 1e-9);
    }
    for (let k = 0; k < cepstra; k += 1) {
      let sum = 0;
      const row = k * melBands;
      for (let band = 0; band < melBands; band += 1) sum += (dct[row + band] as number) * (logMel[band] as number);
      result[frame * cepstra + k] = sum;
    }
  }
  return result;
}

interface MelFilter {
  firstBin: number;
  weights: Float64Array;
}

/** Triangular filters equally spaced on the mel scale (HTK's formula), over the FFT's bins. */
function melFilterbank(bands: number, lowHertz: number, highHertz: number): MelFilter[] {
  const mel = (hertz: number): number => 2595 * Math.log10(1 + hertz / 700);
  const hertz = (value: number): number => 700 * (10 ** (value / 2595) - 1);
  const low = mel(lowHertz);
  const high = mel(highHertz);
  const edges = Array.from({ length: bands + 2 }, (_, index) => (hertz(low + ((high - low) * index) / (bands + 1)) * fftSize) / featureSampleRate);
  const filters: MelFilter[] = [];
  for (let band = 0; band < bands; band += 1) {
    const left = edges[band] as number;
    const centre = edges[band + 1] as number;
    const right = edges[band + 2] as number;
    const firstBin = Math.ceil(left);
    const lastBin = Math.min(spectrumBins - 1, Math.floor(right));
    const weights = new Float64Array(Math.max(1, lastBin - firstBin + 1));
    for (let bin = firstBin; bin <= lastBin; bin += 1) {
      weights[bin - firstBin] = bin <= centre ? (bin - left) / Math.max(centre - left, 1e-9) : (right - bin) / Math.max(right - centre, 1e-9);
    }
    filters.push({ firstBin, weights });
  }
  return filters;
}

/** An in-place iterative radix-2 FFT of a fixed power-of-two size, tables precomputed. */
export function createFft(size: number): (real: Float64Array, imaginary: Float64Array) => void {
  if (size < 2 || (size & (size - 1)) !== 0) throw new VideoRagError("ARGUMENT_INVALID", `the FFT size must be a power of two, not ${size}`);
  const reversed = new Uint32Array(size);
  const bits = Math.log2(size);
  for (let index = 0; index < size; index += 1) {
    let value = 0;
    for (let bit = 0; bit < bits; bit += 1) value |= ((index >> bit) & 1) << (bits - 1 - bit);
    reversed[index] = value;
  }
  const cosines = new Float64Array(size / 2);
  const sines = new Float64Array(size / 2);
  for (let index = 0; index < size / 2; index += 1) {
    cosines[index] = Math.cos((2 * Math.PI * index) / size);
    sines[index] = -Math.sin((2 * Math.PI * index) / size);
  }
  return (real, imaginary) => {
    for (let index = 0; index < size; index += 1) {
      const other = reversed[index] as number;
      if (other > index) {
        const re = real[index] as number;
        real[index] = real[other] as number;
        real[other] = re;
        const im = imaginary[index] as number;
        imaginary[index] = imaginary[other] as number;
        imaginary[other] = im;
      }
    }
    for (let span = 2; span <= size; span *= 2) {
      const half = span / 2;
      const stride = size / span;
      for (let start = 0; start < size; start += span) {
        for (let offset = 0; offset < half; offset += 1) {
          const twiddleRe = cosines[offset * stride] as number;
          const twiddleIm = sines[offset * stride] as number;
          const even = start + offset;
          const odd = even + half;
          const oddRe = real[odd] as number;
          const oddIm = imaginary[odd] as number;
          const productRe = oddRe * twiddleRe - oddIm * twiddleIm;
          const productIm = oddRe * twiddleIm + oddIm * twiddleRe;
          const evenRe = real[even] as number;
          const evenIm = imaginary[even] as number;
          real[odd] = evenRe - productRe;
          imaginary[odd] = evenIm - productIm;
          real[even] = evenRe + productRe;
          imaginary[even] = evenIm + productIm;
        }
      }
    }
  };
}
