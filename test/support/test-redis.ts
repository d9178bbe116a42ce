// Which Redis the tests run on: one redis-server (the default), or a local 3-master Redis
// Cluster when WARREN_TEST_REDIS=cluster. Helpers that work on either.
import { Cluster, Redis } from 'ioredis';
import type { ConnectionOptions } from 'bullmq';
import { parseRedisTarget } from '../../src/config/redis-target.js';
import { bullmqOptionsFromUrl, bullPrefixFor, type RedisClient } from '../../src/store/redis.js';

/** True when this test run is on a Redis Cluster (WARREN_TEST_REDIS=cluster). */
export const onTestCluster = (): boolean => process.env.WARREN_TEST_REDIS === 'cluster';

/** A plain client for a test's own reads and writes, on one Redis or a Cluster (by URL). */
export function connectTestRedis(url: string, options: { maxRetriesPerRequest?: number | null; shardedSubscribers?: boolean; connectionName?: string } = {}): RedisClient {
  const { shardedSubscribers, ...redisOptions } = options;
  const target = parseRedisTarget(url);
  if (target.kind === 'single') return new Redis(url, redisOptions);
  return new Cluster(target.nodes, { redisOptions, shardedSubscribers: shardedSubscribers ?? false, dnsLookup: (address, callback) => callback(null, address) });
}

/** The port of one Redis, or of a Cluster's first node (by URL). */
export function redisPort(url: string): string {
  const target = parseRedisTarget(url);
  return target.kind === 'single' ? new URL(url).port || '6379' : String(target.nodes[0]?.port);
}

/** Every key matching `pattern`, on every master of a Cluster (SCAN is per node). */
export async function scanAll(client: RedisClient, pattern: string): Promise<string[]> {
  const found: string[] = [];
  for (const node of client instanceof Cluster ? client.nodes('master') : [client]) {
    let cursor = '0';
    do {
      const [next, batch] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      found.push(...batch);
      cursor = next;
    } while (cursor !== '0');
  }
  return found;
}

/**
 * A BullMQ connection to the test Redis, on one Redis or a Cluster (by URL): options on one
 * Redis, a Cluster client on a Cluster (BullMQ takes one only as an instance), which `close()`
 * ends. `prefix` is the queue's BullMQ prefix on it.
 */
export function testBullmq(url: string): { connection: ConnectionOptions; prefix(queueName: string): string; close(): void } {
  const target = parseRedisTarget(url);
  const connection: ConnectionOptions =
    target.kind === 'single'
      ? bullmqOptionsFromUrl(url, 'test')
      : new Cluster(target.nodes, { redisOptions: { maxRetriesPerRequest: null }, dnsLookup: (address, callback) => callback(null, address) });
  return {
    connection,
    prefix: (queueName) => bullPrefixFor(connection, queueName),
    close: () => {
      if (connection instanceof Cluster) connection.disconnect();
    },
  };
}
