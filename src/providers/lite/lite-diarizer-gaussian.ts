// Full-covariance Gaussian statistics for the lite diarizer's first two steps: finding where the voice changes inside
// a stretch of speech (ΔBIC between two sliding windows) and grouping the pieces found, bottom-up, while the Bayesian
// information criterion says two pieces are better described by one Gaussian than by two. Statistics are sums, so
// merging two pieces or sliding a window costs O(d²), and only the log-determinants need a Cholesky factorisation.

/** Count, sum and scatter (upper triangle of Σ x xᵀ) of some frames, in `dimensions` dimensions. */
export interface GaussianStats {
  count: number;
  sum: Float64Array;
  scatter: Float64Array;
}

/** A stretch of consecutive frames, [startFrame, endFrame). */
export interface FrameSpan {
  startFrame: number;
  endFrame: number;
}

/** The frame features the Gaussian steps read: `dimensions` leading values of each row of `stride`. */
export interface FeatureMatrix {
  values: Float32Array;
  stride: number;
  dimensions: number;
  /** 1 for the frames that models are estimated from (loud enough to be the voice, not the background); all when absent. */
  reliable?: Uint8Array;
}

export function emptyStats(dimensions: number): GaussianStats {
  return { count: 0, sum: new Float64Array(dimensions), scatter: new Float64Array(dimensions * dimensions) };
}

/** Adds (sign 1) or removes (sign -1) the reliable frames of [startFrame, endFrame) to the statistics. */
export function accumulate(stats: GaussianStats, features: FeatureMatrix, startFrame: number, endFrame: number, sign: 1 | -1): void {
  const { values, stride, dimensions, reliable } = features;
  const { sum, scatter } = stats;
  for (let frame = startFrame; frame < endFrame; frame += 1) {
    if (reliable && reliable[frame] === 0) continue;
    stats.count += sign;
    const row = frame * stride;
    for (let i = 0; i < dimensions; i += 1) {
      const xi = sign * (values[row + i] as number);
      sum[i] = (sum[i] as number) + xi;
      const scatterRow = i * dimensions;
      for (let j = i; j < dimensions; j += 1) scatter[scatterRow + j] = (scatter[scatterRow + j] as number) + xi * (values[row + j] as number);
    }
  }
}

export function addStats(target: GaussianStats, other: GaussianStats): void {
  target.count += other.count;
  for (let i = 0; i < target.sum.length; i += 1) target.sum[i] = (target.sum[i] as number) + (other.sum[i] as number);
  for (let i = 0; i < target.scatter.length; i += 1) target.scatter[i] = (target.scatter[i] as number) + (other.scatter[i] as number);
}

/**
 * log |Σ| of the maximum-likelihood covariance of one set of statistics, or of two together (`other`), with `ridge`
 * added to the diagonal: short pieces (a second is 100 frames for 78 parameters) are otherwise near singular.
 * `work` holds d² scratch values.
 */
export function logDeterminant(stats: GaussianStats, ridge: number, work: Float64Array, other?: GaussianStats): number {
  const dimensions = stats.sum.length;
  const count = stats.count + (other?.count ?? 0);
  if (count <= 0) return 0;
  for (let i = 0; i < dimensions; i += 1) {
    const meanI = ((stats.sum[i] as number) + (other ? (other.sum[i] as number) : 0)) / count;
    for (let j = i; j < dimensions; j += 1) {
      const meanJ = ((stats.sum[j] as number) + (other ? (other.sum[j] as number) : 0)) / count;
      const index = i * dimensions + j;
      const scatter = (stats.scatter[index] as number) + (other ? (other.scatter[index] as number) : 0);
      work[index] = scatter / count - meanI * meanJ + (i === j ? ridge : 0);
    }
  }
  // Cholesky on the upper triangle, in place: U with Σ = Uᵀ U, log |Σ| = 2 Σ log U_ii.
  let logDet = 0;
  for (let i = 0; i < dimensions; i += 1) {
    let diagonal = work[i * dimensions + i] as number;
    for (let k = 0; k < i; k += 1) {
      const value = work[k * dimensions + i] as number;
      diagonal -= value * value;
    }
    if (!(diagonal > 1e-12)) diagonal = 1e-12;
    const root = Math.sqrt(diagonal);
    work[i * dimensions + i] = root;
    logDet += 2 * Math.log(root);
    for (let j = i + 1; j < dimensions; j += 1) {
      let value = work[i * dimensions + j] as number;
      for (let k = 0; k < i; k += 1) value -= (work[k * dimensions + i] as number) * (work[k * dimensions + j] as number);
      work[i * dimensions + j] = value / root;
    }
  }
  return logDet;
}

