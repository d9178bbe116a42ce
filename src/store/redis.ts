// Redis connections, split by role: one shared command client, one subscriber, and a fresh
// connection for each blocking reader (a `GET` queued behind an `XREAD BLOCK` waits for it).
// ioredis reconnects by itself. What a command does while Redis is away depends on who waits
// for it: an API request fails within a few seconds (a 503 the client can retry), a worker's
// write waits for Redis to come back (a run survives a Redis restart).
//
// The target (config/redis-target.ts: REDIS_URL or config.yaml's `redis:` block) is either one
// Redis or a Redis Cluster named by any reachable nodes of it; the client learns the rest. On a
// Cluster every connection is an ioredis Cluster client (it follows MOVED/ASK and slot changes),
// and BullMQ is handed one (it cannot make a Cluster from options).
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { ConnectionOptions } from 'bullmq';
import type { Logger } from 'pino';
import type { RedisTarget } from '../config/redis-target.js';
import { InternalInvariantError } from '../errors.js';
import { keys } from './keys.js';

/** A connection to one Redis or to a Redis Cluster: the same commands on both. */
export type RedisClient = Redis | Cluster;

export interface RedisConnections {
  /** True when the target is a Redis Cluster. */
  readonly cluster: boolean;
  /** Shared client for ordinary commands. */
  readonly command: RedisClient;
  /** Options for BullMQ, which makes its own connections (it needs maxRetriesPerRequest: null). */
  readonly bullmqOptions: ConnectionOptions;
  /**
   * Options for a BullMQ Queue that only adds jobs (no blocking reads): fail-fast like the
   * command client when `failFast` is set, so an enqueue never hangs a request.
   */
  readonly queueOptions: ConnectionOptions;
  /** A new connection the caller owns and must `disconnect()`; for XREAD BLOCK and the like. */
  blocking(name: string): RedisClient;
  /** A new subscriber connection (a subscribed connection can issue nothing else). */
  subscriber(name: string): RedisClient;
  /**
   * A Redis Cluster only: a new client for sharded channels (SSUBSCRIBE), which holds one
   * subscriber connection per node, whatever the channels' slots.
   */
  shardedSubscriber(name: string): RedisClient;
  /**
   * Readiness: the command client is connected and, on a Cluster, the last `CLUSTER INFO`
   * (polled every few seconds) said `cluster_state:ok`.
   */
  ready(): boolean;
  /** Why `ready()` is false, for `/ready`'s answer; null when ready. */
  notReadyReason(): string | null;
  close(): Promise<void>;
}

