/**
 * The p-th percentile (0 < p <= 100) of `sorted` (ascending) by the nearest-rank method: the
 * smallest value with at least p % of the samples at or below it. Undefined for no samples.
 */
export function percentile(sorted: readonly number[], p: number): number | undefined {
  if (!(p > 0 && p <= 100)) throw new RangeError(`percentile must be in (0, 100], got ${p}`);
  if (sorted.length === 0) return undefined;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[rank - 1];
}

/** Round-trip figures of one bench run. */
export interface RunSummary {
  count: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

/** Summarises round-trip samples (ms) taken over `seconds` of wall time. */
export function summarize(latenciesMs: readonly number[], seconds: number): RunSummary {
  const sorted = [...latenciesMs].sort((a, b) => a - b);
  return {
    count: sorted.length,
    seconds,
    perSecond: seconds > 0 ? sorted.length / seconds : 0,
    p50Ms: percentile(sorted, 50) ?? Number.NaN,
    p99Ms: percentile(sorted, 99) ?? Number.NaN,
  };
}

/** The median of `values` (mean of the middle two for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
