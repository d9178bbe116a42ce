// src/config/extensions.ts: extensions_config.json load, atomic save, updates serialised by the
// Redis lock the API gives the store (store/file-locks.ts).
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RedisClient } from '../../src/store/redis.js';
import { connectTestRedis } from '../support/test-redis.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  createExtensionsStore,
  mcpServerProblem,
  readExtensionsConfig,
  resolveSkillsDir,
  writeExtensionsConfig,
} from '../../src/config/extensions.js';
import { ConfigError } from '../../src/errors.js';
import { createFileLocks } from '../../src/store/file-locks.js';

let dir: string;
let redis: RedisClient;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'warren-extensions-'));
  redis = connectTestRedis(inject('redisUrl'));
});
afterAll(async () => {
  await redis?.quit();
  rmSync(dir, { recursive: true, force: true });
});

describe('extensions_config.json', () => {
  it('reads a missing file as an empty configuration', async () => {
    expect(await readExtensionsConfig(path.join(dir, 'none.json'))).toEqual({ mcpServers: {}, skills: {} });
  });

  it('fills a missing section, and keeps keys it does not know', async () => {
    const file = path.join(dir, 'partial.json');
    writeFileSync(file, JSON.stringify({ skills: { a: { enabled: false } }, extra: 1 }));
    expect(await readExtensionsConfig(file)).toEqual({ mcpServers: {}, skills: { a: { enabled: false } }, extra: 1 });
  });

  it.each([
    ['not JSON', '{', /is not valid JSON/],
    ['an array', '[]', /must hold a JSON object/],
    ['a wrong shape', '{"skills":{"a":{"enabled":"yes"}}}', /is invalid: \/skills\/a\/enabled/],
  ])('fails with a ConfigError naming the file for %s', async (_what, text, message) => {
    const file = path.join(dir, 'broken.json');
    writeFileSync(file, text);
    await expect(readExtensionsConfig(file)).rejects.toThrow(ConfigError);
    await expect(readExtensionsConfig(file)).rejects.toThrow(message);
    await expect(readExtensionsConfig(file)).rejects.toThrow(file);
  });

  it('writes atomically, readable only by its owner, creating the folder', async () => {
    const file = path.join(dir, 'nested', 'extensions_config.json');
    await writeExtensionsConfig(file, { mcpServers: { s: { command: 'x' } }, skills: {} });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ mcpServers: { s: { command: 'x' } }, skills: {} });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(path.dirname(file))).toEqual(['extensions_config.json']);
  });

  it('serialises updates so none is lost, and a failed update changes nothing', async () => {
    const store = createExtensionsStore(path.join(dir, 'counter.json'), createFileLocks(redis).extensionsConfig);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store.update((config) => {
          config.skills[`s${i}`] = { enabled: i % 2 === 0 };
        }),
      ),
    );
    expect(Object.keys((await store.read()).skills)).toHaveLength(20);
    const before = readFileSync(store.file, 'utf8');
    await expect(store.update(() => {
      throw new Error('refused');
    })).rejects.toThrow('refused');
    expect(readFileSync(store.file, 'utf8')).toBe(before);
    await store.update((config) => {
      config.skills.after = { enabled: true };
    });
    expect((await store.read()).skills.after).toEqual({ enabled: true });
  });

  it('renames nothing when the guard refuses at the last moment', async () => {
    const file = path.join(dir, 'fenced.json');
    writeFileSync(file, JSON.stringify({ mcpServers: {}, skills: { a: { enabled: true } } }));
    // A guard whose lease lapsed: its confirm refuses.
    const lapsed = { run: <T>(task: (confirm: () => Promise<void>) => Promise<T>) => task(() => Promise.reject(new Error('lapsed'))) };
    const store = createExtensionsStore(file, lapsed);
    await expect(store.update((config) => void (config.skills.a = { enabled: false }))).rejects.toThrow('lapsed');
    expect(JSON.parse(readFileSync(file, 'utf8')).skills).toEqual({ a: { enabled: true } });
    expect(readdirSync(dir).filter((n) => n.startsWith('.fenced'))).toEqual([]);
  });
});

describe('mcpServerProblem', () => {
  it.each([
    ['ok', { command: 'npx' }, null],
    ['ok', { type: 'http' as const, url: 'https://h/mcp' }, null],
    ['bad name!', { command: 'x' }, /must match/],
    ['s', { type: 'stdio' as const, command: '  ' }, /needs a command/],
    ['s', { type: 'sse' as const }, /needs a url/],
    ['s', { type: 'http' as const, url: 'ftp://h' }, /not an http/],
    ['s', { type: 'http' as const, url: 'not a url' }, /not an http/],
  ])('%s %j', (name, server, problem) => {
    const found = mcpServerProblem(name, server);
    if (problem === null) expect(found).toBeNull();
    else expect(found).toMatch(problem);
  });
});

describe('resolveSkillsDir', () => {
  it('resolves skills.path against the config folder, else uses the default', () => {
    expect(resolveSkillsDir('./my-skills', '/etc/warren', '/default')).toBe('/etc/warren/my-skills');
    expect(resolveSkillsDir('/abs/skills', '/etc/warren', '/default')).toBe('/abs/skills');
    expect(resolveSkillsDir(undefined, '/etc/warren', '/default')).toBe('/default');
  });
});