/** True for a Cluster client (BullMQ's connection, or ours). */
export function isCluster(connection: unknown): connection is Cluster {
  return connection instanceof Cluster;
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
async function closeConnection(client: RedisClient): Promise<void> {
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
  /** How often a Cluster's state is asked for readiness (CLUSTER INFO); default 2 s. */
  clusterStateIntervalMs?: number;
}

/** Options for every node connection of a Cluster client, from a cluster target. */
function clusterNodeOptions(target: Extract<RedisTarget, { kind: 'cluster' }>): RedisOptions {
  return {
    username: target.username,
    password: target.password,
    ...(target.tls ? { tls: {} } : {}),
    retryStrategy: reconnectDelay,
    maxRetriesPerRequest: 20,
  };
}

function clusterOptions(target: Extract<RedisTarget, { kind: 'cluster' }>, connectionName: string, extra: RedisOptions): ClusterOptions {
  const { enableAutoPipelining: _notOnCluster, ...nodeExtra } = extra;
  return {
    redisOptions: { ...clusterNodeOptions(target), connectionName, ...nodeExtra },
    clusterRetryStrategy: reconnectDelay,
    // Off on a Cluster: an auto-pipelined batch holds commands of many slots of one node, and
    // ioredis follows a MOVED in a batch only when every command in it got the same one; after a
    // resharding or a restart with a stale slot map, the rest would fail with MOVED. Commands
    // sent together are still written at once on each node's connection (no round trip each).
    enableAutoPipelining: false,
    // A failover or a resharding answers CLUSTERDOWN/MOVED for a moment; retry, do not fail.
    retryDelayOnClusterDown: 200,
    retryDelayOnFailover: 200,
    retryDelayOnTryAgain: 100,
    // Also how often a command whose node connection closed is tried again (every
    // retryDelayOnFailover): a worker's writes wait out a cluster restart (as they wait for a
    // single Redis to come back), about 30 s; a request that must fail fast gives up in about 3.
    maxRedirections: extra.maxRetriesPerRequest === FAIL_FAST.maxRetriesPerRequest ? 16 : 150,
    // New masters and moved slots are learnt without waiting for a MOVED.
    slotsRefreshInterval: 5_000,
    // Cluster nodes announce the address they were configured with: the seeds' hosts resolve.
    dnsLookup: (address, callback) => callback(null, address),
  };
}

/** The ioredis client for the target, with a name. */
function makeClient(target: RedisTarget, connectionName: string, extra: RedisOptions, clusterExtra: ClusterOptions = {}): RedisClient {
  if (target.kind === 'single') return new Redis({ ...redisOptionsFromUrl(target.url), connectionName, ...extra });
  return new Cluster(target.nodes, { ...clusterOptions(target, connectionName, extra), ...clusterExtra });
}

/**
 * Cluster options of the client BullMQ is handed (its Workers duplicate it, options and all,
 * for their blocking reads). No ready check: when an attempt to connect has fetched the slots
 * but CLUSTER INFO says the state is not ok yet (a cluster restarting, for its first seconds),
 * ioredis drops that attempt and starts another without ever settling the first one's promise
 * (see ioredis#741). BullMQ awaits `connect()` of a Worker's blocking client that ended, with no
 * time limit: that Worker then waits for ever and never takes a job of its queue again, while its
 * client is up. Without the check an attempt settles (the slots are known, or every node
 * failed); a command the cluster is not ready for yet answers CLUSTERDOWN and is tried again
 * (retryDelayOnClusterDown).
 */
const BULLMQ_CLUSTER_OPTIONS: ClusterOptions = { enableReadyCheck: false };

export function connectRedis(target: RedisTarget, role: string, log: Logger, options: ConnectRedisOptions = {}): RedisConnections {
  const owned = new Set<RedisClient>();
  const make = (name: string, extra: RedisOptions = {}, clusterExtra: ClusterOptions = {}): RedisClient => {
    const client = makeClient(target, `warren:${role}:${name}`, extra, clusterExtra);
    // Without a listener, ioredis prints unhandled 'error' events. An outage must show at the
    // default level, but it fires on every reconnect attempt: one line per interval. (A Cluster
    // client also reports each node's errors as its own 'error' and 'node error'.)
    const errors = connectionErrorLog(log, { connection: `${role}:${name}` });
    client.on('error', errors.error);
    client.on('ready', errors.ready);
    if (target.kind === 'cluster') client.on('node error', errors.error);
    owned.add(client);
    client.once('end', () => owned.delete(client));
    return client;
  };
  const command = make('command', options.failFast ? FAIL_FAST : {});
  /** The clients that must be connected for the process to be ready. */
  const readinessClients: RedisClient[] = [command];
  const timers: NodeJS.Timeout[] = [];
  let bullmq: ConnectionOptions;
  let queue: ConnectionOptions;
  let clusterProblem: string | null = target.kind === 'cluster' ? 'Not ready: the Redis Cluster has not answered CLUSTER INFO yet.' : null;
  // The target naming the wrong kind of Redis: found once, logged once, and /ready says it.
  let misconfigured: string | null = null;
  const misconfiguration = (problem: string) => {
    if (misconfigured === null) log.error({ connection: `${role}:command` }, problem);
    misconfigured = `Not ready: ${problem}`;
  };
  if (target.kind === 'single') {
    // One node of a Redis Cluster answers PING like a single Redis, then MOVED to most keys.
    const single = command as Redis;
    single.on('ready', () => {
      single.info('cluster').then(
        (info) => {
          if (/cluster_enabled:1/.test(info)) {
            misconfiguration(`REDIS_URL (or config.yaml's redis:) names one Redis, but ${single.options.host}:${single.options.port} is a node of a Redis Cluster: name the cluster as redis+cluster://host:port[,host:port…] (or in redis.cluster.nodes).`);
          }
        },
        () => undefined,
      );
    });
    bullmq = bullmqOptionsFromUrl(target.url, role);
    queue = queueOptionsFromUrl(target.url, role, options.failFast ?? false);
  } else {
    // BullMQ takes a Cluster only as an instance (shared by its queues; its workers duplicate
    // it for their blocking reads). Its errors reach the queues' and workers' 'error' listeners.
    bullmq = make('bullmq', { maxRetriesPerRequest: null }, BULLMQ_CLUSTER_OPTIONS);
    queue = options.failFast ? make('queue', FAIL_FAST) : bullmq;
    // The API enqueues runs on a client of its own, which reconnects on its own after an
    // outage: readiness waits for it too, or a process would say ready while its first enqueue
    // still fails at once (its offline queue is off).
    if (queue !== bullmq) readinessClients.push(queue as Cluster);
    const cluster = command as Cluster;
    // A Cluster client that never gets ready may be pointed at a single Redis: ask a seed.
    const probeSeed = async () => {
      const [seed] = target.nodes;
      if (misconfigured !== null || !seed) return;
      const probe = new Redis({ ...clusterNodeOptions(target), host: seed.host, port: seed.port, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0, connectTimeout: 1_000 });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        if (/cluster_enabled:0/.test(await probe.info('cluster'))) {
          misconfiguration(`REDIS_URL (or config.yaml's redis:) names a Redis Cluster, but ${seed.host}:${seed.port} is a single Redis (cluster support disabled): name it as redis://${seed.host}:${seed.port}, or set cluster-enabled yes.`);
        }
      } catch {
        // Not answering: an outage, which readiness reports as such.
      } finally {
        probe.disconnect();
      }
    };
    if (options.failFast) {
      // A Cluster client keeps commands for a down cluster in its offline queue with no timeout
      // (commandTimeout starts once a node has the command): once it has been ready, a request
      // fails at once while the cluster is away instead, as on a single Redis.
      for (const client of [cluster, queue as Cluster]) {
        client.once('ready', () => {
          client.options.enableOfflineQueue = false;
        });
      }
    }
    const poll = async () => {
      if (cluster.status !== 'ready') return probeSeed();
      try {
        const info = String(await cluster.cluster('INFO'));
        const state = /cluster_state:(\w+)/.exec(info)?.[1];
        clusterProblem = state === 'ok' ? null : `Not ready: the Redis Cluster's state is ${state ?? 'unknown'} (CLUSTER INFO), not ok.`;
      } catch (err) {
        clusterProblem = `Not ready: CLUSTER INFO failed: ${err instanceof Error ? err.message : String(err)}.`;
      }
    };
    cluster.on('ready', () => void poll());
    const timer = setInterval(() => void poll(), options.clusterStateIntervalMs ?? 2_000);
    timer.unref();
    timers.push(timer);
  }
  const notReadyReason = (): string | null => {
    if (misconfigured !== null) return misconfigured;
    if (readinessClients.some((client) => client.status !== 'ready')) return 'Not ready: Redis is unreachable.';
    return clusterProblem;
  };
  let closing: Promise<void> | undefined;
  return {
    cluster: target.kind === 'cluster',
    command,
    bullmqOptions: bullmq,
    queueOptions: queue,
    blocking: (name) => make(`blocking:${name}`, { maxRetriesPerRequest: null, enableAutoPipelining: false }),
    subscriber: (name) => make(`subscriber:${name}`, { maxRetriesPerRequest: null, enableAutoPipelining: false }),
    shardedSubscriber(name) {
      if (target.kind !== 'cluster') throw new InternalInvariantError('sharded channels are for a Redis Cluster');
      return make(`subscriber:${name}`, { maxRetriesPerRequest: null }, { shardedSubscribers: true });
    },
    ready: () => notReadyReason() === null,
    notReadyReason,
    close: () =>
      (closing ??= (async () => {
        for (const timer of timers) clearInterval(timer);
        await Promise.all([...owned].map(closeConnection));
      })()),
  };
}

/** BullMQ's `prefix` for a queue on this connection: tagged by queue on a Cluster (see keys.bullPrefix). */
export function bullPrefixFor(connection: ConnectionOptions, queueName: string): string {
  return keys.bullPrefix(queueName, isCluster(connection));
}
