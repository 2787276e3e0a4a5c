// The lite diarizer's last grouping step: which of the groups left by the first clustering and re-segmentation are one
// voice. Each group's speech is cut into short pieces (about half a second), each piece becomes the mean of its
// cepstra, and the pieces' spread inside the groups (the within-group covariance, estimated on the file itself) is
// what a difference between two groups is measured against: two groups are one voice while their mean pieces are
// close in that whitened space. Two things make this better at telling voices apart than the MAP-adapted mixtures'
// cross likelihood ratio (on the benchmark's tuning half, pairs of groups after a first clustering with BIC penalty
// 2: AUC 0.95 vs 0.82 for "one voice"; held out 0.95 vs 0.87):
//  - what varies within one voice here (the words said, the background at that moment) is discounted, dimension by
//    dimension, by how much it varies in this file; MFCC distances treat every direction alike;
//  - a short voice (a few seconds, a few pieces) is compared by the mean of its pieces, where its MAP-adapted mixture
//    stays close to the background model (few frames per component) and the likelihood ratios see little of it.
// The distance is Hotelling's T² between the two groups' pieces (the Mahalanobis distance of the means times
// n_a n_b / (n_a + n_b)), so a difference seen over many pieces counts for more than one seen over a few. A short
// file has too few pieces for a 19 × 19 covariance (a near-singular one makes every difference look large: one voice
// of 11 s came out as two), so it is compared in its leading cepstra only, as many as it has pieces to estimate.

import type { FeatureMatrix } from "./lite-diarizer-gaussian.js";
import type { SpeechFrames } from "./lite-diarizer-gmm.js";
import { renumber } from "./lite-diarizer-gmm.js";

/**
 * Pieces a file needs per dimension compared (fewer pieces, fewer leading cepstra), as the background model's
 * components need frames per dimension (lite-diarizer-gmm.ts): every file of the benchmark has enough for all 19.
 */
const piecesPerDimension = 4;

/** Piece means of one file: `dimensions` values per piece and the group each piece came from. */
export interface VoicePieces {
  dimensions: number;
  /** pieces × dimensions. */
  means: Float64Array;
  groups: Int32Array;
}

export interface VoiceClusterSettings {
  /** Speech frames per piece at most; runs of one group are cut into pieces of about this length. */
  pieceFrames: number;
  /** Reliable frames a piece needs at least to count. */
  minReliableFrames: number;
  /** Merge while the closest two groups' T² is below this. */
  threshold: number;
  /** Merge down to this many groups whatever the threshold says, and no further. */
  minClusters: number;
  /** When given, merge down to this many groups whatever the threshold says. */
  maxClusters?: number;
  /**
   * The log pitch of every frame (NaN where unvoiced), and how far apart (natural log) two groups' median pitches may
   * lie and still merge; `maxClusters` overrides it.
   */
  pitch?: { logPitches: Float32Array; veto: number };
}

/** Voiced frames a group needs for its median pitch to count. */
const minVoicedFrames = 20;

/** Each group's log pitches, of its loud voiced frames. */
function voicedPitches(logPitches: Float32Array, reliable: Uint8Array | undefined, speech: SpeechFrames, labels: Int32Array, clusterCount: number): number[][] {
  const lists: number[][] = Array.from({ length: clusterCount }, () => []);
  for (let s = 0; s < speech.length; s += 1) {
    const frame = speech[s] as number;
    const value = logPitches[frame] as number;
    if (!Number.isNaN(value) && (!reliable || reliable[frame] === 1)) lists[labels[s] as number]?.push(value);
  }
  return lists;
}

/** The median of a group's voiced pitches: NaN when it has too few to say (so it is apart from no group). */
function median(values: number[] | undefined): number {
  if (!values || values.length < minVoicedFrames) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1] as number;
}

/**
 * Cuts every run of one label (never across a gap in the speech) into pieces of about `pieceFrames`, and averages
 * each piece's reliable frames. Pieces with fewer than `minReliableFrames` reliable frames are left out.
 */
export function voicePieces(features: FeatureMatrix, speech: SpeechFrames, labels: Int32Array, pieceFrames: number, minReliableFrames: number): VoicePieces {
  const { values, stride, dimensions, reliable } = features;
  const means: number[] = [];
  const groups: number[] = [];
  const sum = new Float64Array(dimensions);
  const addPiece = (start: number, end: number): void => {
    sum.fill(0);
    let count = 0;
    for (let s = start; s < end; s += 1) {
      const frame = speech[s] as number;
      if (reliable && reliable[frame] === 0) continue;
      count += 1;
      for (let d = 0; d < dimensions; d += 1) sum[d] = (sum[d] as number) + (values[frame * stride + d] as number);
    }
    if (count < minReliableFrames) return;
    for (let d = 0; d < dimensions; d += 1) means.push((sum[d] as number) / count);
    groups.push(labels[start] as number);
  };
  let runStart = 0;
  for (let s = 1; s <= speech.length; s += 1) {
    const breaks = s === speech.length || labels[s] !== labels[s - 1] || (speech[s] as number) - (speech[s - 1] as number) > 1;
    if (!breaks) continue;
    const length = s - runStart;
    const count = Math.max(1, Math.round(length / pieceFrames));
    for (let index = 0; index < count; index += 1) addPiece(runStart + Math.round((length * index) / count), runStart + Math.round((length * (index + 1)) / count));
    runStart = s;
  }
  return { dimensions, means: Float64Array.from(means), groups: Int32Array.from(groups) };
}

