// DeerFlow's Integrations › Lark on Warren, in the production topology: two API processes and two
// workers on one Redis, and the Feishu stand-in, which also serves Lark's accounts and OAuth
// paths. An admin sets up the app from the browser flow (the stand-in plays the approving user),
// which saves it as the Feishu channel's credentials and starts the channel on one worker; a user
// connects their Lark account with the device flow, and their messages to the bot then run as
// them. Every request goes to the API replicas in turn.
import type { RedisClient } from '../../src/store/redis.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../src/store/keys.js';
import { agentScript } from '../support/agent-script.js';
import type { Cluster } from '../support/cluster.js';
import { CHANNEL_UI_AUTH, CHANNEL_UI_KEYS, startChannelStack, type ChannelStack } from '../support/channel-stack.js';
import { startFakeFeishu, type FakeFeishu } from '../support/fake-feishu.js';
import { expectDetail, replicaApi } from '../support/replica-api.js';
import { connectTestRedis } from '../support/test-redis.js';
import { waitFor } from '../support/wait-for.js';

const KEYS = CHANNEL_UI_KEYS;

const script = agentScript();
let stack: ChannelStack<FakeFeishu>;
let feishu: FakeFeishu;
let cluster: Cluster;
let redis: RedisClient;
let replicas: string[];
const { call, ok } = replicaApi(KEYS, () => replicas, '/api');

beforeAll(async () => {
  stack = await startChannelStack(script, () => startFakeFeishu(), (fake) => ({
    apis: 2,
    workers: 2,
    env: { WARREN_CHANNEL_SECRETS_KEY: Buffer.alloc(32, 7).toString('base64') },
    config: {
      runtime: { lock_seconds: 2, stalled_check_seconds: 1 },
      auth: CHANNEL_UI_AUTH,
      channels: {
        lease_seconds: 2,
        // Off in config.yaml: the Lark set-up starts it. Feishu's and Lark's hosts are the stand-in.
        feishu: { enabled: false, base_url: fake.url, accounts_url: fake.url, lark_base_url: fake.url, lark_accounts_url: fake.url, edit_interval_ms: 200 },
      },
    },
  }));
  ({ platform: feishu, cluster } = stack);
  replicas = cluster.apis.map((a) => `http://127.0.0.1:${a.port}`);
  redis = connectTestRedis(cluster.redis.url);
}, 240_000);

afterAll(async () => {
  redis?.disconnect();
  await stack?.stop();
}, 60_000);

const feishuStatus = async () => ((await ok('admin', 'GET', '/channels')).channels as any[]).find((c) => c.name === 'feishu');
/** The bot's latest text in a chat that satisfies `done`. */
const botSaid = (chatId: string, done: (text: string) => boolean, what: string) =>
  waitFor(async () => feishu.chat(chatId).map((m) => m.texts.at(-1) ?? '').find(done), what, 60_000);

describe('the Lark integration before an app is set up', () => {
  it('reports the built-in client, no app and no authorization', async () => {
    const status = await ok('alice', 'GET', '/integrations/lark/status');
    expect(status).toMatchObject({
      installed: true,
      app_configured: false,
      app_id: null,
      app_brand: null,
      skills_expected: 0,
      installed_skills: [],
      cli: { available: true, error: null },
      auth: { status: 'not_configured', user: null, verified: false },
      sandbox_runtime_mode: 'none',
    });
  });

  it('installs nothing (admins only), and refuses to authorize before an app exists', async () => {
    expectDetail(await call('alice', 'POST', '/integrations/lark/install'), 403);
    const installed = await ok('admin', 'POST', '/integrations/lark/install');
    expect(installed).toMatchObject({ success: true, installed_skills: [] });
    expect(installed.message).toMatch(/built in/);
    expectDetail(await call('alice', 'POST', '/integrations/lark/auth/start', {}), 409, /No Feishu\/Lark app is set up yet/);
  });
});

describe("setting up the Feishu channel's app", () => {
  it('registers an app from the browser flow and starts the channel on one worker', async () => {
    expectDetail(await call('alice', 'POST', '/integrations/lark/config/start', { brand: 'feishu' }), 403);
    expectDetail(await call('admin', 'POST', '/integrations/lark/config/start', { brand: 'wechat' }), 422);
    const started = await ok('admin', 'POST', '/integrations/lark/config/start', { brand: 'feishu' });
    expect(started).toMatchObject({ brand: 'feishu', expires_in: 300, interval: 1 });
    expect(started.verification_url).toBe(`${feishu.url}/page/cli?user_code=${started.user_code}&from=cli`);
    const complete = { device_code: started.device_code, generation: started.generation, brand: 'feishu', interval: started.interval, expires_in: started.expires_in };
    expectDetail(await call('admin', 'POST', '/integrations/lark/config/complete', { ...complete, generation: 'stale-generation' }), 409, /superseded/);

    feishu.accounts.approveRegistration(started.user_code);
    const done = await ok('admin', 'POST', '/integrations/lark/config/complete', complete);
    expect(done).toMatchObject({ success: true, generation: started.generation, status: { app_configured: true, app_id: feishu.appId, app_brand: 'feishu', auth: { status: 'not_authorized' } } });

    // Saved as the Feishu channel's credentials, the secret sealed; shown masked.
    const stored = (await redis.get(keys.channelRuntimeConfig('feishu'))) as string;
    expect(stored).not.toContain(feishu.appSecret);
    const provider = ((await ok('bob', 'GET', '/channels/providers')).providers as any[]).find((p) => p.provider === 'feishu');
    expect(provider.credential_values).toEqual({ app_id: feishu.appId, app_secret: '********' });
    const status = await waitFor(async () => (await feishuStatus())?.connected && (await feishuStatus()), 'feishu to be connected', 30_000);
    expect(['worker-0', 'worker-1']).toContain(status.holder);
    expect(feishu.maxOpenConnections).toBe(1);
  });

  it('checks typed credentials with Lark before switching to them', async () => {
    expectDetail(await call('admin', 'POST', '/integrations/lark/config/credentials', { app_id: feishu.appId, app_secret: 'not-the-secret', brand: 'feishu' }), 400, /refused the app credentials/);
    expectDetail(await call('admin', 'POST', '/integrations/lark/config/credentials', { app_id: ' ', app_secret: 'x' }), 400, 'app_id is required.');
    expectDetail(await call('admin', 'POST', '/integrations/lark/config/credentials', { app_id: feishu.appId, app_secret: feishu.appSecret, brand: 'dingtalk' }), 422);
    expectDetail(await call('alice', 'POST', '/integrations/lark/config/credentials', { app_id: feishu.appId, app_secret: feishu.appSecret }), 403);
    const switched = await ok('admin', 'POST', '/integrations/lark/config/credentials', { app_id: feishu.appId, app_secret: feishu.appSecret, brand: 'feishu' });
    expect(switched).toMatchObject({ success: true, message: 'Lark/Feishu app switched. Reconnect to authorize the new app.', status: { app_configured: true, app_id: feishu.appId } });
    await waitFor(async () => (await feishuStatus())?.connected, 'feishu to be connected again', 30_000);
  });
});

