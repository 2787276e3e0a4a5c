// The lite speaker diarizer: who speaks when, with no model weights, as classical systems (LIUM, the NIST RT era) did.
//  1. MFCCs every 10 ms (lite-diarizer-features.ts), normalised over the speech.
//  2. Speech: the regions voice-activity detection gave, else frames loud enough above the file's noise floor, so
//     silence and long pauses go to no one.
//  3. Voice changes inside each stretch of speech: peaks of ΔBIC between two sliding windows (full covariance).
//  4. The pieces grouped bottom-up by ΔBIC, stopping early on purpose (a low penalty): each group should hold one
//     voice, and a voice of a few seconds should keep a group of its own.
//  5. A background GMM of the file's speech; a model per group by MAP adaptation; Viterbi re-segmentation.
//  6. The groups merged bottom-up while the closest two look like one voice (or until `speakers` remain): Hotelling's
//     T² between their half-second pieces' mean cepstra, whitened by the spread within the groups of this very file
//     (lite-diarizer-voices.ts), never two whose median pitch lies far apart; then one more re-segmentation. The
//     older rule, the cross likelihood ratio of the groups' mixtures (`voiceMerge: 0`), told voices apart less well
//     and let short voices be swallowed. An eigengap count over 2 s pieces (lite-diarizer-spectral.ts,
//     `spectralCount`) can set where the CLR merging stops instead; it is off: it scored worse held out
//     (docs/benchmarks.md).
// Everything runs on the calling thread over typed arrays; an hour of audio takes seconds (see docs/benchmarks.md).

import type { Diarizer, SpeakerTurn, Warning } from "../../spec/index.js";
import { VideoRagError } from "../../spec/index.js";
import { speechRegionsWithin } from "../../media/index.js";
import { readFrameFeatures, frameCentreSeconds, frameSeconds, melCepstra, type FrameFeatures } from "./lite-diarizer-features.js";
import { clusterByBic, findChanges, type FeatureMatrix, type FrameSpan } from "./lite-diarizer-gaussian.js";
import { cepstralVectors, cosineAffinity, estimateSpeakers, piecesOf } from "./lite-diarizer-spectral.js";
import { clusterByVoiceDistance } from "./lite-diarizer-voices.js";
import { adaptMeans, clusterByClr, collectStats, frameScores, renumber, topComponents, trainUbm, viterbi, type SpeechFrames } from "./lite-diarizer-gmm.js";

