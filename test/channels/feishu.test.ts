// The Feishu channel in the production topology: two API processes and two workers on one Redis,
// the lead agent on the scripted model, and a local server speaking the Feishu open platform
// (tenant token, the long connection with its protobuf frames, cards, resources, uploads). One
// worker holds the long connection; messages become runs (recursion_limit 100) whose answers
// stream into a card that is updated as it grows; a file becomes an upload of the thread, a
// presented file comes back as a file message; /new and /stop work; an expired token is
// renewed; the holder is SIGKILLed and the other worker takes over, losing nothing.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentScript } from '../support/agent-script.js';
import { channelApi, longAnswer } from '../support/channel-api.js';
import { ROOT, type Cluster } from '../support/cluster.js';
import { startChannelStack, type ChannelStack } from '../support/channel-stack.js';
import { encryptFeishu, signFeishu, startFakeFeishu, type BotMessage, type FakeFeishu } from '../support/fake-feishu.js';
import type { ScriptedOpenAI } from '../support/scripted-openai.js';
import { waitFor } from '../support/wait-for.js';

const script = agentScript();
let stack: ChannelStack<FakeFeishu>;
let llm: ScriptedOpenAI;
let feishu: FakeFeishu;
let cluster: Cluster;

const TOKEN = 'verification-token-for-tests';
const ENCRYPT_KEY = 'encrypt-key-for-tests';
const users = ['ou_h', 'ou_a', 'ou_b', 'ou_c', 'ou_d', 'ou_e', 'ou_f', 'ou_g'];

beforeAll(async () => {
  stack = await startChannelStack(script, () => startFakeFeishu(), (fake) => ({
    apis: 2,
    workers: 2,
    env: { WARREN_TEST_FEISHU_SECRET: fake.appSecret, WARREN_TEST_FEISHU_TOKEN: TOKEN, WARREN_TEST_FEISHU_KEY: ENCRYPT_KEY },
    config: {
      // A killed worker's runs and lease are taken over within seconds.
      runtime: { lock_seconds: 2, stalled_check_seconds: 1 },
      // Small, so that a file over it is cheap to send.
      uploads: { max_file_mb: 1 },
      channels: {
        lease_seconds: 2,
        feishu: {
          enabled: true,
          app_id: fake.appId,
          app_secret: '$WARREN_TEST_FEISHU_SECRET',
          verification_token: '$WARREN_TEST_FEISHU_TOKEN',
          encrypt_key: '$WARREN_TEST_FEISHU_KEY',
          // The long connection and the HTTP callback at once.
          mode: 'both',
          base_url: fake.url,
          allowed_users: users,
          edit_interval_ms: 200,
        },
      },
    },
  }));
  ({ llm, platform: feishu, cluster } = stack);
}, 240_000);

afterAll(async () => stack?.stop(), 60_000);

const { api, call, connected, threadsOf, runsOf } = channelApi(() => cluster, 'feishu');

/** The bot's message in the chat whose last text satisfies `done`. */
const answerIn = (chatId: string, done: (text: string) => boolean, what: string): Promise<BotMessage> =>
  waitFor(async () => feishu.chat(chatId).find((m) => done(m.texts.at(-1) ?? '')), what, 60_000);

