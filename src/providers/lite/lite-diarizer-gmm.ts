// Gaussian mixtures for the lite diarizer's later steps, in the manner of LIUM's classical system: a background model
// (UBM) of all the speech in the file, one model per voice made by moving the UBM's means towards that voice's frames
// (MAP adaptation), Viterbi re-segmentation with those models, and bottom-up clustering by cross likelihood ratio.
// Every model shares the UBM's weights and variances, so a frame is scored only on the few UBM components that explain
// it best (top-N), which makes scoring K voices over an hour of speech a fraction of a second each.

import type { FeatureMatrix } from "./lite-diarizer-gaussian.js";

/** A mixture of diagonal Gaussians. */
export interface DiagonalGmm {
  components: number;
  dimensions: number;
  weights: Float64Array;
  /** components × dimensions. */
  means: Float64Array;
  /** components × dimensions. */
  variances: Float64Array;
}

/** The frames the mixtures are about: indices into the feature rows, in time order. */
export type SpeechFrames = Int32Array;

export interface UbmSettings {
  components: number;
  /** EM passes after each split. */
  iterations: number;
  /** Frames the UBM is trained on at most, taken evenly from the speech. */
  maxTrainingFrames: number;
}

const varianceFloor = 0.01;
const logTwoPi = Math.log(2 * Math.PI);

/** Trains the UBM by binary splitting from one Gaussian (deterministic: no random start). */
export function trainUbm(features: FeatureMatrix, speech: SpeechFrames, settings: UbmSettings): DiagonalGmm {
  const { dimensions, reliable } = features;
  const usable = reliable ? speech.filter((frame) => reliable[frame] === 1) : speech;
  const step = Math.max(1, Math.ceil(usable.length / settings.maxTrainingFrames));
  const training = new Int32Array(Math.ceil(usable.length / step));
  for (let index = 0; index < training.length; index += 1) training[index] = usable[index * step] as number;
  let gmm: DiagonalGmm = { components: 1, dimensions, weights: Float64Array.of(1), means: new Float64Array(dimensions), variances: new Float64Array(dimensions) };
  emStep(gmm, features, training, true);
  // A mixture needs a few frames per parameter; a short file gets fewer components.
  const most = Math.max(1, Math.min(settings.components, Math.floor(training.length / (4 * dimensions))));
  while (gmm.components < most) {
    gmm = split(gmm, Math.min(most, gmm.components * 2));
    for (let iteration = 0; iteration < settings.iterations; iteration += 1) emStep(gmm, features, training, false);
  }
  return gmm;
}

/** Splits the heaviest components in two along their standard deviation until there are `components`. */
function split(gmm: DiagonalGmm, components: number): DiagonalGmm {
  const { dimensions } = gmm;
  const order = Array.from({ length: gmm.components }, (_, index) => index).sort((a, b) => (gmm.weights[b] as number) - (gmm.weights[a] as number));
  const result: DiagonalGmm = {
    components,
    dimensions,
    weights: new Float64Array(components),
    means: new Float64Array(components * dimensions),
    variances: new Float64Array(components * dimensions),
  };
  result.weights.set(gmm.weights);
  result.means.set(gmm.means);
  result.variances.set(gmm.variances);
  for (let added = 0; gmm.components + added < components; added += 1) {
    const source = order[added] as number;
    const target = gmm.components + added;
    const half = (gmm.weights[source] as number) / 2;
    result.weights[source] = half;
    result.weights[target] = half;
    for (let d = 0; d < dimensions; d += 1) {
      const shift = 0.2 * Math.sqrt(gmm.variances[source * dimensions + d] as number);
      const mean = gmm.means[source * dimensions + d] as number;
      result.means[source * dimensions + d] = mean - shift;
      result.means[target * dimensions + d] = mean + shift;
      result.variances[target * dimensions + d] = gmm.variances[source * dimensions + d] as number;
    }
  }
  return result;
}