/** Every setting of the pipeline; the defaults were tuned on `npm run bench speakers` (its tuning half). */
export interface LiteDiarizerSettings {
  /** Cepstral coefficients computed per frame (c1 … cN). */
  cepstra: number;
  melBands: number;
  /** Share of the steady background (the quietest tenth of the frames) taken off each mel band; 0 for none. */
  noiseSubtraction: number;
  /** What a mel band keeps at least after that, as a share of its energy. */
  spectralFloor: number;
  /** Share of the speech frames, the loudest, that the voice models are estimated from: quiet frames are background. */
  reliableShare: number;
  /** Of those, how many the full-covariance steps (change detection, BIC clustering) use. */
  bicDimensions: number;
  /** Seconds in each window of the change detector. */
  changeWindowSeconds: number;
  /** BIC penalty weight of the change detector: higher finds fewer changes. */
  changePenalty: number;
  /** BIC penalty weight of the first clustering when the CLR merges (`voiceMerge` 0): higher merges more. */
  bicPenalty: number;
  /** Of the cepstra, how many the mixture models (re-segmentation, CLR clustering) use. */
  gmmDimensions: number;
  /** 1 to model each frame's pitch beside its cepstra (voices of one timbre often differ mostly in pitch), 0 not to. */
  pitch: number;
  /** Components of the background mixture. */
  ubmComponents: number;
  /** MAP relevance factor: frames a component needs before its mean is half the voice's. */
  relevance: number;
  /** Log-likelihood a change of voice costs in re-segmentation: higher makes longer turns. */
  switchPenalty: number;
  /** Re-segmentation passes before the CLR clustering. */
  resegmentPasses: number;
  /** Two groups are one voice while their cross likelihood ratio (nats per frame) is above this… */
  clrThreshold: number;
  /** …less this much per natural log of the smaller group's loud frames beyond 500 (5 s of speech). */
  clrSizeSlope: number;
  /**
   * 1 to let the eigengap of the pieces' affinity (lite-diarizer-spectral.ts) set the number of voices the CLR
   * clustering stops at, 0 for the CLR threshold alone. Off: on the benchmark's held-out half it counted worse (25% vs
   * 35% exact) though it did better on the tuning half.
   */
  spectralCount: number;
  /** The BIC penalty weight of the first clustering when the eigengap sets the count: lower, so no two voices share a group. */
  spectralBicPenalty: number;
  /** Seconds of speech in each piece the eigengap compares. */
  pieceSeconds: number;
  /** The largest share of the pieces kept as each piece's neighbours in the graph the eigengap is read from. */
  maxNeighbourShare: number;
  /** The most voices the eigengap looks for. */
  maxSpeakers: number;
  /**
   * 1 to decide which groups are one voice by Hotelling's T² between their pieces' mean cepstra, whitened by the
   * within-group spread of this file (lite-diarizer-voices.ts); 0 for the CLR of MAP-adapted mixtures.
   */
  voiceMerge: number;
  /** The BIC penalty weight of the first clustering when `voiceMerge` is on: lower, so short voices keep a group. */
  voiceBicPenalty: number;
  /** Two groups are one voice while their T² is below this. */
  voiceThreshold: number;
  /** Seconds of speech in each piece the T² compares. */
  voicePieceSeconds: number;
  /** Of the cepstra, how many the T² compares. */
  voiceDimensions: number;
  /**
   * Two groups whose median pitch (natural log, over their loud voiced frames) differs by more than this are never
   * one voice, whatever their cepstra say (0 for no such limit): voices of one synthesiser, or of one microphone, can
   * share a spectral envelope an octave apart.
   */
  pitchVeto: number;
  /** A frame is speech, when no regions are given, this far (natural log of power) above the noise floor… */
  energyMarginNats: number;
  /** …or above this share of the way from the noise floor to loud speech, whichever is higher. */
  energyShare: number;
}

export const defaultLiteDiarizerSettings: Readonly<LiteDiarizerSettings> = {
  cepstra: 19,
  melBands: 24,
  noiseSubtraction: 1,
  spectralFloor: 0.05,
  reliableShare: 0.7,
  bicDimensions: 12,
  changeWindowSeconds: 1.5,
  changePenalty: 1,
  bicPenalty: 4,
  gmmDimensions: 12,
  pitch: 0,
  ubmComponents: 32,
  relevance: 16,
  switchPenalty: 100,
  resegmentPasses: 2,
  clrThreshold: 0,
  clrSizeSlope: 0.15,
  spectralCount: 0,
  spectralBicPenalty: 2,
  pieceSeconds: 2,
  maxNeighbourShare: 0.15,
  maxSpeakers: 10,
  voiceMerge: 1,
  voiceBicPenalty: 2,
  voiceThreshold: 175,
  voicePieceSeconds: 0.5,
  voiceDimensions: 19,
  pitchVeto: 0.3,
  energyMarginNats: 1.4,
  energyShare: 0.3,
};

export interface LiteDiarizerOptions {
  /** Overrides of the tuned settings (benchmarks and experiments). */
  settings?: Partial<LiteDiarizerSettings>;
}

/** Bumped whenever a change can alter the turns, so the stage re-runs on ingested videos. */
const version = 3;

/** The graph sparsities the eigengap tries (neighbours kept per piece, as a share of the pieces), up to maxNeighbourShare. */
const neighbourShares = [0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5];

