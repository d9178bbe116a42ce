// Percentiles over recorded samples. Nearest-rank, so p99 of 100 samples is the 99th value:
// with few samples the tail is what was seen, never an interpolation.

export interface Summary {
  n: number;
  p50: number;
  p99: number;
  max: number;
  mean: number;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

const round = (value: number, digits = 2): number => (Number.isFinite(value) ? Number(value.toFixed(digits)) : value);

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, v) => sum + v, 0) / (sorted.length || 1);
  return {
    n: sorted.length,
    p50: round(percentile(sorted, 50)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted.at(-1) ?? Number.NaN),
    mean: round(mean),
  };
}

/** Warren divided by the anchor; null when either side is missing. */
export function ratio(warren: number | undefined, anchor: number | undefined): number | null {
  if (warren === undefined || anchor === undefined || !Number.isFinite(warren) || !Number.isFinite(anchor) || anchor === 0) return null;
  return round(warren / anchor, 2);
}