/** One EM pass in place; `first` estimates the single Gaussian directly. */
function emStep(gmm: DiagonalGmm, features: FeatureMatrix, frames: Int32Array, first: boolean): void {
  const { components, dimensions } = gmm;
  const { values, stride } = features;
  const occupancy = new Float64Array(components);
  const firstOrder = new Float64Array(components * dimensions);
  const secondOrder = new Float64Array(components * dimensions);
  const logLikelihoods = new Float64Array(components);
  const constants = componentConstants(gmm);
  const inverse = inverseVariances(gmm);
  for (const frame of frames) {
    const row = frame * stride;
    let best = -Infinity;
    for (let c = 0; c < components; c += 1) {
      const value = first ? 0 : componentLogLikelihood(values, row, gmm.means, inverse, c, dimensions, constants[c] as number);
      logLikelihoods[c] = value;
      if (value > best) best = value;
    }
    let total = 0;
    for (let c = 0; c < components; c += 1) {
      const weight = Math.exp((logLikelihoods[c] as number) - best);
      logLikelihoods[c] = weight;
      total += weight;
    }
    for (let c = 0; c < components; c += 1) {
      const posterior = (logLikelihoods[c] as number) / total;
      if (posterior < 1e-6) continue;
      occupancy[c] = (occupancy[c] as number) + posterior;
      const offset = c * dimensions;
      for (let d = 0; d < dimensions; d += 1) {
        const x = values[row + d] as number;
        firstOrder[offset + d] = (firstOrder[offset + d] as number) + posterior * x;
        secondOrder[offset + d] = (secondOrder[offset + d] as number) + posterior * x * x;
      }
    }
  }
  for (let c = 0; c < components; c += 1) {
    const count = occupancy[c] as number;
    // A component that lost its frames keeps its old parameters rather than collapsing.
    if (count < 2) continue;
    gmm.weights[c] = count / frames.length;
    for (let d = 0; d < dimensions; d += 1) {
      const mean = (firstOrder[c * dimensions + d] as number) / count;
      gmm.means[c * dimensions + d] = mean;
      gmm.variances[c * dimensions + d] = Math.max(varianceFloor, (secondOrder[c * dimensions + d] as number) / count - mean * mean);
    }
  }
  let weightSum = 0;
  for (let c = 0; c < components; c += 1) weightSum += gmm.weights[c] as number;
  for (let c = 0; c < components; c += 1) gmm.weights[c] = (gmm.weights[c] as number) / weightSum;
}

/** log w_c − ½ Σ log(2π σ²) per component. */
function componentConstants(gmm: DiagonalGmm): Float64Array {
  const constants = new Float64Array(gmm.components);
  for (let c = 0; c < gmm.components; c += 1) {
    let sum = Math.log(Math.max(gmm.weights[c] as number, 1e-12));
    for (let d = 0; d < gmm.dimensions; d += 1) sum -= 0.5 * (logTwoPi + Math.log(gmm.variances[c * gmm.dimensions + d] as number));
    constants[c] = sum;
  }
  return constants;
}

function inverseVariances(gmm: DiagonalGmm): Float64Array {
  return gmm.variances.map((variance) => 1 / variance);
}

function componentLogLikelihood(
  values: Float32Array,
  row: number,
  means: Float64Array,
  inverse: Float64Array,
  component: number,
  dimensions: number,
  constant: number,
): number {
  let distance = 0;
  const offset = component * dimensions;
  for (let d = 0; d < dimensions; d += 1) {
    const difference = (values[row + d] as number) - (means[offset + d] as number);
    distance += difference * difference * (inverse[offset + d] as number);
  }
  return constant - 0.5 * distance;
}

/** The UBM's best components for every speech frame, and their share of it. */
export interface TopComponents {
  perFrame: number;
  /** speech frames × perFrame component indices. */
  indices: Uint16Array;
  /** The UBM's posterior of each of those components (normalised over them). */
  posteriors: Float32Array;
  /** log p(x | UBM) over those components. */
  logLikelihoods: Float32Array;
  /** The components' constants, shared by every adapted model. */
  constants: Float64Array;
  inverse: Float64Array;
}