/** Creates the diarizer. Single-threaded CPU work: one call at a time per process. */
export function createLiteDiarizer(options: LiteDiarizerOptions = {}): Diarizer {
  const settings = { ...defaultLiteDiarizerSettings, ...options.settings };
  for (const [name, value] of Object.entries(settings)) {
    if (!(typeof value === "number" && Number.isFinite(value))) throw new VideoRagError("ARGUMENT_INVALID", `lite diarizer setting ${name} must be a number, not ${String(value)}`);
  }
  for (const name of ["bicDimensions", "gmmDimensions", "voiceDimensions"] as const) {
    if (!(Number.isInteger(settings[name]) && settings[name] >= 1 && settings[name] <= settings.cepstra)) {
      throw new VideoRagError("ARGUMENT_INVALID", `${name} must be a whole number between 1 and cepstra (${settings.cepstra}), not ${settings[name]}`);
    }
  }
  return {
    id: `lite-diarizer@${version}`,
    capabilities: { maxConcurrency: 1, embeddings: false },
    async diarize(wavPath, callOptions = {}) {
      const { signal, speechRegions, speakers } = callOptions;
      if (speakers !== undefined && !(Number.isInteger(speakers) && speakers >= 1)) {
        throw new VideoRagError("ARGUMENT_INVALID", `speakers must be a whole number of at least 1, not ${speakers}`);
      }
      const features = await readFrameFeatures(wavPath, { melBands: settings.melBands, lowHertz: 60, highHertz: 7600 }, signal);
      const regions = speechRegions
        ? speechRegionsWithin(speechRegions, features.durationSeconds)
        : loudRegions(features.logEnergies, settings.energyMarginNats, settings.energyShare);
      return diarizeFeatures(features, regions, settings, speakers, signal);
    },
  };
}

type Region = [startSecond: number, endSecond: number];

/**
 * Where the audio is loud enough to be speech, for when no voice-activity regions are given: the noise floor is the
 * 10th percentile of frame energy and loud speech the 95th. Pauses under 0.3 s are bridged, bursts under 0.25 s
 * dropped and 0.05 s of padding kept, as a voice-activity detector would.
 */
export function loudRegions(logEnergies: Float32Array, marginNats: number, share: number): Region[] {
  if (logEnergies.length === 0) return [];
  const sorted = Float32Array.from(logEnergies).sort();
  const floor = sorted[Math.floor(0.1 * (sorted.length - 1))] as number;
  const loud = sorted[Math.floor(0.95 * (sorted.length - 1))] as number;
  const threshold = Math.max(floor + marginNats, floor + share * (loud - floor));
  const time = (frame: number): number => frame * frameSeconds + frameCentreSeconds;
  const raw: Region[] = [];
  let start = -1;
  for (let frame = 0; frame <= logEnergies.length; frame += 1) {
    const loudEnough = frame < logEnergies.length && (logEnergies[frame] as number) > threshold;
    if (loudEnough && start < 0) start = frame;
    else if (!loudEnough && start >= 0) {
      raw.push([time(start) - frameSeconds / 2, time(frame - 1) + frameSeconds / 2]);
      start = -1;
    }
  }
  const bridged: Region[] = [];
  for (const region of raw) {
    const last = bridged.at(-1);
    if (last && region[0] - last[1] < 0.3) last[1] = region[1];
    else bridged.push(region);
  }
  const endSecond = time(logEnergies.length - 1) + frameSeconds / 2;
  return bridged.filter(([start, end]) => end - start >= 0.25).map(([start, end]) => [Math.max(0, start - 0.05), Math.min(endSecond, end + 0.05)]);
}

