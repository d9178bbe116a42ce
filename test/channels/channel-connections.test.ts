// Chat channels connected from DeerFlow's Channels settings, in the production topology: two API
// processes and two workers on one Redis, the Telegram Bot API stand-in, API keys for an admin
// and two users. The admin saves the bot's credentials (sealed in Redis) and one worker starts
// polling within seconds; each user mints a connect code, sends it to the bot, and from then on
// that Telegram account's messages run as that user, in that user's threads; a killed holder is
// taken over by the other worker; a deleted binding is no longer answered, and deleting the
// credentials stops the bot. Every request goes to the API replicas in turn.
import type { RedisClient } from '../../src/store/redis.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../src/store/keys.js';
import { agentScript } from '../support/agent-script.js';
import type { Cluster } from '../support/cluster.js';
import { CHANNEL_UI_AUTH, CHANNEL_UI_KEYS, startChannelStack, type ChannelStack } from '../support/channel-stack.js';
import { startFakeTelegram, type FakeTelegram } from '../support/fake-telegram.js';
import { expectDetail, replicaApi } from '../support/replica-api.js';
import { connectTestRedis } from '../support/test-redis.js';
import { waitFor } from '../support/wait-for.js';

const KEYS = CHANNEL_UI_KEYS;
const SECRETS_KEY = 'a3'.repeat(32);

const script = agentScript();
let stack: ChannelStack<FakeTelegram>;
let telegram: FakeTelegram;
let cluster: Cluster;
let redis: RedisClient;
let replicas: string[];
const { call, ok } = replicaApi(KEYS, () => replicas, '/api');

beforeAll(async () => {
  stack = await startChannelStack(script, () => startFakeTelegram(), (fake) => ({
    apis: 2,
    workers: 2,
    env: { WARREN_CHANNEL_SECRETS_KEY: SECRETS_KEY },
    config: {
      runtime: { lock_seconds: 2, stalled_check_seconds: 1 },
      auth: CHANNEL_UI_AUTH,
      channels: {
        lease_seconds: 2,
        // Off in config.yaml: only the credentials saved from the UI start it.
        telegram: { enabled: false, base_url: fake.url, poll_timeout_seconds: 1, edit_interval_ms: 150 },
        // On in config.yaml, with a secret this deployment's environment lacks: listed, read-only, not running.
        feishu: { enabled: true, app_id: 'cli_0123456789abcdef', app_secret: '$WARREN_TEST_UNSET_FEISHU_SECRET' },
      },
    },
  }));
  ({ platform: telegram, cluster } = stack);
  replicas = cluster.apis.map((a) => `http://127.0.0.1:${a.port}`);
  redis = connectTestRedis(cluster.redis.url);
}, 240_000);

afterAll(async () => {
  redis?.disconnect();
  await stack?.stop();
}, 60_000);

type Who = keyof typeof KEYS;
const providerOf = async (who: Who, name: string) => ((await ok(who, 'GET', '/channels/providers')).providers as { provider: string }[]).find((p) => p.provider === name) as any;
const connectionsOf = async (who: Who) => (await ok(who, 'GET', '/channels/connections')).connections as any[];
const telegramStatus = async () => ((await ok('admin', 'GET', '/channels')).channels as any[]).find((c) => c.name === 'telegram');
/** The bot's latest text in a chat that satisfies `done`. */
const botSaid = (chatId: number, done: (text: string) => boolean, what: string) =>
  waitFor(async () => telegram.chat(chatId).map((m) => m.texts.at(-1) ?? '').find(done), what, 60_000);
const threadsOf = async (who: Who, chatId: number) => (await ok(who, 'POST', '/langgraph/threads/search', { metadata: { channel: 'telegram', chat_id: String(chatId) }, limit: 50 })) as any[];