/** Free parameters of one full-covariance Gaussian: the BIC penalty counts them. */
export function gaussianParameters(dimensions: number): number {
  return dimensions + (dimensions * (dimensions + 1)) / 2;
}

export interface ChangeSettings {
  /** Frames in each of the two windows compared. */
  windowFrames: number;
  /** The shortest window used near the edges of a speech stretch. */
  minWindowFrames: number;
  /** Frames between the points tested. */
  stepFrames: number;
  /** Weight of the BIC penalty: higher finds fewer changes. */
  penaltyWeight: number;
  ridge: number;
}

/**
 * Frames inside `span` where the voice most likely changes: local maxima of ΔBIC between the windows before and after,
 * where ΔBIC is positive, at least half a window apart.
 */
export function findChanges(features: FeatureMatrix, span: FrameSpan, settings: ChangeSettings): number[] {
  const { startFrame, endFrame } = span;
  const { windowFrames, minWindowFrames, stepFrames, penaltyWeight, ridge } = settings;
  if (endFrame - startFrame < 2 * minWindowFrames) return [];
  const dimensions = features.dimensions;
  const work = new Float64Array(dimensions * dimensions);
  const left = emptyStats(dimensions);
  const right = emptyStats(dimensions);
  const penalty = 0.5 * penaltyWeight * gaussianParameters(dimensions);
  // The windows' edges only move forward, so each frame enters and leaves each window once.
  let leftStart = startFrame;
  let middle = startFrame;
  let rightEnd = startFrame;
  const points: number[] = [];
  const scores: number[] = [];
  for (let at = startFrame + minWindowFrames; at <= endFrame - minWindowFrames; at += stepFrames) {
    const wantLeftStart = Math.max(startFrame, at - windowFrames);
    const wantRightEnd = Math.min(endFrame, at + windowFrames);
    accumulate(right, features, rightEnd, wantRightEnd, 1);
    rightEnd = wantRightEnd;
    accumulate(left, features, middle, at, 1);
    accumulate(right, features, middle, at, -1);
    middle = at;
    accumulate(left, features, leftStart, wantLeftStart, -1);
    leftStart = wantLeftStart;
    if (left.count < minWindowFrames / 2 || right.count < minWindowFrames / 2) continue;
    const both = left.count + right.count;
    const score =
      0.5 * (both * logDeterminant(left, ridge, work, right) - left.count * logDeterminant(left, ridge, work) - right.count * logDeterminant(right, ridge, work)) -
      penalty * Math.log(both);
    points.push(at);
    scores.push(score);
  }
  const changes: number[] = [];
  const radius = Math.max(1, Math.floor(windowFrames / 2 / stepFrames));
  for (let index = 0; index < scores.length; index += 1) {
    const score = scores[index] as number;
    if (score <= 0) continue;
    let isPeak = true;
    for (let other = Math.max(0, index - radius); other <= Math.min(scores.length - 1, index + radius) && isPeak; other += 1) {
      const otherScore = scores[other] as number;
      if (otherScore > score || (otherScore === score && other < index)) isPeak = false;
    }
    if (isPeak) changes.push(points[index] as number);
  }
  return changes;
}

/** One group of pieces during clustering. */
interface Cluster {
  stats: GaussianStats;
  logDet: number;
  members: number[];
}

export interface BicClusterSettings {
  penaltyWeight: number;
  ridge: number;
  /** Stop at this many clusters even if the criterion would merge more. */
  minClusters: number;
}

