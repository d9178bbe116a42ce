// Without WARREN_CHANNEL_SECRETS_KEY (#31), credentials from the UI are refused with 409, never
// stored in the clear, and the providers list says why; config.yaml's channels are unaffected.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../src/store/keys.js';
import { startStack, type Stack } from '../support/stack.js';
import { connectTestRedis } from '../support/test-redis.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ config: {} });
}, 60_000);

afterAll(async () => stack?.close(), 30_000);

const request = (method: string, path: string, body?: unknown) =>
  fetch(`${stack.url}/api${path}`, { method, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) });

describe('channel credentials with no secrets key', () => {
  it('are refused with 409 naming the variable, and nothing is stored', async () => {
    const res = await request('POST', '/channels/slack/runtime-config', { values: { bot_token: 'xoxb-1', app_token: 'xapp-1' } });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/WARREN_CHANNEL_SECRETS_KEY is not set/);
    const redis = connectTestRedis(stack.env.redisUrl as string);
    try {
      expect(await redis.exists(keys.channelRuntimeConfig('slack'))).toBe(0);
    } finally {
      redis.disconnect();
    }
  });

  it('are explained in the providers list', async () => {
    const body = (await (await request('GET', '/channels/providers')).json()) as { providers: { provider: string; configured: boolean; unavailable_reason: string }[] };
    for (const provider of body.providers) {
      expect(provider.configured).toBe(false);
      expect(provider.unavailable_reason).toMatch(/WARREN_CHANNEL_SECRETS_KEY is not set on the server/);
    }
  });
});