/** The pipeline after feature extraction; exported for the tests and the benchmark's settings search. */
export async function diarizeFeatures(
  features: FrameFeatures,
  regions: Region[],
  settings: LiteDiarizerSettings,
  speakers: number | undefined,
  signal?: AbortSignal,
): Promise<{ turns: SpeakerTurn[]; warnings: Warning[] }> {
  const warnings: Warning[] = [];
  const checkAbort = (): void => {
    if (signal?.aborted) throw new VideoRagError("INTERRUPTED", "the diarization was cancelled", { cause: signal.reason });
  };
  // Frames whose centre lies in a region, as stretches; regions that merge on the frame grid stay apart.
  const spans: FrameSpan[] = [];
  const spanRegions: Region[] = [];
  for (const region of regions) {
    const startFrame = Math.max(0, Math.ceil((region[0] - frameCentreSeconds) / frameSeconds));
    const endFrame = Math.min(features.frameCount, Math.floor((region[1] - frameCentreSeconds) / frameSeconds) + 1);
    const previous = spans.at(-1);
    const from = previous ? Math.max(startFrame, previous.endFrame) : startFrame;
    if (endFrame > from) {
      spans.push({ startFrame: from, endFrame });
      spanRegions.push(region);
    }
  }
  let speechCount = 0;
  for (const span of spans) speechCount += span.endFrame - span.startFrame;
  const speech: SpeechFrames = new Int32Array(speechCount);
  let filled = 0;
  for (const span of spans) for (let frame = span.startFrame; frame < span.endFrame; frame += 1) speech[filled++] = frame;
  // Under a second of speech is one voice as far as this method can tell.
  const tooShort = speechCount < 100;
  let labels: Int32Array = new Int32Array(speechCount);
  if (!tooShort) {
    // Each row: the pitch (when used) first, then c1 … cN, so the leading columns are what each step models.
    const pitchColumns = settings.pitch > 0 ? 1 : 0;
    const stride = settings.cepstra + pitchColumns;
    const values = withPitch(melCepstra(features, settings), settings.cepstra, pitchColumns > 0 ? continuousPitch(features.logPitches, spans) : undefined);
    normalise(values, stride, speech);
    const reliable = loudestFrames(features.logEnergies, speech, settings.reliableShare);
    const bicFeatures: FeatureMatrix = { values, stride, dimensions: settings.bicDimensions + pitchColumns, reliable };
    const gmmFeatures: FeatureMatrix = { values, stride, dimensions: settings.gmmDimensions + pitchColumns, reliable };
    const windowFrames = Math.round(settings.changeWindowSeconds / frameSeconds);
    const changeSettings = { windowFrames, minWindowFrames: Math.round(windowFrames / 3), stepFrames: 5, penaltyWeight: settings.changePenalty, ridge: 0.01 };
    const pieces: FrameSpan[] = [];
    for (const span of spans) {
      let start = span.startFrame;
      for (const change of findChanges(bicFeatures, span, changeSettings)) {
        pieces.push({ startFrame: start, endFrame: change });
        start = change;
      }
      pieces.push({ startFrame: start, endFrame: span.endFrame });
    }
    checkAbort();
    // The eigengap counts files of 40 s of speech or more (20 pieces; fewer fall apart by chance in a graph this
    // sparse) when no count is given; the others keep the CLR threshold.
    const pieceFrames = Math.round(settings.pieceSeconds / frameSeconds);
    const countBySpectrum = speakers === undefined && settings.spectralCount > 0 && speechCount >= 20 * pieceFrames;
    const byVoice = !countBySpectrum && settings.voiceMerge > 0;
    const firstPenalty = countBySpectrum ? settings.spectralBicPenalty : byVoice ? settings.voiceBicPenalty : settings.bicPenalty;
    const pieceLabels = clusterByBic(bicFeatures, pieces, { penaltyWeight: firstPenalty, ridge: 0.01, minClusters: speakers ?? 1 });
    let at = 0;
    pieces.forEach((piece, index) => {
      labels.fill(pieceLabels[index] as number, at, at + piece.endFrame - piece.startFrame);
      at += piece.endFrame - piece.startFrame;
    });
    labels = renumber(labels);
    checkAbort();
    const ubm = trainUbm(gmmFeatures, speech, { components: settings.ubmComponents, iterations: 3, maxTrainingFrames: 30_000 });
    const top = topComponents(ubm, gmmFeatures, speech, 5);
    const resegment = (current: Int32Array): Int32Array => {
      const count = clusterCountOf(current);
      if (count < 2) return current;
      const scores = collectStats(ubm, top, gmmFeatures, speech, current, count).map((stats) => {
        const out = new Float32Array(speech.length);
        frameScores(ubm, top, gmmFeatures, speech, adaptMeans(ubm, stats, settings.relevance), out);
        return out;
      });
      return renumber(viterbi(scores, speech, settings.switchPenalty));
    };
    for (let pass = 0; pass < settings.resegmentPasses; pass += 1) {
      labels = resegment(labels);
      checkAbort();
    }
    // The count: the one asked for, else what the eigengap of the pieces' affinity says (never more groups than the
    // re-segmentation left), else wherever the CLR threshold stops.
    let target = speakers;
    if (countBySpectrum) {
      const voicePieces = piecesOf(labels, speech, pieceFrames, Math.round(pieceFrames / 2), 300);
      const vectors = cepstralVectors({ values, stride, dimensions: stride, reliable }, speech, voicePieces);
      const shares = neighbourShares.filter((share) => share <= settings.maxNeighbourShare + 1e-9);
      const estimate = estimateSpeakers(cosineAffinity(vectors), vectors.length, settings.maxSpeakers, shares);
      if (estimate) target = Math.min(estimate.speakers, clusterCountOf(labels));
    }
    const countLimits = { minClusters: target ?? 1, ...(target !== undefined ? { maxClusters: target } : {}) };
    labels = byVoice
      ? clusterByVoiceDistance({ values, stride, dimensions: settings.voiceDimensions + pitchColumns, reliable }, speech, labels, clusterCountOf(labels), {
          pieceFrames: Math.round(settings.voicePieceSeconds / frameSeconds),
          minReliableFrames: Math.round(settings.voicePieceSeconds / frameSeconds / 5),
          threshold: settings.voiceThreshold,
          ...(settings.pitchVeto > 0 ? { pitch: { logPitches: features.logPitches, veto: settings.pitchVeto } } : {}),
          ...countLimits,
        })
      : clusterByClr(ubm, top, gmmFeatures, speech, labels, clusterCountOf(labels), {
          relevance: settings.relevance,
          threshold: settings.clrThreshold,
          sizeSlope: settings.clrSizeSlope,
          ...countLimits,
        });
    checkAbort();
    labels = resegment(labels);
  }
  const found = speechCount === 0 ? 0 : clusterCountOf(labels);
  if (speakers !== undefined && found < speakers) {
    warnings.push({ type: "degraded", feature: "speakers", detail: `asked for ${speakers} speakers, but the audio told only ${found} apart` });
  }
  return { turns: turnsOf(labels, spans, spanRegions), warnings };
}

