// Redis connections, split by role: one shared command client, one subscriber, and a fresh
// connection for each blocking reader (a `GET` queued behind an `XREAD BLOCK` waits for it).
// ioredis reconnects by itself. What a command does while Redis is away depends on who waits
// for it: an API request fails within a few seconds (a 503 the client can retry), a worker's
// write waits for Redis to come back (a run survives a Redis restart).
import { Redis, type RedisOptions } from 'ioredis';
import type { ConnectionOptions } from 'bullmq';
import type { Logger } from 'pino';

export interface RedisConnections {
  /** Shared client for ordinary commands. */
  readonly command: Redis;
  /** Options for BullMQ, which makes its own connections (it needs maxRetriesPerRequest: null). */
  readonly bullmqOptions: ConnectionOptions;
  /**
   * Options for a BullMQ Queue that only adds jobs (no blocking reads): fail-fast like the
   * command client when `failFast` is set, so an enqueue never hangs a request.
   */
  readonly queueOptions: ConnectionOptions;
  /** A new connection the caller owns and must `disconnect()`; for XREAD BLOCK and the like. */
  blocking(name: string): Redis;
  /** A new subscriber connection (a subscribed connection can issue nothing else). */
  subscriber(name: string): Redis;
  close(): Promise<void>;
}

// Back off up to 2 s between reconnects, forever: a Redis restart must heal by itself.
const reconnectDelay = (times: number): number => Math.min(50 * 2 ** Math.min(times, 6), 2_000);

/**
 * For a process that answers requests: a command fails after two reconnect attempts (refused at
 * once when Redis is down), and any command, queued or sent, fails after this many ms without
 * a reply (a host that drops packets). Redis answers in well under a millisecond; only a dead
 * or unreachable server gets near it.
 */
export const FAIL_FAST_COMMAND_TIMEOUT_MS = 3_000;
const FAIL_FAST = { maxRetriesPerRequest: 1, commandTimeout: FAIL_FAST_COMMAND_TIMEOUT_MS } as const;

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

/** Options for a BullMQ Queue that only adds jobs; see `RedisConnections.queueOptions`. */
function queueOptionsFromUrl(url: string, role: string, failFast: boolean): ConnectionOptions {
  const { host, port, username, password, db, tls } = redisOptionsFromUrl(url);
  return {
    host,
    port,
    username,
    password,
    db,
    ...(tls ? { tls: {} } : {}),
    retryStrategy: reconnectDelay,
    connectionName: `warren:${role}:queue`,
    ...(failFast ? FAIL_FAST : { maxRetriesPerRequest: null }),
  };
}

/** While a connection's errors repeat, it logs at most one line per this many ms. */
export const CONNECTION_ERROR_LOG_INTERVAL_MS = 30_000;

export interface ConnectionErrorLog {
  error(err: unknown): void;
  /** The connection is up (again). */
  ready(): void;
}

interface ErrorLogState {
  lastLoggedAt: number;
  leftOut: number;
  reported: boolean;
}

// One state per logger and source: every connection of a process (the command client, the
// blocking readers, BullMQ's) loses Redis at the same moment, and the operator needs to hear of
// it once, not once per connection.
const errorLogStates = new WeakMap<Logger, Map<string, ErrorLogState>>();

function errorLogState(log: Logger, what: string): ErrorLogState {
  let states = errorLogStates.get(log);
  if (!states) errorLogStates.set(log, (states = new Map()));
  let state = states.get(what);
  if (!state) states.set(what, (state = { lastLoggedAt: Number.NEGATIVE_INFINITY, leftOut: 0, reported: false }));
  return state;
}

/**
 * Logs connection errors at warn, with their stack: the first at once, then at most one line
 * per interval while they repeat (ioredis and BullMQ report every reconnect attempt, on every
 * connection), with how many were left out; and one info line when a connection is back after a
 * logged error. All connections logging to one logger with the same `what` share this, so a
 * process reports an outage once and its end once. `what` names the source in the message
 * (`redis connection error`).
 */
export function connectionErrorLog(
  log: Logger,
  fields: Record<string, unknown>,
  { what = 'redis connection', intervalMs = CONNECTION_ERROR_LOG_INTERVAL_MS }: { what?: string; intervalMs?: number } = {},
): ConnectionErrorLog {
  const state = errorLogState(log, what);
  return {
    error(err) {
      const now = Date.now();
      if (now - state.lastLoggedAt < intervalMs) {
        state.leftOut += 1;
        return;
      }
      state.lastLoggedAt = now;
      state.reported = true;
      log.warn({ ...fields, err, ...(state.leftOut > 0 ? { errors_left_out: state.leftOut } : {}) }, `${what} error`);
      state.leftOut = 0;
    },
    ready() {
      if (!state.reported) return;
      state.reported = false;
      log.info({ ...fields, ...(state.leftOut > 0 ? { errors_left_out: state.leftOut } : {}) }, `${what} recovered`);
      state.leftOut = 0;
    },
  };
}

/** Closes a connection without waiting on Redis when it is not there to answer QUIT. */
async function closeConnection(client: Redis): Promise<void> {
  if (client.status !== 'ready') {
    // QUIT would wait in the offline queue behind the commands already there, for ever on a
    // connection whose commands never give up (the blocking readers'): drop it instead.
    client.disconnect();
    return;
  }
  try {
    await client.quit();
  } catch {
    // QUIT fails on a connection that went down meanwhile; dropping it is all that is left.
    client.disconnect();
  }
}

export interface ConnectRedisOptions {
  /** Ordinary commands fail fast while Redis is away (the API: requests must not hang). */
  failFast?: boolean;
}

export function connectRedis(url: string, role: string, log: Logger, options: ConnectRedisOptions = {}): RedisConnections {
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
  const command = make('command', options.failFast ? FAIL_FAST : {});
  let closing: Promise<void> | undefined;
  return {
    command,
    bullmqOptions: bullmqOptionsFromUrl(url, role),
    queueOptions: queueOptionsFromUrl(url, role, options.failFast ?? false),
    blocking: (name) => make(`blocking:${name}`, { maxRetriesPerRequest: null, enableAutoPipelining: false }),
    subscriber: (name) => make(`subscriber:${name}`, { maxRetriesPerRequest: null, enableAutoPipelining: false }),
    close: () =>
      (closing ??= (async () => {
        await Promise.all([...owned].map(closeConnection));
      })()),
  };
}