/**
 * Groups the pieces bottom-up by ΔBIC (merge the pair with the lowest while it is negative, or until `minClusters`).
 * Returns a cluster index per piece, numbered 0 … k-1.
 */
export function clusterByBic(features: FeatureMatrix, pieces: FrameSpan[], settings: BicClusterSettings): Int32Array {
  const dimensions = features.dimensions;
  const work = new Float64Array(dimensions * dimensions);
  const penalty = 0.5 * settings.penaltyWeight * gaussianParameters(dimensions);
  const clusters: (Cluster | undefined)[] = pieces.map((piece, index) => {
    const stats = emptyStats(dimensions);
    accumulate(stats, features, piece.startFrame, piece.endFrame, 1);
    return { stats, logDet: logDeterminant(stats, settings.ridge, work), members: [index] };
  });
  // The penalty counts the frames as twice their harmonic mean, not their sum: when a short piece meets a large cluster
  // the evidence is only as much as the short piece holds, and log(n_a + n_b) let large clusters swallow the short
  // voices of a conversation (on 40 conversations built as `npm run bench speakers` builds them, seed 2, each weight at
  // its best: DER 5% vs 12%, speaker count exact in 26 vs 21). A piece with no frame loud enough to model joins
  // whatever is nearest.
  const deltaBic = (a: Cluster, b: Cluster): number => {
    const both = a.stats.count + b.stats.count;
    if (a.stats.count < 1 || b.stats.count < 1) return -Infinity;
    return (
      0.5 * (both * logDeterminant(a.stats, settings.ridge, work, b.stats) - a.stats.count * a.logDet - b.stats.count * b.logDet) -
      penalty * Math.log((2 * a.stats.count * b.stats.count) / both)
    );
  };
  const merge = (into: number, from: number): void => {
    const a = clusters[into] as Cluster;
    const b = clusters[from] as Cluster;
    addStats(a.stats, b.stats);
    a.logDet = logDeterminant(a.stats, settings.ridge, work);
    a.members.push(...b.members);
    clusters[from] = undefined;
  };
  let alive = clusters.length;
  // Each cluster remembers its best partner among the higher-numbered ones, so a merge re-scores one row and the
  // rows that pointed at the two merged clusters, not the whole matrix.
  const count = clusters.length;
  const bestPartner = new Int32Array(count).fill(-1);
  const bestScore = new Float64Array(count).fill(Infinity);
  const rescore = (i: number): void => {
    bestPartner[i] = -1;
    bestScore[i] = Infinity;
    const a = clusters[i];
    if (!a) return;
    for (let j = i + 1; j < count; j += 1) {
      const b = clusters[j];
      if (!b) continue;
      const score = deltaBic(a, b);
      if (score < (bestScore[i] as number)) {
        bestScore[i] = score;
        bestPartner[i] = j;
      }
    }
  };
  for (let i = 0; i < count; i += 1) rescore(i);
  while (alive > settings.minClusters) {
    let from = -1;
    for (let i = 0; i < count; i += 1) if (bestPartner[i] !== -1 && (from === -1 || (bestScore[i] as number) < (bestScore[from] as number))) from = i;
    if (from === -1 || (bestScore[from] as number) >= 0) break;
    const other = bestPartner[from] as number;
    merge(from, other);
    alive -= 1;
    for (let i = 0; i < count; i += 1) {
      if (!clusters[i]) {
        bestPartner[i] = -1;
        continue;
      }
      if (i === from || bestPartner[i] === from || bestPartner[i] === other) rescore(i);
      else if (i < from) {
        const score = deltaBic(clusters[i] as Cluster, clusters[from] as Cluster);
        if (score < (bestScore[i] as number)) {
          bestScore[i] = score;
          bestPartner[i] = from;
        }
      }
    }
  }
  const labels = new Int32Array(pieces.length);
  let next = 0;
  for (const cluster of clusters) {
    if (!cluster) continue;
    for (const member of cluster.members) labels[member] = next;
    next += 1;
  }
  return labels;
}
