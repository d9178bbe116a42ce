// Workload 3: K clients join the same run; how late does each streamed token reach each client?
// - token lag (both servers): from the gate stamping the token on its way into the server to a
//   client receiving the `messages` event that carries it. Same clock (this process), sub-ms.
// - append lag (Warren only): from the worker's XADD (the ms part of the Redis stream id) to
//   receipt. The anchor's ids are sequence numbers, so it has no equivalent.
// - spread (both): per token, last client's receipt minus first client's.
import type { Gate } from '../model/gate.ts';
import { openSse, type SseEvent, type SseStream } from '../client/sse-reader.ts';
import { BACKGROUND_RUN_HEADERS, sdkClient } from '../client/sdk-run.ts';
import { rssAfterLeave, type RssAfterLeave } from '../lib/memory.ts';
import { cpuByProcess, foreignCpuMeter, rssMiB } from '../lib/processes.ts';
import { summarize, type Summary } from '../lib/stats.ts';
import { sleep, waitFor, withDeadline } from '../lib/wait.ts';
import type { BenchServer, ServerName } from '../servers/bench-server.ts';
import { lagBetween, type BucketedLag } from '../servers/warren-metrics.ts';
import { JOIN_HEADERS, joinUrl, startHeldRuns } from './held-run.ts';

export interface FanoutPoint {
  server: ServerName;
  clients: number;
  /** Model pace: the relay must deliver clients × 1000 / delay_ms events per second. */
  delay_ms: number;
  /** Clients that received every token. */
  complete_clients: number;
  tokens_per_client: number;
  token_lag_ms: Summary;
  append_lag_ms: Summary | null;
  /** Warren only: the API's own histogram of append → write, for this workload alone. */
  server_relay_lag: BucketedLag | null;
  spread_ms: Summary;
  join_s: number;
  /** CPU while the tokens streamed, in % of one core: all server processes, and the clients (this process). */
  server_cpu_pct: number;
  client_cpu_pct: number;
  /** Other programs on the machine meanwhile, in % of one core. */
  foreign_cpu_pct: number;
  /** API RSS before the clients joined, and once they had all left. */
  rss_before_mib: number;
  after_leave: RssAfterLeave;
}

const STAMP = / @(\d+\.\d+)/;

async function openInBatches(count: number, open: () => SseStream, batch = 100): Promise<SseStream[]> {
  const streams: SseStream[] = [];
  for (let i = 0; i < count; i += batch) {
    const opened = Array.from({ length: Math.min(batch, count - i) }, open);
    streams.push(...opened);
    await Promise.all(opened.map((s) => s.opened));
  }
  return streams;
}

export async function measureFanout(server: BenchServer, gate: Gate, clients: number, tokens: number, delayMs: number): Promise<FanoutPoint> {
  const [run] = await startHeldRuns(sdkClient(server.apiUrl, BACKGROUND_RUN_HEADERS), gate, 1, delayMs);
  if (!run) throw new Error('no held run');
  const tokenLags: number[] = [];
  const appendLags: number[] = [];
  const receiptsByStamp = new Map<string, { first: number; last: number }>();
  const tokensSeen: number[] = new Array<number>(clients).fill(0);

  const onEvent = (client: number) => (e: SseEvent) => {
    if (e.event !== 'messages') return;
    const stamp = STAMP.exec(e.data)?.[1];
    if (!stamp) return;
    tokensSeen[client] = (tokensSeen[client] ?? 0) + 1;
    tokenLags.push(e.at - Number(stamp));
    if (server.idsCarryAppendTime && e.id) appendLags.push(e.wall - Number(e.id.slice(0, e.id.indexOf('-'))));
    const seen = receiptsByStamp.get(stamp);
    if (!seen) receiptsByStamp.set(stamp, { first: e.at, last: e.at });
    else {
      seen.first = Math.min(seen.first, e.at);
      seen.last = Math.max(seen.last, e.at);
    }
  };

  const rssBefore = Number(rssMiB(server.apiPid).toFixed(1));
  const t0 = performance.now();
  let index = 0;
  const streams = await openInBatches(clients, () => openSse(joinUrl(server.apiUrl, run), JOIN_HEADERS, onEvent(index++)));
  // Joined means the replay of what the run already produced (metadata, first values) is in.
  await waitFor(() => streams.every((s) => s.events() > 0), `${clients} clients to receive the run's first event`, 60_000);
  const joinS = (performance.now() - t0) / 1000;
  await sleep(300);
  const serverCpu = () => cpuByProcess(server.processes).total;
  const histogramBefore = await server.relayLag?.();
  const cpuStart = { server: serverCpu(), client: process.cpuUsage(), at: performance.now() };
  const foreign = foreignCpuMeter(server.processes);
  gate.open();
  await withDeadline(
    Promise.all(streams.map((s) => s.closed)),
    60_000,
    `the fan-out run's stream to end for ${clients} clients`,
  ).catch(() => streams.forEach((s) => s.close()));
  const elapsedS = (performance.now() - cpuStart.at) / 1000;
  const clientCpu = process.cpuUsage(cpuStart.client);
  const serverCpuS = serverCpu() - cpuStart.server;
  const foreignPct = foreign();
  const histogramAfter = await server.relayLag?.();
  const afterLeave = await rssAfterLeave(server);

  return {
    server: server.name,
    clients,
    delay_ms: delayMs,
    complete_clients: tokensSeen.filter((n) => n >= tokens).length,
    tokens_per_client: tokens,
    token_lag_ms: summarize(tokenLags),
    append_lag_ms: server.idsCarryAppendTime ? summarize(appendLags) : null,
    server_relay_lag: histogramBefore && histogramAfter ? lagBetween(histogramBefore, histogramAfter) : null,
    spread_ms: summarize([...receiptsByStamp.values()].map((r) => r.last - r.first)),
    join_s: Number(joinS.toFixed(2)),
    server_cpu_pct: Number(((serverCpuS / elapsedS) * 100).toFixed(0)),
    foreign_cpu_pct: foreignPct,
    client_cpu_pct: Number((((clientCpu.user + clientCpu.system) / 1e6 / elapsedS) * 100).toFixed(0)),
    rss_before_mib: rssBefore,
    after_leave: afterLeave,
  };
}
