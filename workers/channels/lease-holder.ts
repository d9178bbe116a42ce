// Holds one chat platform's connection for the whole deployment. Every worker runs one of these
// per enabled platform; they race for the platform's lease in Redis (src/channels/channel-store.ts),
// the winner runs the connection and renews the lease a few times per lease period, and the
// others try again now and then. A holder that dies stops renewing, so its lease lapses and
// another worker's next try takes over. A holder that loses its lease (stalled past it, Redis
// away too long) stops its connection at once: two connections to one bot must not overlap.
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { ChannelName, ChannelStore } from '../../src/channels/channels.js';
import { ChannelLeaseLostError } from './channels.errors.js';

/** Runs a platform's connection until `signal` aborts; `token` is the lease's fencing token. */
export type Connect = (token: string, signal: AbortSignal) => Promise<void>;

export interface LeaseHolderOptions {
  channel: ChannelName;
  store: Pick<ChannelStore, 'acquire' | 'renew' | 'release' | 'report'>;
  /** This process, as GET /api/channels names the holder. */
  holder: string;
  leaseMs: number;
  connect: Connect;
  log: Logger;
}

export interface LeaseHolder {
  /** Drops the connection (if held here) and races for the lease again. */
  restart(): void;
  stop(): Promise<void>;
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

export function startLeaseHolder(options: LeaseHolderOptions): LeaseHolder {
  const { channel, store, leaseMs, log } = options;
  const stopping = new AbortController();
  let current: AbortController | null = null;

  /** Renews the lease every third of it; aborts the connection when it is lost. */
  function keepLease(token: string, connection: AbortController): () => void {
    let renewedAt = Date.now();
    const timer = setInterval(() => {
      store
        .renew(channel, token, leaseMs)
        .then((held) => {
          if (held) renewedAt = Date.now();
          else connection.abort(new ChannelLeaseLostError('lease lost'));
        })
        .catch((err: unknown) => {
          // Redis unreachable: the lease may lapse meanwhile, and another may take it.
          log.warn({ err, channel }, 'channel lease renewal failed');
          if (Date.now() - renewedAt >= leaseMs) connection.abort(new ChannelLeaseLostError('lease not renewed in time'));
        });
    }, Math.max(100, Math.floor(leaseMs / 3)));
    return () => clearInterval(timer);
  }

  async function holdOnce(token: string): Promise<void> {
    const connection = new AbortController();
    current = connection;
    const onStop = () => connection.abort(new Error('worker stopping'));
    stopping.signal.addEventListener('abort', onStop, { once: true });
    const stopRenewing = keepLease(token, connection);
    log.info({ channel, holder: options.holder }, 'channel connection held here');
    try {
      await options.connect(token, connection.signal);
    } catch (err) {
      if (!connection.signal.aborted) {
        log.error({ err, channel }, 'channel connection failed');
        await store.report(channel, { last_error: errorText(err) }).catch(() => undefined); // only the status page: logged just above
      }
    } finally {
      stopRenewing();
      stopping.signal.removeEventListener('abort', onStop);
      current = null;
      // The status first: written after the release, it could clear what the next holder just wrote.
      await store.report(channel, { connected: false, holder: null }).catch(() => undefined); // only the status page, which the next holder rewrites
      // Given back at once (when still ours), so a restart or a stop hands over without waiting out the lease.
      await store.release(channel, token).catch((err: unknown) => log.warn({ err, channel }, 'channel lease release failed; it lapses by itself'));
      log.info({ channel, why: errorText(connection.signal.reason ?? 'ended') }, 'channel connection dropped');
    }
  }

  const loop = (async () => {
    while (!stopping.signal.aborted) {
      let token: string | null = null;
      try {
        token = await store.acquire(channel, options.holder, leaseMs);
      } catch (err) {
        log.warn({ err, channel }, 'channel lease could not be asked for');
      }
      if (token !== null) {
        const started = Date.now();
        await holdOnce(token);
        // A connection that fails at once must not spin: wait a little before racing again.
        if (Date.now() - started < 1_000) await delay(1_000, undefined, { signal: stopping.signal }).catch(() => undefined); // stopping: the loop's check ends it
        continue;
      }
      // Tries spread over half a lease: a takeover comes within about 1.5 leases of the death.
      await delay(leaseMs / 4 + Math.random() * (leaseMs / 4), undefined, { signal: stopping.signal }).catch(() => undefined); // stopping: the loop's check ends it
    }
  })();

  return {
    restart() {
      current?.abort(new Error('restart requested'));
    },
    async stop() {
      stopping.abort();
      await loop;
    },
  };
}