describe('feishu channel', () => {
  it('is held by exactly one worker, over one long connection, which reports it connected', async () => {
    const status = await connected();
    expect(status).toMatchObject({ enabled: true, connected: true, last_error: null });
    expect(['worker-0', 'worker-1']).toContain(status.holder);
    expect(feishu.openConnections).toBe(1);
    expect(feishu.maxOpenConnections).toBe(1);
  });

  it('turns a message into a run of lead_agent with recursion_limit 100 and streams the answer into a card', async () => {
    script.lead.push({ content: longAnswer, delayMs: 40 });
    const asked = feishu.sendText('oc_a', 'Tell me a long story', { from: 'ou_a' });
    const card = await answerIn('oc_a', (t) => t === longAnswer, 'the streamed answer');
    expect(card.msg_type).toBe('interactive');
    expect(card.reply_to).toBe(asked);
    // Sent when the run started, then updated as the words arrived, then the final text.
    expect(card.texts[0]).toBe('…');
    expect(card.texts.length).toBeGreaterThan(2);
    expect(card.texts.some((t) => t.startsWith('word0') && t.length < longAnswer.length)).toBe(true);
    expect(feishu.chat('oc_a')).toHaveLength(1);

    const [thread] = await threadsOf('oc_a');
    const [run] = await runsOf(thread?.thread_id as string);
    expect(run?.kwargs.config.recursion_limit).toBe(100);
    expect(run?.multitask_strategy).toBe('enqueue');
    expect(run?.metadata).toMatchObject({ channel: 'feishu', chat_id: 'oc_a', user_id: 'ou_a' });
    await waitFor(async () => feishu.unacknowledged === 0, 'the event to be acknowledged');
  });

  it('keeps a topic of a chat as its own thread', async () => {
    script.lead.push({ content: 'In the topic.' });
    feishu.sendText('oc_a', 'A question in a topic', { from: 'ou_a', threadId: 'omt_1' });
    await answerIn('oc_a', (t) => t === 'In the topic.', 'the answer in the topic');
    expect(await threadsOf('oc_a')).toHaveLength(2);
  });

  it('stores a file as an upload of the thread, converted, and sends a presented file back as a file message', async () => {
    script.lead.push({ content: 'I read your document.' });
    feishu.sendFile('oc_b', 'sample.docx', readFileSync(path.join(ROOT, 'test', 'fixtures', 'documents', 'sample.docx')), 'ou_b');
    await answerIn('oc_b', (t) => t === 'I read your document.', 'the answer about the document');
    const [thread] = await threadsOf('oc_b');
    const { files } = await call<{ files: { filename: string }[] }>(`/threads/${thread?.thread_id}/uploads/list`);
    expect(files.map((f) => f.filename).sort()).toEqual(['sample.docx', 'sample.md']);
    expect(JSON.stringify(script.leadRequests(llm.requests).at(-1)?.messages)).toContain('/mnt/user-data/uploads/sample');

    script.lead.push(
      { tool_calls: [{ name: 'write_file', args: { path: '/mnt/user-data/outputs/report.md', content: '# Report\n\nAll good.\n' } }] },
      { tool_calls: [{ name: 'present_files', args: { filepaths: ['/mnt/user-data/outputs/report.md'] } }] },
      { content: 'Here is the report.' },
    );
    feishu.sendText('oc_b', 'Write me a report', { from: 'ou_b' });
    await answerIn('oc_b', (t) => t === 'Here is the report.', 'the answer with the report');
    const file = await waitFor(async () => feishu.files.find((f) => f.chat_id === 'oc_b'), 'the report as a file message');
    expect(file.filename).toBe('report.md');
    expect(file.bytes.toString('utf8')).toBe('# Report\n\nAll good.\n');
    expect(feishu.chat('oc_b').some((m) => m.msg_type === 'file')).toBe(true);
  });

  it('/new starts a fresh thread, /status tells it, /stop stops the running answer', async () => {
    script.lead.push({ content: 'First thread.' });
    feishu.sendText('oc_d', 'hello', { from: 'ou_d' });
    await answerIn('oc_d', (t) => t === 'First thread.', 'the first answer');
    feishu.sendText('oc_d', '/new', { from: 'ou_d' });
    await answerIn('oc_d', (t) => t === 'New conversation started.', 'the /new reply');
    expect(await threadsOf('oc_d')).toHaveLength(2);

    script.lead.push({ content: Array.from({ length: 200 }, (_, i) => `slow${i}`).join(' '), delayMs: 100 });
    feishu.sendText('oc_d', 'Tell me everything', { from: 'ou_d' });
    const threads = await threadsOf('oc_d');
    const fresh = threads.find((t) => t.created_at === threads.map((x) => x.created_at).sort().at(-1));
    await waitFor(async () => (await runsOf(fresh?.thread_id as string)).some((r) => r.status === 'running'), 'the slow run to be running');
    feishu.sendText('oc_d', '/status', { from: 'ou_d' });
    await answerIn('oc_d', (t) => t.startsWith(`Thread ${fresh?.thread_id}. Answering`), 'the /status reply');
    await answerIn('oc_d', (t) => t.startsWith('slow0 slow1'), 'the slow answer to start streaming');
    feishu.sendText('oc_d', '/stop', { from: 'ou_d' });
    await answerIn('oc_d', (t) => t === 'Stopped.', 'the /stop reply');
    const stopped = await answerIn('oc_d', (t) => t.endsWith('(stopped)'), 'the stopped answer');
    expect(stopped.texts.at(-1)).toMatch(/^slow0 slow1/);
    expect((await runsOf(fresh?.thread_id as string)).map((r) => r.status)).toEqual(['interrupted']);
  });

  it('answers unknown users, unsupported messages, oversized files and unknown commands without starting runs', async () => {
    feishu.sendText('oc_x', 'let me in', { from: 'ou_stranger' });
    await answerIn('oc_x', (t) => t.includes('only answers its allowed users') && t.includes('ou_stranger'), 'the refusal');
    feishu.sendOther('oc_e', 'sticker', 'ou_e');
    await answerIn('oc_e', (t) => t.includes('not supported'), 'the unsupported-message reply');
    feishu.sendFile('oc_e', 'huge.bin', Buffer.alloc(1024 * 1024 + 1, 1), 'ou_e');
    await answerIn('oc_e', (t) => t.startsWith('That file is too large: files up to 1 MiB'), 'the oversized-file reply');
    feishu.sendText('oc_e', '/frobnicate', { from: 'ou_e' });
    await answerIn('oc_e', (t) => t.startsWith('Unknown command /frobnicate.'), 'the unknown-command reply');
    expect(await threadsOf('oc_x')).toHaveLength(0);
    expect(await threadsOf('oc_e')).toHaveLength(0);
  });

  it('renews an expired tenant_access_token and waits out rate limits, and the message is still answered', async () => {
    const issued = feishu.tokensIssued;
    feishu.expireTokens();
    feishu.throttle('POST', 'reply', 2);
    script.lead.push({ content: 'Answered after the refusals.' });
    feishu.sendText('oc_f', 'Are you there?', { from: 'ou_f' });
    await answerIn('oc_f', (t) => t === 'Answered after the refusals.', 'the answer after the expired token and the 429s');
    expect(feishu.tokenRefusals).toBeGreaterThan(0);
    expect(feishu.tokensIssued).toBeGreaterThan(issued);
    expect(feishu.chat('oc_f')).toHaveLength(1);
  });

  it('reconnects when the platform drops the long connection, through a refused endpoint, and loses no message', async () => {
    feishu.throttle('POST', 'endpoint', 2);
    feishu.dropConnections();
    // Sent while the connection is down: delivered once it is back.
    script.lead.push({ content: 'Back after the drop.' });
    feishu.sendText('oc_c', 'Did you drop?', { from: 'ou_c' });
    await answerIn('oc_c', (t) => t === 'Back after the drop.', 'the answer after the reconnect');
    await connected();
    expect(feishu.openConnections).toBe(1);
    expect(feishu.chat('oc_c')).toHaveLength(1);
  });

  describe('the HTTP event callback', () => {
    /** Posts a body as Feishu would: encrypted and signed unless told otherwise. */
    async function callback(payload: unknown, options: { encrypt?: boolean; signature?: string; raw?: string } = {}) {
      const body = options.raw ?? JSON.stringify(options.encrypt === false ? payload : { encrypt: encryptFeishu(JSON.stringify(payload), ENCRYPT_KEY) });
      const timestamp = String(Math.floor(Date.now() / 1000));
      const nonce = 'nonce-1';
      const res = await fetch(api('/channels/feishu/events'), {
        method: 'POST',
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'x-lark-request-timestamp': timestamp,
          'x-lark-request-nonce': nonce,
          'x-lark-signature': options.signature ?? signFeishu(timestamp, nonce, ENCRYPT_KEY, body),
        },
        body,
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    }

    it('answers the url_verification challenge, and refuses a wrong token, an unencrypted body, a bad signature and a body that is not JSON', async () => {
      expect(await callback({ type: 'url_verification', token: TOKEN, challenge: 'abc123' })).toEqual({ status: 200, body: { challenge: 'abc123' } });
      const wrongToken = await callback({ type: 'url_verification', token: 'nope', challenge: 'abc123' });
      expect(wrongToken.status).toBe(401);
      expect(wrongToken.body.detail).toMatch(/verification token/);
      expect((await callback({ type: 'url_verification', token: TOKEN, challenge: 'x' }, { encrypt: false })).status).toBe(401);

      const { envelope } = feishu.callbackEvent('oc_h', 'signed wrong', TOKEN, 'ou_h');
      const badSignature = await callback(envelope, { signature: 'f'.repeat(64) });
      expect(badSignature.status).toBe(401);
      expect(badSignature.body.detail).toMatch(/X-Lark-Signature/);
      const forged = feishu.callbackEvent('oc_h', 'forged', 'not-the-token', 'ou_h');
      expect((await callback(forged.envelope)).status).toBe(401);
      const garbage = await callback(null, { raw: '{not json' });
      expect(garbage.status).toBe(400);
      expect(typeof garbage.body.detail).toBe('string');
      const undecryptable = await callback(null, { raw: JSON.stringify({ encrypt: Buffer.alloc(48, 7).toString('base64') }) });
      expect(undecryptable.status).toBe(401);
      expect(await threadsOf('oc_h')).toHaveLength(0);
    });

    it('queues a message event for the holder, once per event_id however often it is posted', async () => {
      script.lead.push({ content: 'Answered from the callback.' });
      const { messageId, envelope } = feishu.callbackEvent('oc_h', 'Hello over HTTP', TOKEN, 'ou_h');
      expect(await callback(envelope)).toEqual({ status: 200, body: { ok: true } });
      // Feishu delivers again when it is unsure: the same event_id, taken in once.
      expect(await callback(envelope)).toEqual({ status: 200, body: { ok: true } });
      const card = await answerIn('oc_h', (t) => t === 'Answered from the callback.', 'the answer to the callback event');
      expect(card.reply_to).toBe(messageId);
      const [thread] = await threadsOf('oc_h');
      expect(await runsOf(thread?.thread_id as string)).toHaveLength(1);
      expect(feishu.chat('oc_h')).toHaveLength(1);
    });
  });

  it('restarts on request, and a killed holder is taken over by the other worker without losing a message', async () => {
    const restart = await fetch(api('/channels/feishu/restart'), { method: 'POST' });
    expect(restart.status).toBe(202);
    // Whoever holds it now (the restart may be under way still: then the old holder is killed, and the other takes over all the same).
    const { holder } = await connected((s) => s.holder !== null);
    const victim = cluster.workers.find((w) => w.name === holder);
    expect(victim).toBeDefined();
    victim?.child.kill('SIGKILL');
    // Sent while nobody may hold the connection: delivered to the next holder.
    script.lead.push({ content: 'Still here after the takeover.' });
    feishu.sendText('oc_g', 'Are you still there?', { from: 'ou_g' });
    await answerIn('oc_g', (t) => t === 'Still here after the takeover.', 'the answer after the takeover');
    const after = await connected((s) => s.holder !== holder);
    expect(after.holder).not.toBe(holder);
    expect(feishu.openConnections).toBe(1);
    expect(feishu.maxOpenConnections).toBe(1);
    // Every message got its one answer: none lost, none answered twice.
    expect(feishu.chat('oc_g').filter((m) => m.texts.at(-1) === 'Still here after the takeover.')).toHaveLength(1);
  });
});