/** 1 for the loudest `share` of the speech frames. */
function loudestFrames(logEnergies: Float32Array, speech: SpeechFrames, share: number): Uint8Array {
  const reliable = new Uint8Array(logEnergies.length);
  const energies = Float32Array.from(speech, (frame) => logEnergies[frame] as number).sort();
  const threshold = energies[Math.min(energies.length - 1, Math.max(0, Math.floor((1 - share) * energies.length)))] as number;
  for (const frame of speech) if ((logEnergies[frame] as number) >= threshold) reliable[frame] = 1;
  return reliable;
}

function clusterCountOf(labels: Int32Array): number {
  let most = -1;
  for (const label of labels) if (label > most) most = label;
  return most + 1;
}

/**
 * The log pitch of every speech frame, unvoiced frames filled in by straight lines between the voiced ones around them
 * within their stretch of speech (held flat at the ends), as HMM speech synthesis does: a Gaussian over the voice then
 * sees its pitch level, not a spike of "unvoiced" values. A stretch without a voiced frame gets the file's median.
 */
function continuousPitch(logPitches: Float32Array, spans: FrameSpan[]): Float32Array {
  const result = new Float32Array(logPitches.length);
  const voiced = Array.from(logPitches).filter((value) => !Number.isNaN(value)).sort((a, b) => a - b);
  const median = voiced.length > 0 ? (voiced[voiced.length >> 1] as number) : Math.log(150);
  for (const { startFrame, endFrame } of spans) {
    let previous = -1;
    for (let frame = startFrame; frame <= endFrame; frame += 1) {
      const value = frame < endFrame ? (logPitches[frame] as number) : Number.NaN;
      if (frame < endFrame && Number.isNaN(value)) continue;
      const from = previous < 0 ? startFrame : previous + 1;
      const left = previous < 0 ? value : (logPitches[previous] as number);
      const right = frame < endFrame ? value : left;
      for (let gap = from; gap < frame; gap += 1) {
        const share = previous < 0 || frame >= endFrame ? 0 : (gap - previous) / (frame - previous);
        result[gap] = Number.isNaN(left) ? median : left + share * (right - left);
      }
      if (frame < endFrame) result[frame] = value;
      previous = frame;
    }
  }
  return result;
}

