// Redis connections, split by role: one shared command client, one subscriber, and a fresh
// connection for each blocking reader (a `GET` queued behind an `XREAD BLOCK` waits for it).
// ioredis reconnects by itself; commands issued while it is down are queued, not lost.
import { Redis, type RedisOptions } from 'ioredis';
import type { ConnectionOptions } from 'bullmq';
import type { Logger } from 'pino';

export interface RedisConnections {
  /** Shared client for ordinary commands. */
  readonly command: Redis;
  /** Options for BullMQ, which makes its own connections (it needs maxRetriesPerRequest: null). */
  readonly bullmqOptions: ConnectionOptions;
  /** A new connection the caller owns and must `disconnect()`; for XREAD BLOCK and the like. */
  blocking(name: string): Redis;
  /** A new subscriber connection (a subscribed connection can issue nothing else). */
  subscriber(name: string): Redis;
  close(): Promise<void>;
}

// Back off up to 2 s between reconnects, forever: a Redis restart must heal by itself.
const reconnectDelay = (times: number): number => Math.min(50 * 2 ** Math.min(times, 6), 2_000);

export function redisOptionsFromUrl(url: string): RedisOptions {
  const u = new URL(url);
  const db = u.pathname && u.pathname !== '/' ? Number(u.pathname.slice(1)) : 0;
  return {
    host: u.hostname || '127.0.0.1',
    port: Number(u.port || 6379),
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    db: Number.isFinite(db) ? db : 0,
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
    retryStrategy: reconnectDelay,
    // Fail queued commands after this many reconnects instead of hanging a request forever.
    maxRetriesPerRequest: 20,
    enableAutoPipelining: true,
  };
}

/** Connection options for BullMQ, which makes its own connections, from a Redis URL. */
export function bullmqOptionsFromUrl(url: string, role: string): ConnectionOptions {
  const base = redisOptionsFromUrl(url);
  return {
    host: base.host,
    port: base.port,
    username: base.username,
    password: base.password,
    db: base.db,
    ...(base.tls ? { tls: {} } : {}),
    retryStrategy: reconnectDelay,
    connectionName: `warren:${role}:bullmq`,
    // BullMQ's blocking commands must never give up on a reconnect.
    maxRetriesPerRequest: null,
  };
}

/** While a connection's errors repeat, it logs at most one line per this many ms. */
export const CONNECTION_ERROR_LOG_INTERVAL_MS = 30_000;

export interface ConnectionErrorLog {
  error(err: unknown): void;
  /** The connection is up (again). */
  ready(): void;
}

/**
 * Logs one connection's errors at warn, with their stack: the first at once, then at most one
 * line per interval while they repeat (ioredis and BullMQ report every reconnect attempt), with
 * how many were left out; and one line when the connection is back after a logged error.
 * `what` names the source in the message (`redis connection error`).
 */
export function connectionErrorLog(
  log: Logger,
  fields: Record<string, unknown>,
  { what = 'redis connection', intervalMs = CONNECTION_ERROR_LOG_INTERVAL_MS }: { what?: string; intervalMs?: number } = {},
): ConnectionErrorLog {
  let lastLoggedAt = Number.NEGATIVE_INFINITY;
  let leftOut = 0;
  let reported = false;
  return {
    error(err) {
      const now = Date.now();
      if (now - lastLoggedAt < intervalMs) {
        leftOut += 1;
        return;
      }
      lastLoggedAt = now;
      reported = true;
      log.warn({ ...fields, err, ...(leftOut > 0 ? { errors_left_out: leftOut } : {}) }, `${what} error`);
      leftOut = 0;
    },
    ready() {
      if (!reported) return;
      reported = false;
      log.info({ ...fields, ...(leftOut > 0 ? { errors_left_out: leftOut } : {}) }, `${what} recovered`);
      leftOut = 0;
    },
  };
}

export function connectRedis(url: string, role: string, log: Logger): RedisConnections {
  const base = redisOptionsFromUrl(url);
  const owned = new Set<Redis>();
  const make = (name: string, extra: RedisOptions = {}): Redis => {
    const client = new Redis({ ...base, connectionName: `warren:${role}:${name}`, ...extra });
    // Without a listener, ioredis prints unhandled 'error' events. An outage must show at the
    // default level, but it fires on every reconnect attempt: one line per interval.
    const errors = connectionErrorLog(log, { connection: `${role}:${name}` });
    client.on('error', errors.error);
    client.on('ready', errors.ready);
    owned.add(client);
    client.once('end', () => owned.delete(client));
    return client;
  };
  const command = make('command');
  let closing: Promise<void> | undefined;
  return {
    command,
    bullmqOptions: bullmqOptionsFromUrl(url, role),
    blocking: (name) => make(`blocking:${name}`, { maxRetriesPerRequest: null, enableAutoPipelining: false }),
    subscriber: (name) => make(`subscriber:${name}`, { maxRetriesPerRequest: null, enableAutoPipelining: false }),
    close: () =>
      (closing ??= (async () => {
        await Promise.all(
          [...owned].map(async (c) => {
            try {
              await c.quit();
            } catch {
              // QUIT fails on a connection that is already down; dropping it is all that is left.
              c.disconnect();
            }
          }),
        );
      })()),
  };
}
