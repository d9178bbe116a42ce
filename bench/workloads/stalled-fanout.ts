// Workload 6: many readers and some stalled sockets on one long run (about 1.7 MB of events).
// Halfway through the run, the readers join it from its start, all at once (a burst of
// connects, as after a deploy or a network blip), together with sockets that send the same
// request and then never read. Each client replays the first half from Redis, then follows live.
// Reports the API's peak RSS while it relays, and its RSS after every client has left: right
// after, a while later (a minute in the full run), and after a forced full GC. Memory a relay
// keeps for stalled or departed clients shows up in those last figures. Connects that failed
// (a burst that overflows the listen backlog is reset) are counted, and so are the kernel's
// listen-queue overflows meanwhile.
import { readFileSync } from 'node:fs';
import net from 'node:net';
import type { Gate } from '../model/gate.ts';
import { openSse, type SseStream } from '../client/sse-reader.ts';
import { BACKGROUND_RUN_HEADERS, sdkClient } from '../client/sdk-run.ts';
import type { GcReport } from '../lib/gc.ts';
import { rssAfterLeave, type RssAfterLeave } from '../lib/memory.ts';
import { rssMiB } from '../lib/processes.ts';
import { waitFor, withDeadline } from '../lib/wait.ts';
import type { BenchServer, ServerName } from '../servers/bench-server.ts';
import { JOIN_HEADERS, joinUrl, startHeldRuns, type HeldRun } from './held-run.ts';

export interface StalledFanoutParams {
  readers: number;
  stalled: number;
  /** Tokens in the run's answer: one `messages` event each. */
  tokens: number;
  delayMs: number;
  /** How long after the clients leave the settled RSS is read. */
  settleMs: number;
}

export interface StalledFanoutPoint extends StalledFanoutParams {
  server: ServerName;
  /** Bytes of SSE body one reader received for the whole run (the first complete reader). */
  run_bytes: number;
  /** Readers that received the run to its `end`. */
  complete_readers: number;
  /** Connects that failed (reset or refused), readers and stalled sockets together. */
  failed_connects: number;
  /** The kernel's count of connects dropped from a full listen queue (TcpExt ListenOverflows, machine-wide). */
  listen_overflows: number;
  /** After a forced GC, before any client connected. */
  rss_before_mib: number;
  gc_before: GcReport;
  /** Highest RSS sampled (every 100 ms) from the first connect until the API let every client go. */
  rss_peak_mib: number;
  after_leave: RssAfterLeave;
  run_s: number;
}

interface Stalled {
  socket: net.Socket;
  failed: boolean;
}

/** Sends the join request and never reads: the kernel buffers fill, then the server's. */
function openStalled(url: string): Stalled {
  const { hostname, port, pathname } = new URL(url);
  const stalled: Stalled = { socket: net.connect({ host: hostname, port: Number(port) }), failed: false };
  stalled.socket.pause();
  stalled.socket.on('error', () => (stalled.failed = true));
  stalled.socket.on('connect', () =>
    stalled.socket.write(`GET ${pathname} HTTP/1.1\r\nHost: ${hostname}\r\nAccept: text/event-stream\r\nLast-Event-ID: ${JOIN_HEADERS['last-event-id']}\r\n\r\n`),
  );
  return stalled;
}

/** TcpExt ListenOverflows from /proc/net/netstat (a header line of names, then one of values). */
function listenOverflows(): number {
  const lines = readFileSync('/proc/net/netstat', 'utf8').split('\n');
  const at = lines.findIndex((l) => l.startsWith('TcpExt:') && l.includes('ListenOverflows'));
  const names = (lines[at] ?? '').split(/\s+/);
  const values = (lines[at + 1] ?? '').split(/\s+/);
  return Number(values[names.indexOf('ListenOverflows')] ?? Number.NaN);
}

export async function measureStalledFanout(server: BenchServer, gate: Gate, params: StalledFanoutParams): Promise<StalledFanoutPoint> {
  const gcBefore = await server.collectGarbage();
  const rssBefore = Number(rssMiB(server.apiPid).toFixed(1));
  const [run] = await startHeldRuns(sdkClient(server.apiUrl, BACKGROUND_RUN_HEADERS), gate, 1, params.delayMs, params.tokens);
  if (!run) throw new Error('no held run');
  const url = joinUrl(server.apiUrl, run as HeldRun);

  let peak = rssMiB(server.apiPid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(server.apiPid))), 100);
  const bytes = new Array<number>(params.readers).fill(0);
  const ended = new Array<boolean>(params.readers).fill(false);
  let readers: SseStream[] = [];
  let stalled: Stalled[] = [];
  let failedReaders = 0;
  let tokensSeen = 0;
  const pacer = openSse(url, JOIN_HEADERS, (e) => {
    if (e.event === 'messages') tokensSeen += 1;
  });
  const overflowsBefore = listenOverflows();
  const t0 = performance.now();
  try {
    gate.open();
    await waitFor(() => tokensSeen >= params.tokens / 2, 'the run to stream half its tokens', 120_000, 5);
    stalled = Array.from({ length: params.stalled }, () => openStalled(url));
    // One burst, no batching: the listen backlog must take it.
    readers = Array.from({ length: params.readers }, (_, i) =>
      openSse(url, JOIN_HEADERS, (e) => {
        // `event: `, `data: `, `id: ` and four newlines frame each event.
        bytes[i] = (bytes[i] ?? 0) + e.data.length + e.event.length + e.id.length + 21;
        if (e.event === 'end') ended[i] = true;
      }),
    );
    const statuses = await Promise.all(readers.map((r) => r.opened.catch(() => 0)));
    failedReaders = statuses.filter((s) => s !== 200).length;
    const live = readers.filter((_, i) => statuses[i] === 200);
    await withDeadline(Promise.all(live.map((r) => r.closed)), 300_000, `the long run's stream to end for ${live.length} readers`).catch(() => undefined);
  } finally {
    pacer.close();
    for (const r of readers) r.close();
    for (const s of stalled) s.socket.destroy();
  }
  const runS = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  const afterLeave = await rssAfterLeave(server, params.settleMs);
  peak = Math.max(peak, afterLeave.right_after_mib);
  const first = ended.indexOf(true);
  return {
    server: server.name,
    ...params,
    run_bytes: first >= 0 ? (bytes[first] ?? 0) : 0,
    complete_readers: ended.filter(Boolean).length,
    failed_connects: failedReaders + stalled.filter((s) => s.failed).length,
    listen_overflows: listenOverflows() - overflowsBefore,
    rss_before_mib: rssBefore,
    gc_before: gcBefore,
    rss_peak_mib: Number(peak.toFixed(1)),
    after_leave: afterLeave,
    run_s: Number(runS.toFixed(1)),
  };
}