/** Scores every speech frame on the UBM and keeps its `perFrame` best components. */
export function topComponents(ubm: DiagonalGmm, features: FeatureMatrix, speech: SpeechFrames, perFrame: number): TopComponents {
  const keep = Math.min(perFrame, ubm.components);
  const constants = componentConstants(ubm);
  const inverse = inverseVariances(ubm);
  const indices = new Uint16Array(speech.length * keep);
  const posteriors = new Float32Array(speech.length * keep);
  const logLikelihoods = new Float32Array(speech.length);
  const scores = new Float64Array(ubm.components);
  const bestIndex = new Int32Array(keep);
  const bestScore = new Float64Array(keep);
  for (let s = 0; s < speech.length; s += 1) {
    const row = (speech[s] as number) * features.stride;
    for (let c = 0; c < ubm.components; c += 1) scores[c] = componentLogLikelihood(features.values, row, ubm.means, inverse, c, ubm.dimensions, constants[c] as number);
    // Insertion into a short sorted list: keep is about 5, components about 32.
    bestScore.fill(-Infinity);
    for (let c = 0; c < ubm.components; c += 1) {
      const score = scores[c] as number;
      if (score <= (bestScore[keep - 1] as number)) continue;
      let at = keep - 1;
      while (at > 0 && (bestScore[at - 1] as number) < score) {
        bestScore[at] = bestScore[at - 1] as number;
        bestIndex[at] = bestIndex[at - 1] as number;
        at -= 1;
      }
      bestScore[at] = score;
      bestIndex[at] = c;
    }
    const top = bestScore[0] as number;
    let total = 0;
    for (let k = 0; k < keep; k += 1) total += Math.exp((bestScore[k] as number) - top);
    logLikelihoods[s] = top + Math.log(total);
    for (let k = 0; k < keep; k += 1) {
      indices[s * keep + k] = bestIndex[k] as number;
      posteriors[s * keep + k] = Math.exp((bestScore[k] as number) - top) / total;
    }
  }
  return { perFrame: keep, indices, posteriors, logLikelihoods, constants, inverse };
}

/** Zeroth- and first-order statistics of some frames on the UBM's components: all MAP adaptation of means needs. */
export interface AdaptationStats {
  frames: number;
  occupancy: Float64Array;
  firstOrder: Float64Array;
}

/** The statistics of each cluster (`labels` per speech frame, −1 for none). */
export function collectStats(
  ubm: DiagonalGmm,
  top: TopComponents,
  features: FeatureMatrix,
  speech: SpeechFrames,
  labels: Int32Array,
  clusterCount: number,
): AdaptationStats[] {
  const { components, dimensions } = ubm;
  const stats = Array.from({ length: clusterCount }, () => ({
    frames: 0,
    occupancy: new Float64Array(components),
    firstOrder: new Float64Array(components * dimensions),
  }));
  for (let s = 0; s < speech.length; s += 1) {
    const label = labels[s] as number;
    if (label < 0 || (features.reliable && features.reliable[speech[s] as number] === 0)) continue;
    const target = stats[label] as AdaptationStats;
    target.frames += 1;
    const row = (speech[s] as number) * features.stride;
    for (let k = 0; k < top.perFrame; k += 1) {
      const c = top.indices[s * top.perFrame + k] as number;
      const posterior = top.posteriors[s * top.perFrame + k] as number;
      target.occupancy[c] = (target.occupancy[c] as number) + posterior;
      const offset = c * dimensions;
      for (let d = 0; d < dimensions; d += 1) target.firstOrder[offset + d] = (target.firstOrder[offset + d] as number) + posterior * (features.values[row + d] as number);
    }
  }
  return stats;
}

export function addAdaptationStats(target: AdaptationStats, other: AdaptationStats): void {
  target.frames += other.frames;
  for (let i = 0; i < target.occupancy.length; i += 1) target.occupancy[i] = (target.occupancy[i] as number) + (other.occupancy[i] as number);
  for (let i = 0; i < target.firstOrder.length; i += 1) target.firstOrder[i] = (target.firstOrder[i] as number) + (other.firstOrder[i] as number);
}

