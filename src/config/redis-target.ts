// Which Redis a process connects to: REDIS_URL when set, else config.yaml's `redis:` block, else
// a Redis on 127.0.0.1:6379. The API, the workers and `npm start` all call resolveRedisTarget,
// so they never disagree. Every fault is a ConfigError naming the variable or the key, and
// never the password.
import { ConfigError } from '../errors.js';
import type { AppConfig, RedisConfig } from './app-config.schemas.js';
import type { EnvConfig } from './env.js';

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

export interface RedisNode {
  host: string;
  port: number;
}

/** One Redis (by URL, credentials and all), or the seed nodes of a Redis Cluster. */
export type RedisTarget =
  | { kind: 'single'; url: string }
  | { kind: 'cluster'; nodes: RedisNode[]; username?: string; password?: string; tls: boolean };

const CLUSTER_SCHEME = /^(rediss?)\+cluster:\/\/(.*)$/;

/** `host:port` or `[v6]:port`, port 1–65535; null when it is not one. */
function parseNode(entry: string): RedisNode | null {
  const hp = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(entry);
  const port = hp ? Number(hp[2]) : NaN;
  if (!hp || !(port > 0 && port < 65_536)) return null;
  return { host: (hp[1] as string).replace(/^\[|\]$/g, ''), port };
}

/**
 * Parses a Redis URL (REDIS_URL, or the block's `url`, named by `field` in errors).
 * `redis+cluster://[user:pass@]h1:p1,h2:p2` (or `rediss+cluster://` for TLS) names a Redis
 * Cluster by any of its nodes; anything else is one Redis.
 */
export function parseRedisTarget(url: string, field = 'REDIS_URL'): RedisTarget {
  const m = CLUSTER_SCHEME.exec(url);
  if (!m) {
    // Checked here, not at the first connection: Node's own error would carry the whole URL.
    if (!URL.canParse(url)) throw new ConfigError(`${field} is not a valid URL (expected redis://[user:pass@]host:port[/db]).`);
    return { kind: 'single', url };
  }
  const [, scheme, rest = ''] = m;
  const at = rest.lastIndexOf('@');
  const auth = at >= 0 ? rest.slice(0, at) : '';
  let hosts = at >= 0 ? rest.slice(at + 1) : rest;
  const slash = hosts.indexOf('/');
  if (slash >= 0) {
    const tail = hosts.slice(slash);
    hosts = hosts.slice(0, slash);
    // A Cluster has database 0 only; a `/n` would silently mean something else.
    if (tail !== '/' && tail !== '/0') throw new ConfigError(`${field}: a Redis Cluster has no databases; remove "${tail}" after the nodes.`);
  }
  const nodes = hosts.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '').map((entry) => {
    const node = parseNode(entry);
    if (!node) throw new ConfigError(`${field}: cluster node "${entry}" is not host:port (expected ${scheme}+cluster://host1:port1,host2:port2).`);
    return node;
  });
  if (nodes.length === 0) throw new ConfigError(`${field}: ${scheme}+cluster:// names no nodes (expected ${scheme}+cluster://host1:port1,host2:port2).`);
  const colon = auth.indexOf(':');
  const username = auth === '' ? undefined : decodeURIComponent(colon >= 0 ? auth.slice(0, colon) : auth) || undefined;
  const password = colon >= 0 ? decodeURIComponent(auth.slice(colon + 1)) : undefined;
  return { kind: 'cluster', nodes, ...(username ? { username } : {}), ...(password ? { password } : {}), tls: scheme === 'rediss' };
}

/**
 * The target config.yaml's `redis:` block names. `url` and `cluster` are exclusive, and the
 * block's username, password and tls must not contradict what the url already says: a value in
 * two places is a fault, not a silent choice. `source` names the file in errors.
 */
export function redisTargetFromConfig(block: RedisConfig, source = 'config.yaml'): RedisTarget {
  const fault = (message: string) => new ConfigError(`${source}: ${message}`);
  if (block.url !== undefined && block.cluster !== undefined) {
    throw fault('"redis.url" and "redis.cluster" are both set; name one Redis (url) or a Redis Cluster (cluster.nodes), not both.');
  }
  let named: { username?: string; password?: string; tls: boolean };
  let target: RedisTarget;
  if (block.cluster !== undefined) {
    const nodes = block.cluster.nodes.map((entry, i) => {
      const node = parseNode(entry);
      if (!node) throw fault(`"redis.cluster.nodes[${i}]" is "${entry}", which is not host:port with a port from 1 to 65535.`);
      return node;
    });
    target = { kind: 'cluster', nodes, tls: false };
    named = { tls: false };
  } else if (block.url !== undefined) {
    target = parseRedisTarget(block.url, `${source}: "redis.url"`);
    named = target.kind === 'cluster' ? target : singleCredentials(target.url);
  } else {
    throw fault('"redis" names no Redis: set redis.url (one Redis) or redis.cluster.nodes (a Redis Cluster).');
  }
  if (block.username !== undefined && named.username !== undefined) throw fault('"redis.username" is set, and redis.url has a user name too; keep it in one place.');
  if (block.password !== undefined && named.password !== undefined) throw fault('"redis.password" is set, and redis.url has a password too; keep it in one place.');
  if (block.tls === false && named.tls) throw fault('"redis.tls" is false, but redis.url asks for TLS (rediss://); keep one.');
  const username = block.username ?? named.username;
  const password = block.password ?? named.password;
  const tls = block.tls ?? named.tls;
  if (target.kind === 'cluster') {
    return { kind: 'cluster', nodes: target.nodes, ...(username ? { username } : {}), ...(password ? { password } : {}), tls };
  }
  return { kind: 'single', url: singleUrl(target.url, { username, password, tls }) };
}

/** What a one-Redis URL says of its credentials and TLS. */
function singleCredentials(url: string): { username?: string; password?: string; tls: boolean } {
  const u = new URL(url);
  return {
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    tls: u.protocol === 'rediss:',
  };
}

/** The URL with these credentials and TLS: the connection code reads a single Redis from its URL only. */
function singleUrl(url: string, { username, password, tls }: { username?: string; password?: string; tls: boolean }): string {
  const u = new URL(url);
  if (tls) u.protocol = 'rediss:';
  // Encoded by hand: the URL setters leave `%` as it is, which the reader would then decode.
  if (username !== undefined) u.username = encodeURIComponent(username);
  if (password !== undefined) u.password = encodeURIComponent(password);
  return u.toString();
}

/** The Redis this process uses: REDIS_URL, else config.yaml's `redis:` block, else 127.0.0.1:6379. */
export function resolveRedisTarget(env: Pick<EnvConfig, 'redisUrl'>, config: Pick<AppConfig, 'redis'>): RedisTarget {
  if (env.redisUrl !== undefined) return parseRedisTarget(env.redisUrl);
  if (config.redis !== undefined) return redisTargetFromConfig(config.redis);
  return parseRedisTarget(DEFAULT_REDIS_URL);
}

/** The target for a log line: where it is, without user name or password. */
export function describeRedisTarget(target: RedisTarget): string {
  if (target.kind === 'cluster') {
    const nodes = target.nodes.map(({ host, port }) => `${host.includes(':') ? `[${host}]` : host}:${port}`);
    return `${target.tls ? 'rediss' : 'redis'}+cluster://${nodes.join(',')}`;
  }
  const u = new URL(target.url);
  u.username = '';
  u.password = '';
  return u.toString();
}