/**
 * The inverse of the pooled within-group covariance of the pieces (a small ridge keeps it invertible when a file has
 * few pieces), row-major.
 */
export function withinGroupPrecision(pieces: VoicePieces, groupCount: number): Float64Array {
  const { dimensions, means, groups } = pieces;
  const groupMeans = new Float64Array(groupCount * dimensions);
  const counts = new Float64Array(groupCount);
  for (let p = 0; p < groups.length; p += 1) {
    const g = groups[p] as number;
    counts[g] = (counts[g] as number) + 1;
    for (let d = 0; d < dimensions; d += 1) groupMeans[g * dimensions + d] = (groupMeans[g * dimensions + d] as number) + (means[p * dimensions + d] as number);
  }
  for (let g = 0; g < groupCount; g += 1) for (let d = 0; d < dimensions; d += 1) groupMeans[g * dimensions + d] = (groupMeans[g * dimensions + d] as number) / Math.max(1, counts[g] as number);
  // The pieces less their group's mean: what varies within a voice.
  const centred = new Float64Array(means.length);
  for (let p = 0; p < groups.length; p += 1) {
    const g = groups[p] as number;
    for (let d = 0; d < dimensions; d += 1) centred[p * dimensions + d] = (means[p * dimensions + d] as number) - (groupMeans[g * dimensions + d] as number);
  }
  let groupsWithPieces = 0;
  for (const count of counts) if (count > 0) groupsWithPieces += 1;
  const degrees = Math.max(1, groups.length - groupsWithPieces);
  const covariance = new Float64Array(dimensions * dimensions);
  for (let p = 0; p < groups.length; p += 1) {
    for (let i = 0; i < dimensions; i += 1) {
      const a = centred[p * dimensions + i] as number;
      for (let j = i; j < dimensions; j += 1) covariance[i * dimensions + j] = (covariance[i * dimensions + j] as number) + a * (centred[p * dimensions + j] as number);
    }
  }
  for (let i = 0; i < dimensions; i += 1) {
    for (let j = i; j < dimensions; j += 1) {
      const value = (covariance[i * dimensions + j] as number) / degrees + (i === j ? 1e-3 : 0);
      covariance[i * dimensions + j] = value;
      covariance[j * dimensions + i] = value;
    }
  }
  return invertSymmetric(covariance, dimensions);
}

/** The inverse of a small symmetric positive definite matrix, by Gauss–Jordan elimination. */
function invertSymmetric(matrix: Float64Array, n: number): Float64Array {
  const a = Float64Array.from(matrix);
  const inverse = new Float64Array(n * n);
  for (let i = 0; i < n; i += 1) inverse[i * n + i] = 1;
  for (let i = 0; i < n; i += 1) {
    const pivot = Math.max(a[i * n + i] as number, 1e-12);
    for (let j = 0; j < n; j += 1) {
      a[i * n + j] = (a[i * n + j] as number) / pivot;
      inverse[i * n + j] = (inverse[i * n + j] as number) / pivot;
    }
    for (let r = 0; r < n; r += 1) {
      if (r === i) continue;
      const factor = a[r * n + i] as number;
      if (factor === 0) continue;
      for (let j = 0; j < n; j += 1) {
        a[r * n + j] = (a[r * n + j] as number) - factor * (a[i * n + j] as number);
        inverse[r * n + j] = (inverse[r * n + j] as number) - factor * (inverse[i * n + j] as number);
      }
    }
  }
  return inverse;
}

/**
 * Bottom-up grouping by Hotelling's T² between the groups' pieces, the within-group precision fixed as estimated from
 * the groups it starts from: merge the closest pair while its T² is below the threshold (or while there are more than
 * `maxClusters`). A group without a piece (all its runs too short or too quiet) joins the group it borders most.
 * Returns labels per speech frame, renumbered 0 … k-1.
 */
