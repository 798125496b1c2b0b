// Small statistics for the report: percentiles (nearest rank) and a log-spaced latency histogram.

export interface Percentiles {
  count: number;
  p50: number | null;
  p95: number | null;
  p99: number | null;
  max: number | null;
}

export function percentiles(values: readonly number[]): Percentiles {
  if (values.length === 0) return { count: 0, p50: null, p95: null, p99: null, max: null };
  const sorted = Float64Array.from(values).sort();
  const at = (q: number) => round(sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]);
  return { count: sorted.length, p50: at(0.5), p95: at(0.95), p99: at(0.99), max: round(sorted[sorted.length - 1]) };
}

const round = (x: number) => Math.round(x * 10) / 10;

/** Upper bounds (ms) of the histogram buckets; the last bucket is everything above. */
export const LATENCY_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000];

export function histogram(values: readonly number[], bounds: readonly number[] = LATENCY_BUCKETS): Array<{ le: number | null; count: number }> {
  const counts = new Array<number>(bounds.length + 1).fill(0);
  for (const v of values) {
    let i = 0;
    while (i < bounds.length && v > bounds[i]) i++;
    counts[i]++;
  }
  return counts.map((count, i) => ({ le: i < bounds.length ? bounds[i] : null, count }));
}