/** A code minted for `who`, sent to the bot from Telegram user `from`; the bot's reply. */
async function bind(who: Who, from: number): Promise<string> {
  const connect = await ok(who, 'POST', '/channels/telegram/connect');
  const before = telegram.chat(from).length;
  telegram.sendText(from, `/start ${connect.code}`);
  return botSaid(from, (t) => t.startsWith('Connected') && telegram.chat(from).length > before, `the bot to confirm ${who}'s code`);
}

describe('channel providers before any credentials', () => {
  it("lists the three platforms in DeerFlow's shape, none connectable, with their credential fields", async () => {
    const body = await ok('alice', 'GET', '/channels/providers');
    expect(body.enabled).toBe(true);
    expect(body.providers.map((p: any) => p.provider)).toEqual(['telegram', 'slack', 'feishu']);
    const tg = body.providers[0];
    expect(tg).toMatchObject({ display_name: 'Telegram', enabled: true, configured: false, connectable: false, auth_mode: 'deep_link', connection_status: 'not_connected', credential_values: {} });
    expect(tg.unavailable_reason).toMatch(/Enter the required Telegram credentials/);
    expect(tg.credential_fields).toEqual([
      { name: 'bot_token', label: 'Bot token', type: 'password', required: true },
      { name: 'bot_username', label: 'Bot username', type: 'text', required: true },
    ]);
  });

  it('lists a config.yaml platform as a read-only connection that DELETE refuses with 409', async () => {
    const feishu = (await connectionsOf('bob')).find((c) => c.provider === 'feishu');
    expect(feishu).toMatchObject({ id: 'config-yaml-feishu', status: 'disconnected', external_account_id: 'cli_0123456789abcdef', metadata: { source: 'config.yaml', read_only: true } });
    expectDetail(await call('admin', 'DELETE', '/channels/connections/config-yaml-feishu'), 409, /comes from config\.yaml \(channels\.feishu\)/);
    // Its secret is masked, though only a `$NAME` is there; the worker says why it is off.
    expect((await providerOf('admin', 'feishu')).credential_values).toEqual({ app_id: 'cli_0123456789abcdef', app_secret: '********' });
    const status = await waitFor(async () => ((await ok('admin', 'GET', '/channels')).channels as any[]).find((c) => c.name === 'feishu' && c.last_error), 'feishu to report why it is off');
    expect(status.last_error).toMatch(/WARREN_TEST_UNSET_FEISHU_SECRET/);
  });

  it('refuses bad inputs with a {detail}', async () => {
    expectDetail(await call('admin', 'POST', '/channels/whatsapp/runtime-config', { values: { bot_token: 'x' } }), 404, /Unknown channel provider "whatsapp"/);
    expectDetail(await call('alice', 'POST', '/channels/whatsapp/connect'), 404, /Unknown channel provider/);
    expectDetail(await call('admin', 'POST', '/channels/telegram/runtime-config', { values: { bot_username: 'warren_bot' } }), 400, 'Missing required channel configuration: Bot token');
    expectDetail(await call('admin', 'POST', '/channels/telegram/runtime-config', { values: { bot_token: '********', bot_username: 'warren_bot' } }), 400, 'Missing required channel configuration: Bot token');
    expectDetail(await call('admin', 'POST', '/channels/telegram/runtime-config', { values: { bot_token: 't', bot_username: 'b', webhook_url: 'https://x' } }), 400, /takes no webhook_url/);
    expectDetail(await call('admin', 'POST', '/channels/telegram/runtime-config', { values: {}, mode: 'webhook' }), 422, /mode/);
    // Saving credentials changes the deployment: admins only.
    expectDetail(await call('alice', 'POST', '/channels/telegram/runtime-config', { values: { bot_token: telegram.token, bot_username: 'warren_test_bot' } }), 403);
    expectDetail(await call('alice', 'DELETE', '/channels/telegram/runtime-config'), 403);
    // Nothing to connect to yet.
    expectDetail(await call('alice', 'POST', '/channels/telegram/connect'), 409, /Enter the required Telegram credentials/);
    expectDetail(await call('alice', 'DELETE', '/channels/connections/telegram-00000000-0000-4000-8000-000000000000'), 404, 'Channel connection not found');
  });
});