/** MAP-adapted means: each moves from the UBM's towards its frames' mean by n / (n + relevance). */
export function adaptMeans(ubm: DiagonalGmm, stats: AdaptationStats, relevance: number): Float64Array {
  const means = new Float64Array(ubm.means.length);
  for (let c = 0; c < ubm.components; c += 1) {
    const count = stats.occupancy[c] as number;
    for (let d = 0; d < ubm.dimensions; d += 1) {
      const index = c * ubm.dimensions + d;
      means[index] = ((stats.firstOrder[index] as number) + relevance * (ubm.means[index] as number)) / (count + relevance);
    }
  }
  return means;
}

/**
 * log p(x | adapted model) − log p(x | UBM) for every speech frame, into `out`; 0 (no evidence either way) for frames
 * that are not reliable.
 */
export function frameScores(ubm: DiagonalGmm, top: TopComponents, features: FeatureMatrix, speech: SpeechFrames, means: Float64Array, out: Float32Array): void {
  const keep = top.perFrame;
  const scores = new Float64Array(keep);
  for (let s = 0; s < speech.length; s += 1) {
    if (features.reliable && features.reliable[speech[s] as number] === 0) {
      out[s] = 0;
      continue;
    }
    const row = (speech[s] as number) * features.stride;
    let best = -Infinity;
    for (let k = 0; k < keep; k += 1) {
      const c = top.indices[s * keep + k] as number;
      const score = componentLogLikelihood(features.values, row, means, top.inverse, c, ubm.dimensions, top.constants[c] as number);
      scores[k] = score;
      if (score > best) best = score;
    }
    let total = 0;
    for (let k = 0; k < keep; k += 1) total += Math.exp((scores[k] as number) - best);
    out[s] = best + Math.log(total) - (top.logLikelihoods[s] as number);
  }
}

/**
 * The most likely voice per speech frame given each voice's frame scores, paying `switchPenalty` (in log-likelihood)
 * for each change of voice; a gap in the speech (`speech` not consecutive) changes voice for free.
 */
export function viterbi(scores: Float32Array[], speech: SpeechFrames, switchPenalty: number): Int32Array {
  const states = scores.length;
  const length = speech.length;
  const labels = new Int32Array(length);
  if (states === 0 || length === 0) return labels.fill(states === 0 ? -1 : 0);
  // Back-pointers: each frame's state came from itself or from the best state of the frame before.
  const cameFromBest = new Uint8Array(length * states);
  const bestBefore = new Int32Array(length);
  let previous = new Float64Array(states);
  let current = new Float64Array(states);
  for (let k = 0; k < states; k += 1) previous[k] = (scores[k] as Float32Array)[0] as number;
  for (let s = 1; s < length; s += 1) {
    let bestState = 0;
    for (let k = 1; k < states; k += 1) if ((previous[k] as number) > (previous[bestState] as number)) bestState = k;
    bestBefore[s] = bestState;
    const penalty = (speech[s] as number) - (speech[s - 1] as number) > 1 ? 0 : switchPenalty;
    const switched = (previous[bestState] as number) - penalty;
    for (let k = 0; k < states; k += 1) {
      const stay = previous[k] as number;
      const fromBest = switched > stay;
      cameFromBest[s * states + k] = fromBest ? 1 : 0;
      current[k] = (fromBest ? switched : stay) + ((scores[k] as Float32Array)[s] as number);
    }
    [previous, current] = [current, previous];
  }
  let state = 0;
  for (let k = 1; k < states; k += 1) if ((previous[k] as number) > (previous[state] as number)) state = k;
  for (let s = length - 1; s >= 0; s -= 1) {
    labels[s] = state;
    if (s > 0 && cameFromBest[s * states + state] === 1) state = bestBefore[s] as number;
  }
  return labels;
}

export interface ClrSettings {
  relevance: number;
  /** Merge while the best pair's CLR is above this (nats per frame)… */
  threshold: number;
  /**
   * …lowered by this much per natural log of the smaller cluster's reliable frames beyond 500: two large clusters of
   * one voice (split by what was said) score a little below zero, two voices far below.
   */
  sizeSlope: number;
  /** Merge down to this many clusters whatever the threshold says, and no further. */
  minClusters: number;
  /** When given, merge down to this many clusters whatever the threshold says. */
  maxClusters?: number;
}