describe("connecting a user's Lark account", () => {
  it('binds the Lark user who approves the device flow to the caller, whose messages then run as them', async () => {
    const started = await ok('alice', 'POST', '/integrations/lark/auth/start', { domains: ['calendar'] });
    expect(started.verification_url).toContain(started.user_code);
    expect(started.hint).toMatch(/only who you are/);
    feishu.accounts.approveDevice(started.user_code, 'ou_alice', 'Alice Lark');
    const done = await ok('alice', 'POST', '/integrations/lark/auth/complete', { device_code: started.device_code, generation: started.generation, wait_timeout_seconds: 5 });
    expect(done).toMatchObject({ success: true, message: 'Lark/Feishu authorization completed.', status: { auth: { status: 'authenticated', user: 'Alice Lark' } } });
    expect((await ok('bob', 'GET', '/integrations/lark/status')).auth.status).toBe('not_authorized');
    const mine = ((await ok('alice', 'GET', '/channels/connections')).connections as any[]).filter((c) => c.metadata.source === 'binding');
    expect(mine).toEqual([expect.objectContaining({ provider: 'feishu', external_account_id: 'ou_alice', external_account_name: 'Alice Lark' })]);

    script.lead.push({ content: 'Hello Alice, from Lark.' });
    feishu.sendText('oc_alice', 'Hi from Lark', { from: 'ou_alice' });
    await botSaid('oc_alice', (t) => t === 'Hello Alice, from Lark.', "the answer in alice's chat");
    const threads = (await ok('alice', 'POST', '/langgraph/threads/search', { metadata: { channel: 'feishu', chat_id: 'oc_alice' } })) as any[];
    expect(threads).toHaveLength(1);
    expect(await ok('bob', 'POST', '/langgraph/threads/search', { metadata: { channel: 'feishu', chat_id: 'oc_alice' } })).toEqual([]);

    // A Lark user nobody connected is not answered: the channel came from the UI.
    feishu.sendText('oc_carol', 'Hello?', { from: 'ou_carol' });
    await botSaid('oc_carol', (t) => t.includes('not connected to Warren'), 'the bot to say the account is not connected');
  });

  it('also binds with a connect code sent to the bot as /connect <code>', async () => {
    const connect = await ok('bob', 'POST', '/channels/feishu/connect');
    expect(connect).toMatchObject({ provider: 'feishu', mode: 'binding_code', url: null, expires_in: 600 });
    expect(connect.instruction).toBe(`Send /connect ${connect.code} to the Warren Feishu bot.`);
    feishu.sendText('oc_bob', `/connect ${connect.code}`, { from: 'ou_bob' });
    expect(await botSaid('oc_bob', (t) => t.startsWith('Connected'), "the bot to confirm bob's code")).toContain('bob');
    script.lead.push({ content: 'Hello Bob, from Lark.' });
    feishu.sendText('oc_bob', 'Hi, Bob here', { from: 'ou_bob' });
    await botSaid('oc_bob', (t) => t === 'Hello Bob, from Lark.', "the answer in bob's chat");
    expect(await ok('bob', 'POST', '/langgraph/threads/search', { metadata: { channel: 'feishu', chat_id: 'oc_bob' } })).toHaveLength(1);
    expect((await ok('bob', 'GET', '/integrations/lark/status')).auth.status).toBe('authenticated');
  });

  it('answers a denied authorization with 400 and a superseded flow with 409', async () => {
    const denied = await ok('bob', 'POST', '/integrations/lark/auth/start', {});
    feishu.accounts.denyDevice(denied.user_code);
    expectDetail(await call('bob', 'POST', '/integrations/lark/auth/complete', { device_code: denied.device_code, generation: denied.generation, wait_timeout_seconds: 5 }), 400, /denied/);

    const first = await ok('bob', 'POST', '/integrations/lark/auth/start', {});
    const second = await ok('bob', 'POST', '/integrations/lark/auth/start', {});
    expect(second.generation).not.toBe(first.generation);
    expectDetail(await call('bob', 'POST', '/integrations/lark/auth/complete', { device_code: first.device_code, generation: first.generation }), 409, /superseded/);
    expectDetail(await call('bob', 'POST', '/integrations/lark/auth/complete', { device_code: second.device_code, generation: second.generation, wait_timeout_seconds: 60 }), 422);
  });
});