describe('a Telegram bot configured from the UI', () => {
  it('seals the token in Redis, masks it on every read, and starts polling on one worker within seconds', async () => {
    const saved = await ok('admin', 'POST', '/channels/telegram/runtime-config', { values: { bot_token: telegram.token, bot_username: 'warren_test_bot' } });
    expect(saved).toMatchObject({ provider: 'telegram', configured: true, credential_values: { bot_token: '********', bot_username: 'warren_test_bot' } });
    const stored = (await redis.get(keys.channelRuntimeConfig('telegram'))) as string;
    expect(stored).not.toContain(telegram.token);
    expect(JSON.parse(stored).values.bot_token).toMatch(/^v1:/);

    const status = await waitFor(async () => (await telegramStatus())?.connected && (await telegramStatus()), 'telegram to be connected', 30_000);
    expect(['worker-0', 'worker-1']).toContain(status.holder);
    expect(telegram.maxOpenPolls).toBe(1);
    const provider = await providerOf('bob', 'telegram');
    expect(provider).toMatchObject({ configured: true, connectable: true, unavailable_reason: null, connection_status: 'not_connected', credential_values: { bot_token: '********' } });
    const listed = (await connectionsOf('bob')).find((c) => c.provider === 'telegram');
    expect(listed).toMatchObject({ id: 'runtime-telegram', status: 'connected', external_account_id: 'warren_test_bot', metadata: { source: 'runtime-config', read_only: false } });
    expect(JSON.stringify(await connectionsOf('bob'))).not.toContain(telegram.token);
  });

  it('keeps a masked secret as saved when the form is sent back unchanged', async () => {
    const before = JSON.parse((await redis.get(keys.channelRuntimeConfig('telegram'))) as string);
    await ok('admin', 'POST', '/channels/telegram/runtime-config', { values: { bot_token: '********', bot_username: 'warren_test_bot' } });
    const after = JSON.parse((await redis.get(keys.channelRuntimeConfig('telegram'))) as string);
    expect(after.values.bot_token).toBe(before.values.bot_token);
    expect(after.version).not.toBe(before.version);
    await waitFor(async () => (await telegramStatus())?.connected, 'telegram to be connected again', 30_000);
  });

  it('does not answer an account that is not connected', async () => {
    telegram.sendText(111, 'Hello?');
    const reply = await botSaid(111, (t) => t.includes('not connected to Warren'), 'the bot to say the account is not connected');
    expect(reply).toMatch(/Settings › Channels/);
    expect(await threadsOf('admin', 111)).toEqual([]);
  });

  it("binds each user's Telegram account with a connect code, and runs its messages as that user", async () => {
    const connect = await ok('alice', 'POST', '/channels/telegram/connect');
    expect(connect).toMatchObject({ provider: 'telegram', mode: 'deep_link', expires_in: 600 });
    expect(connect.url).toBe(`https://t.me/warren_test_bot?start=${connect.code}`);
    expect(connect.instruction).toContain(`/start ${connect.code}`);
    telegram.sendText(111, `/start ${connect.code}`);
    expect(await botSaid(111, (t) => t.startsWith('Connected'), "the bot to confirm alice's code")).toContain('alice');
    // A code works once.
    telegram.sendText(333, `/start ${connect.code}`);
    await botSaid(333, (t) => t.includes('not valid'), 'the bot to refuse a used code');
    await bind('bob', 222);

    const mine = (await connectionsOf('alice')).filter((c) => c.metadata.source === 'binding');
    expect(mine).toEqual([
      expect.objectContaining({ provider: 'telegram', status: 'connected', external_account_id: '111', workspace_id: '111', scopes: [], metadata: expect.objectContaining({ read_only: false }) }),
    ]);
    expect((await providerOf('alice', 'telegram')).connection_status).toBe('connected');
    const bobs = (await connectionsOf('bob')).filter((c) => c.metadata.source === 'binding');
    expect(bobs.map((c) => c.external_account_id)).toEqual(['222']);
    // Bob can neither see nor delete Alice's.
    expectDetail(await call('bob', 'DELETE', `/channels/connections/${mine[0].id}`), 404, 'Channel connection not found');

    script.lead.push({ content: 'Hello Alice from the agent.' });
    telegram.sendText(111, 'Hi, this is Alice');
    await botSaid(111, (t) => t === 'Hello Alice from the agent.', "the answer in alice's chat");
    script.lead.push({ content: 'Hello Bob from the agent.' });
    telegram.sendText(222, 'Hi, this is Bob');
    await botSaid(222, (t) => t === 'Hello Bob from the agent.', "the answer in bob's chat");

    // Each chat's thread is its owner's: the other user does not find it.
    expect(await threadsOf('alice', 111)).toHaveLength(1);
    expect(await threadsOf('bob', 111)).toEqual([]);
    expect(await threadsOf('bob', 222)).toHaveLength(1);
    expect(await threadsOf('alice', 222)).toEqual([]);
  });

  it('caps the pending connect codes of one user at five', async () => {
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await call('bob', 'POST', '/channels/telegram/connect'));
    // The code Bob used above no longer counts: five fit under the cap of five pending.
    expect(answers.filter((a) => a.status === 200).length).toBe(5);
    expectDetail(answers.at(-1) as any, 429, /Too many pending channel connection codes/);
  });

  it('is taken over with the credentials from Redis when the worker holding it dies, and bindings still apply', async () => {
    const holder = (await waitFor(async () => (await telegramStatus())?.holder, 'a worker to hold telegram', 30_000)) as string;
    const victim = cluster.workers.find((w) => w.name === holder);
    expect(victim).toBeDefined();
    victim?.child.kill('SIGKILL');
    // Sent while nobody polls: read by the next holder, which built the bot from what Redis holds.
    script.lead.push({ content: 'Bob, still here after the takeover.' });
    telegram.sendText(222, 'Still there?');
    await botSaid(222, (t) => t === 'Bob, still here after the takeover.', 'the answer after the takeover');
    const after = await telegramStatus();
    expect(after.holder).not.toBe(holder);
    expect(telegram.maxOpenPolls).toBe(1);
    expect(await threadsOf('bob', 222)).toHaveLength(1);
  });

  it('stops answering an account once its connection is deleted', async () => {
    const mine = (await connectionsOf('alice')).find((c) => c.metadata.source === 'binding');
    const answer = await call('alice', 'DELETE', `/channels/connections/${mine.id}`);
    expect(answer.status).toBe(204);
    expect((await connectionsOf('alice')).filter((c) => c.metadata.source === 'binding')).toEqual([]);
    expect((await providerOf('alice', 'telegram')).connection_status).toBe('not_connected');
    const runsBefore = (await threadsOf('alice', 111)).length;
    const sentBefore = telegram.chat(111).length;
    telegram.sendText(111, 'Are you still there?');
    await botSaid(111, (t) => t.includes('not connected to Warren') && telegram.chat(111).length > sentBefore, 'the bot to refuse the unbound account');
    expect((await threadsOf('alice', 111)).length).toBe(runsBefore);
  });

  it('stops the bot when the admin deletes its credentials, and forgets its bindings', async () => {
    const provider = await ok('admin', 'DELETE', '/channels/telegram/runtime-config');
    expect(provider).toMatchObject({ provider: 'telegram', configured: false, connectable: false, credential_values: {} });
    expect(await redis.exists(keys.channelRuntimeConfig('telegram'))).toBe(0);
    await waitFor(async () => {
      const s = await telegramStatus();
      return s && !s.connected && s.holder === null && telegram.openPolls === 0;
    }, 'telegram to stop polling', 30_000);
    expect((await connectionsOf('bob')).filter((c) => c.provider === 'telegram')).toEqual([]);
    expectDetail(await call('bob', 'POST', '/channels/telegram/connect'), 409);
  });
});
