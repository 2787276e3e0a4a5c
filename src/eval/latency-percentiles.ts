// Latency percentiles, interpolated between the nearest ranks as numpy's default does.

/** The p-th percentile (0..100) of the values; NaN for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const position = (Math.min(100, Math.max(0, p)) / 100) * (sorted.length - 1);
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  const low = sorted[lower] ?? Number.NaN;
  return low + ((sorted[upper] ?? low) - low) * (position - lower);
}

/** Median and 95th percentile, rounded to 0.1 ms. */
export function latencyPercentiles(milliseconds: readonly number[]): { p50: number; p95: number } {
  const round = (value: number): number => Math.round(value * 10) / 10;
  return { p50: round(percentile(milliseconds, 50)), p95: round(percentile(milliseconds, 95)) };
}
