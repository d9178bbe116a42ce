// What a workload needs from a server under test, whichever it is.
import type { GcReport } from '../lib/gc.ts';
import type { Buckets } from './warren-metrics.ts';

/** `floor`: the bench graph behind a bare node:http server (../floor/served-graph-entry.ts). */
export type ServerName = 'warren' | 'anchor' | 'floor';

export interface BenchServer {
  readonly name: ServerName;
  /** Base URL of the LangGraph API (what the SDK's `apiUrl` takes). */
  readonly apiUrl: string;
  /** The process that holds the clients' connections: its RSS is "memory per connection". */
  readonly apiPid: number;
  /** Every process of the server by role (CPU accounting): `api`, `worker`, `redis`, or `server`. */
  readonly processes: Readonly<Record<string, number>>;
  /** True when an SSE id starts with the epoch ms of the worker's append (Redis stream ids). */
  readonly idsCarryAppendTime: boolean;
  /** Warren only: scrapes the API's own relay-lag histogram (see warren-metrics.ts). */
  relayLag?: () => Promise<Buckets>;
  /** Warren only: the streams the API process still counts as open (its /metrics gauge). */
  openStreams?: () => Promise<number>;
  /** Runs a full GC in the API process (../lib/gc.ts); resolves once it has run, with what is live. */
  collectGarbage(): Promise<GcReport>;
  stop(): Promise<void>;
}
