// K-fold cross-validation of a tuned setting: each fold's setting is chosen on the other folds only, then measured on
// the fold it never saw, so the mean says how a choice generalises to new questions rather than how well it was fitted.

/** One fold: the items a setting may be tuned on, and the held-out items it is measured on. */
export interface Fold<T> {
  train: T[];
  test: T[];
}

/** FNV-1a of a string: a stable, well-spread order for assigning groups to folds. */
function stableHash(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/**
 * Splits items into k folds by group: the items of one group (e.g. the questions written from one video) always fall in
 * the same fold, so no fold is tuned on a sibling of a question it is measured on. Deterministic, and balanced in groups.
 */
export function foldsByGroup<T>(items: readonly T[], k: number, group: (item: T) => string): Fold<T>[] {
  if (!Number.isInteger(k) || k < 2) throw new RangeError("cross-validation needs at least 2 folds");
  const groups = [...new Set(items.map(group))].sort((a, b) => stableHash(a) - stableHash(b) || a.localeCompare(b));
  if (groups.length < k) throw new RangeError(`${groups.length} groups cannot fill ${k} folds`);
  const foldOf = new Map(groups.map((name, index) => [name, index % k]));
  return Array.from({ length: k }, (_, fold) => ({
    train: items.filter((item) => foldOf.get(group(item)) !== fold),
    test: items.filter((item) => foldOf.get(group(item)) === fold),
  }));
}

/** Mean and population standard deviation, rounded to 3 places. */
export function meanAndSpread(values: readonly number[]): { mean: number; spread: number } {
  if (values.length === 0) return { mean: 0, spread: 0 };
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  const variance = values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / values.length;
  const round = (value: number) => Math.round(value * 1000) / 1000;
  return { mean: round(mean), spread: round(Math.sqrt(variance)) };
}

export interface CrossValidationOptions<T, S, M extends Record<string, number>> {
  folds: Fold<T>[];
  /** Chooses a setting from a fold's training items alone: a grid search (`bestOf`) or a fitted model. */
  tune: (train: T[]) => S;
  /** The metrics reported on a fold's held-out items. */
  measure: (setting: S, test: T[]) => M;
}

export interface CrossValidationReport<S, M extends Record<string, number>> {
  /** Per fold: the setting its training items chose, and its metrics on the held-out items. */
  folds: { chosen: S; held: M; size: number }[];
  /** Each metric's mean and spread over the folds. */
  metrics: Record<keyof M, { mean: number; spread: number }>;
}

/** The candidate with the highest objective (the first on ties). */
export function bestOf<S>(candidates: readonly S[], objective: (candidate: S) => number): S {
  if (candidates.length === 0) throw new RangeError("a grid search needs at least one candidate");
  let chosen = candidates[0] as S;
  let best = -Infinity;
  for (const candidate of candidates) {
    const value = objective(candidate);
    if (value > best) [chosen, best] = [candidate, value];
  }
  return chosen;
}

/** Tunes on each fold's training items and measures on its held-out ones; the mean and spread of each metric. */
export function crossValidate<T, S, M extends Record<string, number>>(options: CrossValidationOptions<T, S, M>): CrossValidationReport<S, M> {
  const folds = options.folds.map((fold) => {
    const chosen = options.tune(fold.train);
    return { chosen, held: options.measure(chosen, fold.test), size: fold.test.length };
  });
  const names = Object.keys(folds[0]?.held ?? {}) as (keyof M)[];
  const metrics = Object.fromEntries(names.map((name) => [name, meanAndSpread(folds.map((fold) => fold.held[name] as number))])) as Record<keyof M, { mean: number; spread: number }>;
  return { folds, metrics };
}
