// The API's memory once every client has gone: what a relay keeps for clients that left shows
// up here, and so does memory the process freed but has not given back to the system.
import type { BenchServer } from '../servers/bench-server.ts';
import type { GcReport } from './gc.ts';
import { rssMiB } from './processes.ts';
import { sleep, waitFor } from './wait.ts';

export interface RssAfterLeave {
  /** Streams the API still counted as open when the reading was taken (Warren only; null for the anchor). */
  open_streams: number | null;
  /** Right after the API let the last client go. */
  right_after_mib: number;
  /** After `settled_s` more seconds (null when not asked for). */
  settled_mib: number | null;
  settled_s: number;
  /** Then after a forced full garbage collection. */
  after_gc_mib: number;
  /** What V8 held before that collection and what was live after it: RSS above the live memory is memory freed but not given back to the system. */
  gc: GcReport;
}

const mib = (pid: number) => Number(rssMiB(pid).toFixed(1));

export async function rssAfterLeave(server: BenchServer, settleMs = 0): Promise<RssAfterLeave> {
  let open: number | null = null;
  const { openStreams } = server;
  if (openStreams) {
    // The clients have closed their sockets; the server sees each close a moment later.
    await waitFor(async () => (open = await openStreams()) === 0, 'the API to let every stream go', 30_000).catch(() => undefined);
  }
  const rightAfter = mib(server.apiPid);
  let settled: number | null = null;
  if (settleMs > 0) {
    await sleep(settleMs);
    settled = mib(server.apiPid);
  }
  const live = await server.collectGarbage();
  return { open_streams: open, right_after_mib: rightAfter, settled_mib: settled, settled_s: settleMs / 1000, after_gc_mib: mib(server.apiPid), gc: live };
}
