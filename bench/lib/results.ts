// The shape of bench/results/<date>.json.
import type { FanoutPoint } from '../workloads/fanout.ts';
import type { FirstTokenPoint } from '../workloads/first-token.ts';
import type { FormatPoint } from '../workloads/conversion.ts';
import type { ServerName } from '../servers/bench-server.ts';
import type { FloorPoint } from '../workloads/floor.ts';
import type { IdlePoint } from '../workloads/idle.ts';
import type { ModelsUnderLoad } from '../workloads/models-under-load.ts';
import type { RedisCommandsPoint } from '../workloads/redis-commands.ts';
import type { StalledFanoutPoint } from '../workloads/stalled-fanout.ts';
import type { StoreSearchPoint } from '../workloads/store-search.ts';
import type { ThroughputPoint } from '../workloads/throughput.ts';
import type { ProfileSummary } from '../report/profile.ts';
import type { MachineInfo } from './machine.ts';

/** A throughput series: one server configuration running one graph. */
export interface Series {
  label: string;
  server: ServerName;
  graph: string;
  /** Runs executed at once by the server, in all. */
  slots: number;
  /** Processes executing runs: anchor 1; Warren's worker processes. */
  workers: number;
  points: ThroughputPoint[];
  /** CPU the bench process itself (the clients) used per run, for context on a shared machine. */
  client_cpu_ms_per_run: number;
}

export interface BenchResults {
  date: string;
  mode: 'quick' | 'full';
  duration_s: number;
  machine: MachineInfo;
  /** os.loadavg() when the run started and ended: other work on a shared machine skews everything. */
  load_average: { start: number[]; end: number[] };
  versions: Record<string, string>;
  /** The Warren commit measured (`--warren-root` can point at another checkout). */
  warren_commit: string;
  params: { tokens: number; delay_ms: number; slots: number; anchor_default_workers: number | null };
  series: Series[];
  /** The bench graph with no server: the CPU per run no server can go below. */
  floor: FloorPoint[];
  /** The bench graph behind a bare node:http server, at the throughput levels (older results lack it). */
  served_floor?: ThroughputPoint[];
  /** The same, relayed through Redis between an HTTP process and a graph process (older results lack it). */
  relayed_floor?: ThroughputPoint[];
  /** Fan-out on the relayed floor (older results lack it). */
  relayed_fanout?: FanoutPoint[];
  fanout: FanoutPoint[];
  idle: IdlePoint[];
  /** Warren only: readers and stalled sockets on one long run, and the API's memory after they leave. */
  stalled_fanout: StalledFanoutPoint[];
  conversion: FormatPoint[];
  models_under_load: ModelsUnderLoad | null;
  /** Semantic search over the store, ranked in process (no server; Warren only). */
  store_search?: StoreSearchPoint[];
  /** Redis commands per run, by command and process (Warren only, counted with MONITOR). */
  redis_commands?: RedisCommandsPoint[];
  /** Where a run's time to first token goes, read off its stream (Warren only; older results lack it). */
  first_token?: FirstTokenPoint[];
  /** Where the CPU of each throughput level went, when the run was made with `--cpu-prof`. */
  profiles?: ProfileSummary[];
  /** Workloads or parts that could not be measured, and why. */
  notes: string[];
}