/** Rows of [pitch, c1 … cN], or the cepstra alone when there is no pitch. */
function withPitch(cepstra: Float32Array, dimensions: number, pitch: Float32Array | undefined): Float32Array {
  if (!pitch) return cepstra;
  const stride = dimensions + 1;
  const rows = new Float32Array(pitch.length * stride);
  for (let frame = 0; frame < pitch.length; frame += 1) {
    rows[frame * stride] = pitch[frame] as number;
    rows.set(cepstra.subarray(frame * dimensions, (frame + 1) * dimensions), frame * stride + 1);
  }
  return rows;
}

/** Mean and variance normalisation of every column over the speech frames, in place. */
function normalise(cepstra: Float32Array, dimensions: number, speech: SpeechFrames): void {
  const frameCount = cepstra.length / dimensions;
  const mean = new Float64Array(dimensions);
  const square = new Float64Array(dimensions);
  for (const frame of speech) {
    for (let d = 0; d < dimensions; d += 1) {
      const value = cepstra[frame * dimensions + d] as number;
      mean[d] = (mean[d] as number) + value;
      square[d] = (square[d] as number) + value * value;
    }
  }
  const scale = new Float64Array(dimensions);
  for (let d = 0; d < dimensions; d += 1) {
    mean[d] = (mean[d] as number) / speech.length;
    scale[d] = 1 / Math.sqrt(Math.max(1e-8, (square[d] as number) / speech.length - (mean[d] as number) ** 2));
  }
  for (let frame = 0; frame < frameCount; frame += 1) {
    for (let d = 0; d < dimensions; d += 1) {
      const index = frame * dimensions + d;
      cepstra[index] = ((cepstra[index] as number) - (mean[d] as number)) * (scale[d] as number);
    }
  }
}

/** Speaker turns from a label per speech frame: one turn per run of a label, labels named S1, S2, … by first appearance. */
function turnsOf(labels: Int32Array, spans: FrameSpan[], spanRegions: Region[]): SpeakerTurn[] {
  const names = new Map<number, string>();
  const turns: SpeakerTurn[] = [];
  let at = 0;
  spans.forEach((span, spanIndex) => {
    const region = spanRegions[spanIndex] as Region;
    // A turn that reaches a region's edge ends where the region does, not on the frame grid.
    const startOf = (frame: number): number => (frame === span.startFrame ? region[0] : frame * frameSeconds + frameCentreSeconds - frameSeconds / 2);
    const endOf = (frame: number): number => (frame === span.endFrame ? region[1] : frame * frameSeconds + frameCentreSeconds - frameSeconds / 2);
    let runStart = span.startFrame;
    for (let frame = span.startFrame; frame < span.endFrame; frame += 1) {
      const label = labels[at + frame - span.startFrame] as number;
      const nextLabel = frame + 1 < span.endFrame ? (labels[at + frame + 1 - span.startFrame] as number) : -2;
      if (nextLabel === label) continue;
      let name = names.get(label);
      if (name === undefined) {
        name = `S${names.size + 1}`;
        names.set(label, name);
      }
      const last = turns.at(-1);
      const startSecond = startOf(runStart);
      if (last && last.speaker === name && startSecond - last.endSecond < 1e-6) last.endSecond = endOf(frame + 1);
      else turns.push({ startSecond, endSecond: endOf(frame + 1), speaker: name });
      runStart = frame + 1;
    }
    at += span.endFrame - span.startFrame;
  });
  return turns;
}