/**
 * Bottom-up clustering by cross likelihood ratio: CLR(i, j) = mean score of i's frames on j's model + mean score of
 * j's frames on i's model (scores relative to the UBM), so two clusters of one voice score above zero and two voices
 * below, whatever their sizes. Returns labels per speech frame, renumbered 0 … k-1.
 */
export function clusterByClr(
  ubm: DiagonalGmm,
  top: TopComponents,
  features: FeatureMatrix,
  speech: SpeechFrames,
  labels: Int32Array,
  clusterCount: number,
  settings: ClrSettings,
): Int32Array {
  const stats: (AdaptationStats | undefined)[] = collectStats(ubm, top, features, speech, labels, clusterCount);
  const scores = new Float32Array(speech.length);
  const current = labels.slice();
  // cross[i][j]: the sum of j's model's scores over i's frames.
  const cross: Float64Array[] = Array.from({ length: clusterCount }, () => new Float64Array(clusterCount));
  const scoreModel = (j: number): void => {
    frameScores(ubm, top, features, speech, adaptMeans(ubm, stats[j] as AdaptationStats, settings.relevance), scores);
    for (let i = 0; i < clusterCount; i += 1) (cross[i] as Float64Array)[j] = 0;
    for (let s = 0; s < speech.length; s += 1) {
      const label = current[s] as number;
      if (label >= 0) (cross[label] as Float64Array)[j] = ((cross[label] as Float64Array)[j] as number) + (scores[s] as number);
    }
  };
  for (let j = 0; j < clusterCount; j += 1) if ((stats[j] as AdaptationStats).frames > 0) scoreModel(j);
  else stats[j] = undefined;
  let alive = stats.filter(Boolean).length;
  const clr = (i: number, j: number): number => {
    const a = stats[i] as AdaptationStats;
    const b = stats[j] as AdaptationStats;
    return ((cross[i] as Float64Array)[j] as number) / a.frames + ((cross[j] as Float64Array)[i] as number) / b.frames;
  };
  while (alive > settings.minClusters) {
    let bestI = -1;
    let bestJ = -1;
    let best = -Infinity;
    for (let i = 0; i < clusterCount; i += 1) {
      if (!stats[i]) continue;
      for (let j = i + 1; j < clusterCount; j += 1) {
        if (!stats[j]) continue;
        const value = clr(i, j);
        if (value > best) {
          best = value;
          bestI = i;
          bestJ = j;
        }
      }
    }
    if (bestI < 0) break;
    const mustMerge = settings.maxClusters !== undefined && alive > settings.maxClusters;
    const smaller = Math.min((stats[bestI] as AdaptationStats).frames, (stats[bestJ] as AdaptationStats).frames);
    const threshold = settings.threshold - settings.sizeSlope * Math.max(0, Math.log(smaller / 500));
    if (!mustMerge && best <= threshold) break;
    // j's frames join i: their sums on every model add up; i's new model is scored over all frames once.
    addAdaptationStats(stats[bestI] as AdaptationStats, stats[bestJ] as AdaptationStats);
    stats[bestJ] = undefined;
    for (let k = 0; k < clusterCount; k += 1) (cross[bestI] as Float64Array)[k] = ((cross[bestI] as Float64Array)[k] as number) + ((cross[bestJ] as Float64Array)[k] as number);
    for (let s = 0; s < speech.length; s += 1) if (current[s] === bestJ) current[s] = bestI;
    scoreModel(bestI);
    alive -= 1;
  }
  return renumber(current);
}

/** Labels renumbered 0 … k-1 in order of first appearance; −1 stays −1. */
export function renumber(labels: Int32Array): Int32Array {
  const map = new Map<number, number>();
  const result = new Int32Array(labels.length);
  for (let index = 0; index < labels.length; index += 1) {
    const label = labels[index] as number;
    if (label < 0) {
      result[index] = -1;
      continue;
    }
    let mapped = map.get(label);
    if (mapped === undefined) {
      mapped = map.size;
      map.set(label, mapped);
    }
    result[index] = mapped;
  }
  return result;
}
