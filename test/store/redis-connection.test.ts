// A Redis outage is never silent: each connection logs one warn line with the error's stack at
// the default level, not one per reconnect attempt, and one line when it is back.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, spawnRedis, type RedisProcess } from '../../src/cli/redis-process.js';
import { parseRedisTarget } from '../../src/config/redis-target.js';
import { connectionErrorLog, connectRedis, type RedisConnections } from '../../src/store/redis.js';
import { waitFor } from '../support/wait-for.js';

interface Line {
  level: number;
  msg: string;
  connection?: string;
  errors_left_out?: number;
  err?: { message: string; stack: string };
}
const WARN = 40;
const INFO = 30;

function capture() {
  const lines: Line[] = [];
  // The process default level: what an operator sees without asking for more.
  const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Line) });
  return { lines, log };
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('connectionErrorLog', () => {
  it('logs the first error with its stack, leaves out repeats within the interval, and logs the recovery once', () => {
    const { lines, log } = capture();
    const errors = connectionErrorLog(log, { connection: 'x' });
    errors.ready();
    for (let i = 0; i < 100; i += 1) errors.error(new Error(`connect ECONNREFUSED (${i})`));
    errors.ready();
    errors.ready();
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ level: WARN, msg: 'redis connection error', connection: 'x', err: { message: 'connect ECONNREFUSED (0)' } });
    expect(lines[0]?.err?.stack).toContain('Error: connect ECONNREFUSED (0)\n    at ');
    expect(lines[1]).toMatchObject({ level: INFO, msg: 'redis connection recovered', errors_left_out: 99 });
  });
});

describe('a Redis outage', () => {
  it('leaves one warn line per connection with the error, and a line when Redis is back', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'warren-redis-outage-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const port = await freePort();
    const overrides = { appendonly: 'no', save: '' };
    let server: RedisProcess = await spawnRedis({ dataDir, port, overrides });
    cleanups.push(() => server.stop());
    const { lines, log } = capture();
    const redis: RedisConnections = connectRedis(parseRedisTarget(server.url), 'test', log);
    cleanups.push(() => redis.close());
    expect(await redis.command.ping()).toBe('PONG');

    await server.stop();
    const warned = await waitFor(async () => lines.find((l) => l.msg === 'redis connection error'), 'a warn line for the outage');
    expect(warned).toMatchObject({ level: WARN, connection: 'test:command' });
    expect(warned.err?.stack).toContain('ECONNREFUSED');

    server = await spawnRedis({ dataDir, port, overrides });
    await waitFor(async () => lines.some((l) => l.msg === 'redis connection recovered'), 'a line for the recovery');
    expect(await redis.command.ping()).toBe('PONG');
    // ioredis reported every reconnect attempt; the log kept one line for them all.
    expect(lines.filter((l) => l.msg === 'redis connection error')).toHaveLength(1);
  });
});
