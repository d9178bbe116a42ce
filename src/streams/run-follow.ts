// Following a run's event stream: the hub subscription, the pacing of a client that falls behind,
// and the relay metrics. The SSE relay (run-relay.ts) and the WebSocket routes (runs.ws.ts) both
// follow through here; the run lifecycle (runs.service.ts) knows nothing of it.
import type { WarrenMetrics } from '../metrics/warren-metrics.js';
import type { RunStreamHub } from './run-stream-hub.js';
import { appendedAt, type StreamEntry } from '../store/run-stream.js';

/**
 * Bytes handed to a streaming client's socket and not yet written out, past which it takes no
 * more entries and is paused until its socket drains: with its socket's own buffer, all that a
 * client that stops reading costs.
 */
export const CLIENT_QUEUE_BYTES = 256 * 1024;

export type StreamTransport = 'sse' | 'websocket';

/** A streaming client of a run, which can fall behind. */
export interface StreamClient {
  /**
   * Writes entries to the client, in order, until CLIENT_QUEUE_BYTES wait for it; returns how
   * many it took. Fewer than all means it is paused, and resume() goes on after the last one.
   */
  onEntries(entries: readonly StreamEntry[]): number;
  onDone(): void;
}

export interface ClientFollow {
  /** After a pause, the client has caught up: go on from Redis after the last entry it was given. */
  resume(): void;
  stop(): void;
}

export interface RunFollowDeps {
  hub: Pick<RunStreamHub, 'subscribe'>;
  metrics: Pick<WarrenMetrics, 'openConnections' | 'relayLagSeconds' | 'waitingClients'>;
}

export function createRunFollow(deps: RunFollowDeps) {
  const { hub, metrics } = deps;

  /**
   * Follows a run for a streaming client (SSE or WebSocket), counting relay lag and paused
   * clients. A client that reads slower than its run writes is not buffered for without bound:
   * it takes entries only while little waits for it, the follow pauses at the first it leaves,
   * and resume() picks up after the last entry it took, so every entry still arrives once and in
   * order.
   */
  function client(threadId: string, runId: string, afterId: string, transport: StreamTransport, target: StreamClient): ClientFollow {
    let paused = false;
    let stopped = false;
    const setPaused = (value: boolean) => {
      if (paused === value) return;
      paused = value;
      metrics.waitingClients.inc({ transport }, value ? 1 : -1);
    };
    const subscription = hub.subscribe(threadId, runId, afterId, {
      onEntries: (entries) => {
        const taken = stopped ? entries.length : target.onEntries(entries);
        const now = Date.now();
        for (let i = 0; i < taken; i++) metrics.relayLagSeconds.observe(Math.max(0, now - appendedAt((entries[i] as StreamEntry).id)) / 1000);
        if (taken < entries.length) setPaused(true);
        return taken;
      },
      onDone: () => target.onDone(),
    });
    return {
      resume() {
        if (!paused || stopped) return;
        setPaused(false);
        subscription.resume();
      },
      stop() {
        stopped = true;
        setPaused(false);
        subscription.stop();
      },
    };
  }

  /** Resolves when the run's stream has ended; collects the last `values` and any `error`. */
  function settled(threadId: string, runId: string): { done: Promise<{ values?: string; error?: string }>; stop: () => void } {
    let values: string | undefined;
    let error: string | undefined;
    let stop: () => void = () => {};
    const done = new Promise<{ values?: string; error?: string }>((resolve) => {
      const subscription = hub.subscribe(threadId, runId, '0', {
        onEntries(entries) {
          for (const entry of entries) {
            if (entry.event === 'values') values = entry.data;
            else if (entry.event === 'error') error = entry.data;
          }
        },
        onDone: () => resolve({ ...(values !== undefined ? { values } : {}), ...(error !== undefined ? { error } : {}) }),
      });
      stop = () => subscription.stop();
    });
    return { done, stop };
  }

  /** Counts an open streaming connection; the function returned uncounts it, once. */
  function connection(transport: StreamTransport): () => void {
    metrics.openConnections.inc({ transport });
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      metrics.openConnections.dec({ transport });
    };
  }

  return { client, settled, connection };
}

export type RunFollow = ReturnType<typeof createRunFollow>;
