// Warren's own view of relay lag: the API's /metrics histogram of "worker append → this process
// writes the event to a client". Diffing two scrapes isolates one workload, and separates the
// server's share of the lag from the bench client's. Also its gauge of open streams.

/** Cumulative bucket counts by upper bound in ms (Infinity for +Inf). */
export type Buckets = Map<number, number>;

const BUCKET = /^warren_stream_relay_lag_seconds_bucket\{[^}]*le="([^"]+)"[^}]*\}\s+(\d+(?:\.\d+)?)/;

const scrape = async (baseUrl: string): Promise<string> => (await fetch(`${baseUrl}/metrics`)).text();

export async function scrapeRelayLag(baseUrl: string): Promise<Buckets> {
  const text = await scrape(baseUrl);
  const buckets: Buckets = new Map();
  for (const line of text.split('\n')) {
    const m = BUCKET.exec(line);
    if (!m) continue;
    const le = m[1] === '+Inf' ? Number.POSITIVE_INFINITY : Number(m[1]) * 1000;
    buckets.set(le, (buckets.get(le) ?? 0) + Number(m[2]));
  }
  return buckets;
}

const OPEN_SSE = /^warren_open_connections\{transport="sse"\}\s+(\d+)/m;

/** SSE streams the API still counts as open: 0 once it has let every client go. */
export async function scrapeOpenStreams(baseUrl: string): Promise<number> {
  return Number(OPEN_SSE.exec(await scrape(baseUrl))?.[1] ?? Number.NaN);
}

export interface BucketedLag {
  events: number;
  /** Upper bound (ms) of the bucket holding the percentile: "p99 ≤ 50 ms". */
  p50_le_ms: number;
  p99_le_ms: number;
  /** Share of events written within 5 ms of their append. */
  within_5ms: number;
}

export function lagBetween(before: Buckets, after: Buckets): BucketedLag {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const counts = bounds.map((b) => (after.get(b) ?? 0) - (before.get(b) ?? 0));
  const total = counts.at(-1) ?? 0;
  const bound = (p: number) => bounds[counts.findIndex((c) => c >= (p / 100) * total)] ?? Number.NaN;
  const within5 = counts[bounds.indexOf(5)] ?? 0;
  return { events: total, p50_le_ms: bound(50), p99_le_ms: bound(99), within_5ms: total ? Number((within5 / total).toFixed(3)) : 0 };
}
