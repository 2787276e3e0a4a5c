// A seeded generator for the benchmarks, so that runs (and the variants they compare) see the same vectors.

/** Uniform in [−0.5, 0.5), from a linear congruential generator. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296 - 0.5;
  };
}
