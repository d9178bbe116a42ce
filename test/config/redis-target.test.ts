// Issue #22: config.yaml's `redis:` block names one Redis or a Redis Cluster; REDIS_URL, when
// set, wins. Its faults are ConfigErrors naming the key, never the password. At the end, API
// and worker processes from dist/ with only the block (no REDIS_URL) serve a run.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import type { AppConfig } from '../../src/config/app-config.schemas.js';
import { readEnvConfig } from '../../src/config/env.js';
import { parseAppConfig } from '../../src/config/load-config.js';
import { describeRedisTarget, parseRedisTarget, resolveRedisTarget } from '../../src/config/redis-target.js';
import { configSecrets } from '../../src/config/secrets.js';
import { ConfigError } from '../../src/errors.js';
import { keys } from '../../src/store/keys.js';
import { redisOptionsFromUrl } from '../../src/store/redis.js';
import { buildDist, startApiReplicas, type ApiReplicas } from '../support/cluster.js';
import { trackedDir } from '../support/leftovers.js';
import { testGraphs } from '../support/stack.js';
import { connectTestRedis } from '../support/test-redis.js';
import { waitFor } from '../support/wait-for.js';

const PASSWORD = 'pw-Zq9:@%41/x';
const ENV = { REDIS_PASSWORD: PASSWORD };

const load = (redis: unknown, env: NodeJS.ProcessEnv = ENV): AppConfig => parseAppConfig({ redis }, env);