export function clusterByVoiceDistance(
  features: FeatureMatrix,
  speech: SpeechFrames,
  labels: Int32Array,
  clusterCount: number,
  settings: VoiceClusterSettings,
): Int32Array {
  const current = absorbPieceless(labels, clusterCount, voicePieces(features, speech, labels, settings.pieceFrames, settings.minReliableFrames));
  const pieces = leadingDimensions(voicePieces(features, speech, current, settings.pieceFrames, settings.minReliableFrames), piecesPerDimension);
  const { dimensions } = pieces;
  const precision = withinGroupPrecision(pieces, clusterCount);
  const sums: (Float64Array | undefined)[] = Array.from({ length: clusterCount }, () => undefined);
  const counts = new Float64Array(clusterCount);
  for (let p = 0; p < pieces.groups.length; p += 1) {
    const g = pieces.groups[p] as number;
    const sum = (sums[g] ??= new Float64Array(dimensions));
    counts[g] = (counts[g] as number) + 1;
    for (let d = 0; d < dimensions; d += 1) sum[d] = (sum[d] as number) + (pieces.means[p * dimensions + d] as number);
  }
  const difference = new Float64Array(dimensions);
  const tSquared = (a: number, b: number): number => {
    const na = counts[a] as number;
    const nb = counts[b] as number;
    for (let d = 0; d < dimensions; d += 1) difference[d] = ((sums[a] as Float64Array)[d] as number) / na - ((sums[b] as Float64Array)[d] as number) / nb;
    let distance = 0;
    for (let i = 0; i < dimensions; i += 1) {
      let row = 0;
      for (let j = 0; j < dimensions; j += 1) row += (precision[i * dimensions + j] as number) * (difference[j] as number);
      distance += (difference[i] as number) * row;
    }
    return (distance * na * nb) / (na + nb);
  };
  // Each group's voiced pitches, merged with it; two groups too far apart in median pitch are never one voice.
  const pitches = settings.pitch ? voicedPitches(settings.pitch.logPitches, features.reliable, speech, current, clusterCount) : [];
  const medians = pitches.map(median);
  const apart = (a: number, b: number): boolean => settings.pitch !== undefined && Math.abs((medians[a] as number) - (medians[b] as number)) > settings.pitch.veto;
  let alive = sums.filter(Boolean).length;
  while (alive > settings.minClusters) {
    let bestA = -1;
    let bestB = -1;
    let best = Infinity;
    const mustMerge = settings.maxClusters !== undefined && alive > settings.maxClusters;
    for (let a = 0; a < clusterCount; a += 1) {
      if (!sums[a]) continue;
      for (let b = a + 1; b < clusterCount; b += 1) {
        if (!sums[b] || (!mustMerge && apart(a, b))) continue;
        const value = tSquared(a, b);
        if (value < best) {
          best = value;
          bestA = a;
          bestB = b;
        }
      }
    }
    if (bestA < 0) break;
    if (!mustMerge && best >= settings.threshold) break;
    const into = sums[bestA] as Float64Array;
    const from = sums[bestB] as Float64Array;
    for (let d = 0; d < dimensions; d += 1) into[d] = (into[d] as number) + (from[d] as number);
    counts[bestA] = (counts[bestA] as number) + (counts[bestB] as number);
    sums[bestB] = undefined;
    for (let s = 0; s < current.length; s += 1) if (current[s] === bestB) current[s] = bestA;
    if (settings.pitch) {
      pitches[bestA] = (pitches[bestA] ?? []).concat(pitches[bestB] ?? []);
      medians[bestA] = median(pitches[bestA]);
    }
    alive -= 1;
  }
  return renumber(current);
}

/** The pieces in their leading dimensions only, at most one per `piecesPerDimension` pieces. */
function leadingDimensions(pieces: VoicePieces, piecesPerDimension: number): VoicePieces {
  const dimensions = Math.max(1, Math.min(pieces.dimensions, Math.floor(pieces.groups.length / piecesPerDimension)));
  if (dimensions === pieces.dimensions) return pieces;
  const means = new Float64Array(pieces.groups.length * dimensions);
  for (let p = 0; p < pieces.groups.length; p += 1) means.set(pieces.means.subarray(p * pieces.dimensions, p * pieces.dimensions + dimensions), p * dimensions);
  return { dimensions, means, groups: pieces.groups };
}

/**
 * Labels where every group with no piece has joined the group whose frames border its own most often (or the largest,
 * when it borders none): such a group is a few short scraps the distance cannot judge.
 */
function absorbPieceless(labels: Int32Array, clusterCount: number, pieces: VoicePieces): Int32Array {
  const result = labels.slice();
  const hasPiece = new Uint8Array(clusterCount);
  for (const group of pieces.groups) hasPiece[group] = 1;
  if (!hasPiece.includes(1)) return result;
  const sizes = new Float64Array(clusterCount);
  for (const label of labels) if (label >= 0) sizes[label] = (sizes[label] as number) + 1;
  let largest = hasPiece.indexOf(1);
  for (let g = 0; g < clusterCount; g += 1) if (hasPiece[g] === 1 && (sizes[g] as number) > (sizes[largest] as number)) largest = g;
  for (let g = 0; g < clusterCount; g += 1) {
    if (hasPiece[g] === 1 || sizes[g] === 0) continue;
    const borders = new Float64Array(clusterCount);
    for (let s = 1; s < labels.length; s += 1) {
      const a = labels[s - 1] as number;
      const b = labels[s] as number;
      if (a === g && b !== g && b >= 0 && hasPiece[b] === 1) borders[b] = (borders[b] as number) + 1;
      if (b === g && a !== g && a >= 0 && hasPiece[a] === 1) borders[a] = (borders[a] as number) + 1;
    }
    let target = largest;
    for (let h = 0; h < clusterCount; h += 1) if ((borders[h] as number) > (borders[target] as number)) target = h;
    for (let s = 0; s < result.length; s += 1) if (result[s] === g) result[s] = target;
  }
  return result;
}
