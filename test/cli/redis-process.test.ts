// spawnRedis counts a server as started only when the Redis answering on its port is the process
// it spawned (#30: a port picked by freePort and taken by another test file's server before ours
// bound it made two deployments share one server, and the failing one's callers never knew).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisProcessId, spawnRedis, type RedisProcess } from '../../src/cli/redis-process.js';
import { tracked, trackedDir } from '../support/leftovers.js';

const THROWAWAY = { appendonly: 'no', save: '' };
let home: string;
let first: RedisProcess;

beforeAll(async () => {
  home = trackedDir(mkdtempSync(path.join(tmpdir(), 'warren-redis-process-')));
  first = await spawnRedis({ dataDir: path.join(home, 'first'), overrides: THROWAWAY });
  tracked(first.child);
});
afterAll(async () => {
  await first?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

describe('spawnRedis (issue #30)', () => {
  it('answers with the Redis it spawned, whose process_id is its child', async () => {
    expect(await redisProcessId(first.url)).toBe(first.child.pid);
  });

  it('refuses a port another Redis already answers on, rather than handing that one out', async () => {
    await expect(spawnRedis({ dataDir: path.join(home, 'second'), port: first.port, overrides: THROWAWAY })).rejects.toThrow(
      `redis-server could not bind port ${first.port}: another Redis answers there.`,
    );
    // The server that held the port is untouched.
    expect(await redisProcessId(first.url)).toBe(first.child.pid);
  });

  it('says null where nothing answers', async () => {
    const gone = await spawnRedis({ dataDir: path.join(home, 'gone'), overrides: THROWAWAY });
    await gone.stop();
    expect(await redisProcessId(gone.url)).toBeNull();
  });
});