/** The ConfigError's message for a block, or 'accepted'. */
function fault(redis: unknown, env: NodeJS.ProcessEnv = ENV): string {
  try {
    load(redis, env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  return 'accepted';
}

describe('the redis: block of config.yaml', () => {
  it('names one Redis by url, with the user and the $ENV password added to it', () => {
    const target = resolveRedisTarget(readEnvConfig({}), load({ url: 'redis://redis:6379/2', username: 'warren', password: '$REDIS_PASSWORD' }));
    expect(target.kind).toBe('single');
    const options = redisOptionsFromUrl((target as { url: string }).url);
    expect(options).toMatchObject({ host: 'redis', port: 6379, db: 2, username: 'warren', password: PASSWORD });
    expect(options.tls).toBeUndefined();
    expect(redisOptionsFromUrl((resolveRedisTarget({}, load({ url: 'redis://redis:6379', tls: true })) as { url: string }).url).tls).toEqual({});
  });

  it('names a Redis Cluster by its nodes, with the $ENV password resolved and TLS', () => {
    const config = load({ cluster: { nodes: ['10.0.0.1:7000', '[::1]:7001'] }, username: 'warren', password: '$REDIS_PASSWORD', tls: true });
    expect(resolveRedisTarget({}, config)).toEqual({
      kind: 'cluster',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '::1', port: 7001 },
      ],
      username: 'warren',
      password: PASSWORD,
      tls: true,
    });
    // REDIS_URL's cluster form works in `url` too, and the logger masks the password.
    expect(resolveRedisTarget({}, load({ url: 'redis+cluster://h1:7000,h2:7000', password: '$REDIS_PASSWORD' }))).toEqual({
      kind: 'cluster',
      nodes: [
        { host: 'h1', port: 7000 },
        { host: 'h2', port: 7000 },
      ],
      password: PASSWORD,
      tls: false,
    });
    expect(configSecrets(config, {})).toContain(PASSWORD);
  });

  it('gives way to REDIS_URL when it is set (an empty one is unset), and is 127.0.0.1:6379 when neither is', () => {
    const config = load({ cluster: { nodes: ['10.0.0.1:7000'] }, password: '$REDIS_PASSWORD' });
    expect(resolveRedisTarget(readEnvConfig({ REDIS_URL: 'redis://other:6380' }), config)).toEqual({ kind: 'single', url: 'redis://other:6380' });
    expect(resolveRedisTarget(readEnvConfig({ REDIS_URL: '' }), config).kind).toBe('cluster');
    expect(resolveRedisTarget(readEnvConfig({}), parseAppConfig({}, {}))).toEqual({ kind: 'single', url: 'redis://127.0.0.1:6379' });
  });

  it('refuses url and cluster together, and a block naming neither, naming the keys', () => {
    expect(fault({ url: 'redis://h:6379', cluster: { nodes: ['h:7000'] } })).toMatch(/"redis\.url" and "redis\.cluster" are both set/);
    expect(fault({ password: '$REDIS_PASSWORD' })).toMatch(/"redis" names no Redis: set redis\.url .* or redis\.cluster\.nodes/);
    expect(fault({ cluster: { nodes: [] } })).toMatch(/"redis\.cluster\.nodes" must have at least 1 item/);
  });

  it('refuses a bad node naming it, and never shows the password', () => {
    const bad = fault({ cluster: { nodes: ['10.0.0.1:7000', '10.0.0.2'] }, password: '$REDIS_PASSWORD' });
    expect(bad).toMatch(/"redis\.cluster\.nodes\[1\]" must match the pattern .*"10\.0\.0\.2"/);
    const port = fault({ cluster: { nodes: ['10.0.0.1:7000', '10.0.0.2:99999'] }, password: '$REDIS_PASSWORD' });
    expect(port).toMatch(/"redis\.cluster\.nodes\[1\]" is "10\.0\.0\.2:99999", which is not host:port/);
    for (const message of [bad, port]) expect(message).not.toContain(PASSWORD);
    // Nor when the password or the url is itself the fault.
    const notText = fault({ url: 'redis://h:6379', password: 84_512_377 });
    expect(notText).toMatch(/"redis\.password" must be text, but it is a number \(not shown/);
    expect(notText).not.toContain('84512377');
    const badUrl = fault({ url: 'http://u:hunter22@h:6379' });
    expect(badUrl).toMatch(/"redis\.url" must match the pattern/);
    expect(badUrl).not.toContain('hunter22');
    expect(fault({ url: '$NOPE_REDIS_URL' }, {})).toMatch(/key "redis\.url" refers to \$NOPE_REDIS_URL, but the environment variable NOPE_REDIS_URL is not set/);
  });

  it('refuses a key it does not implement, naming it', () => {
    expect(fault({ url: 'redis://h:6379', ca_file: './ca.pem' })).toMatch(/unknown key "redis\.ca_file"/);
    expect(fault({ cluster: { nodes: ['h:7000'], scale_reads: 'slave' } })).toMatch(/unknown key "redis\.cluster\.scale_reads"/);
    expect(fault({ url: 'redis://h:6379', pasword: 'x' })).toMatch(/unknown key "redis\.pasword"; did you mean "redis\.password"\?/);
  });

  it('refuses a value in two places: a url with a password and a password, rediss:// and tls: false', () => {
    const twice = fault({ url: 'redis://:hunter22@h:6379', password: '$REDIS_PASSWORD' });
    expect(twice).toMatch(/"redis\.password" is set, and redis\.url has a password too/);
    expect(twice).not.toContain('hunter22');
    expect(fault({ url: 'rediss://h:6379', tls: false })).toMatch(/"redis\.tls" is false, but redis\.url asks for TLS/);
    expect(fault({ url: 'redis+cluster://h:7000/1' })).toMatch(/"redis\.url": a Redis Cluster has no databases/);
  });

  it('describes a target for a log line without its credentials', () => {
    expect(describeRedisTarget(parseRedisTarget('rediss+cluster://u:hunter22@h1:7000,[::1]:7001'))).toBe('rediss+cluster://h1:7000,[::1]:7001');
    expect(describeRedisTarget(parseRedisTarget('redis://u:hunter22@h:6379/1'))).toBe('redis://h:6379/1');
    expect(() => parseRedisTarget('redis://u:hunter22@h:port')).toThrow(/^REDIS_URL is not a valid URL/);
  });
});

describe('API and worker processes with only the redis: block', () => {
  let home: string;
  let replicas: ApiReplicas | undefined;

  beforeAll(async () => {
    buildDist();
    home = trackedDir(mkdtempSync(path.join(tmpdir(), 'warren-redis-block-')));
    // The test's Redis, written as a deployment would: a url, or a cluster's nodes.
    const target = parseRedisTarget(inject('redisUrl'));
    const redis = target.kind === 'single' ? { url: target.url } : { cluster: { nodes: target.nodes.map((n) => `${n.host}:${n.port}`) } };
    const configFile = path.join(home, 'config.yaml');
    writeFileSync(configFile, stringify({ graphs: testGraphs('echo'), redis }));
    replicas = await startApiReplicas({ apis: 2, workers: 2, home, configFile });
  }, 120_000);
  afterAll(async () => {
    await replicas?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('are ready, make a thread on one replica and run it on the other', async () => {
    const urls = (replicas as ApiReplicas).urls;
    for (const api of urls) await waitFor(async () => (await fetch(`${api}/ready`)).status === 200, `${api} to be ready`);
    const post = async (api: string, route: string, body: unknown) => {
      const res = await fetch(`${api}/api/langgraph${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const redis = connectTestRedis(inject('redisUrl'));
    try {
      for (const [made, ran] of [urls, [...urls].reverse()] as [string, string][]) {
        const thread = await post(made, '/threads', {});
        expect(thread.status).toBe(200);
        const run = await post(ran, `/threads/${String(thread.body.thread_id)}/runs/wait`, { assistant_id: 'echo', input: { messages: [{ role: 'user', content: 'hi' }] } });
        expect(run.status).toBe(200);
        expect(JSON.stringify(run.body.messages)).toContain('echo: hi');
        // On the block's Redis, not on some other one the processes might have fallen back to.
        expect(await redis.exists(keys.thread(String(thread.body.thread_id)))).toBe(1);
      }
    } finally {
      redis.disconnect();
    }
  }, 60_000);
});
