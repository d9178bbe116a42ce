// The Telegram channel in the production topology: two API processes and two workers on one Redis,
// the lead agent on the scripted model, and a local server speaking the Telegram Bot API. One
// worker polls; messages become runs (recursion_limit 100) whose answers stream back as edits;
// a document becomes an upload of the thread, a presented file comes back as a document;
// /new and /stop work; the holder is SIGKILLed and the other worker takes over, losing nothing.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { RedisClient } from '../../src/store/redis.js';
import { connectTestRedis } from '../support/test-redis.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../src/store/keys.js';
import { agentScript } from '../support/agent-script.js';
import { channelApi, longAnswer } from '../support/channel-api.js';
import { ROOT, type Cluster } from '../support/cluster.js';
import { startChannelStack, type ChannelStack } from '../support/channel-stack.js';
import { startFakeTelegram, type FakeTelegram, type SentMessage } from '../support/fake-telegram.js';
import type { ScriptedOpenAI } from '../support/scripted-openai.js';
import { waitFor } from '../support/wait-for.js';

const script = agentScript();
let stack: ChannelStack<FakeTelegram>;
let llm: ScriptedOpenAI;
let telegram: FakeTelegram;
let cluster: Cluster;
let redis: RedisClient;

beforeAll(async () => {
  stack = await startChannelStack(script, () => startFakeTelegram(), (fake) => ({
    apis: 2,
    workers: 2,
    env: { WARREN_TEST_TELEGRAM_TOKEN: fake.token },
    config: {
      // A killed worker's runs and lease are taken over within seconds.
      runtime: { lock_seconds: 2, stalled_check_seconds: 1 },
      channels: {
        lease_seconds: 2,
        telegram: {
          enabled: true,
          bot_token: '$WARREN_TEST_TELEGRAM_TOKEN',
          base_url: fake.url,
          allowed_users: [111, 222, 333, 444, 555, 666],
          poll_timeout_seconds: 2,
          edit_interval_ms: 150,
          // The Warren user whose threads the chats are.
          owner: 'chat-bot-user',
        },
      },
    },
  }));
  ({ llm, platform: telegram, cluster } = stack);
  redis = connectTestRedis(cluster.redis.url);
}, 240_000);

afterAll(async () => {
  redis?.disconnect();
  await stack?.stop();
}, 60_000);

const { api, call, status: telegramStatus, connected, threadsOf, runsOf } = channelApi(() => cluster, 'telegram');

/** The bot's message in the chat whose last text satisfies `done`. */
const answerIn = (chatId: number, done: (text: string) => boolean, what: string): Promise<SentMessage> =>
  waitFor(async () => telegram.chat(chatId).find((m) => done(m.texts.at(-1) ?? '')), what, 60_000);

describe('telegram channel', () => {
  it('is held by exactly one worker, which reports it connected', async () => {
    const status = await connected();
    expect(status).toMatchObject({ enabled: true, connected: true, last_error: null });
    expect(['worker-0', 'worker-1']).toContain(status.holder);
    expect(telegram.maxOpenPolls).toBe(1);
  });

  it('turns a message into a run of lead_agent with recursion_limit 100 and streams the answer as edits', async () => {
    script.lead.push({ content: longAnswer, delayMs: 40 });
    telegram.sendText(111, 'Tell me a long story');
    const answer = await answerIn(111, (t) => t === longAnswer, 'the streamed answer');
    // Sent with the first words, then edited as the rest arrived.
    expect(answer.texts.length).toBeGreaterThan(2);
    expect(answer.texts[0]?.length).toBeLessThan(longAnswer.length);
    expect(answer.reply_to).not.toBeNull();

    const [thread] = await threadsOf(111);
    const [run] = await runsOf(thread?.thread_id as string);
    expect(run?.kwargs.config.recursion_limit).toBe(100);
    expect(run?.multitask_strategy).toBe('enqueue');
    expect(run?.metadata).toMatchObject({ channel: 'telegram', chat_id: '111' });
    // Made as the channel's configured owner.
    expect(await redis.get(keys.threadOwner(thread?.thread_id as string))).toBe('chat-bot-user');
  });

  it('stores an attached document as an upload of the thread, converted to Markdown', async () => {
    script.lead.push({ content: 'I read your document.' });
    telegram.sendDocument(222, 'sample.docx', readFileSync(path.join(ROOT, 'test', 'fixtures', 'documents', 'sample.docx')), 'What does it say?');
    await answerIn(222, (t) => t === 'I read your document.', 'the answer about the document');
    const [thread] = await threadsOf(222);
    const { files } = await call<{ files: { filename: string }[] }>(`/threads/${thread?.thread_id}/uploads/list`);
    expect(files.map((f) => f.filename).sort()).toEqual(['sample.docx', 'sample.md']);
    // The agent was told where the file is.
    const asked = script.leadRequests(llm.requests).at(-1);
    expect(JSON.stringify(asked?.messages)).toContain('/mnt/user-data/uploads/sample');
  });

  it('sends a presented file back as a document', async () => {
    script.lead.push(
      { tool_calls: [{ name: 'write_file', args: { path: '/mnt/user-data/outputs/report.md', content: '# Report\n\nAll good.\n' } }] },
      { tool_calls: [{ name: 'present_files', args: { filepaths: ['/mnt/user-data/outputs/report.md'] } }] },
      { content: 'Here is the report.' },
    );
    telegram.sendText(333, 'Write me a report');
    await answerIn(333, (t) => t === 'Here is the report.', 'the answer with the report');
    const document = await waitFor(async () => telegram.documents.find((d) => d.chat_id === '333'), 'the report as a document');
    expect(document.filename).toBe('report.md');
    expect(document.bytes.toString('utf8')).toBe('# Report\n\nAll good.\n');
  });

  it('/new starts a fresh thread, /status tells it, /stop stops the running answer', async () => {
    script.lead.push({ content: 'First thread.' });
    telegram.sendText(444, 'hello');
    await answerIn(444, (t) => t === 'First thread.', 'the first answer');
    telegram.sendText(444, '/new');
    await answerIn(444, (t) => t === 'New conversation started.', 'the /new reply');
    expect(await threadsOf(444)).toHaveLength(2);

    // A slow answer, stopped while it streams.
    script.lead.push({ content: Array.from({ length: 200 }, (_, i) => `slow${i}`).join(' '), delayMs: 100 });
    telegram.sendText(444, 'Tell me everything');
    const threads = await threadsOf(444);
    const fresh = threads.find((t) => t.created_at === threads.map((x) => x.created_at).sort().at(-1));
    await waitFor(async () => (await runsOf(fresh?.thread_id as string)).some((r) => r.status === 'running'), 'the slow run to be running');
    telegram.sendText(444, '/status');
    await answerIn(444, (t) => t.startsWith(`Thread ${fresh?.thread_id}. Answering`), 'the /status reply');
    // Stopped once some of it has streamed: what was written so far is still sent.
    await answerIn(444, (t) => t.startsWith('slow0 slow1'), 'the slow answer to start streaming');
    telegram.sendText(444, '/stop');
    await answerIn(444, (t) => t === 'Stopped.', 'the /stop reply');
    const stopped = await answerIn(444, (t) => t.endsWith('(stopped)'), 'the stopped answer');
    expect(stopped.texts.at(-1)).toMatch(/^slow0 slow1/);
    const runs = await runsOf(fresh?.thread_id as string);
    expect(runs.map((r) => r.status)).toEqual(['interrupted']);
  });

  it('answers users not on allowed_users, and unknown commands, without starting runs', async () => {
    telegram.sendText(999, 'let me in');
    await answerIn(999, (t) => t.includes('only answers its allowed users') && t.includes('999'), 'the refusal');
    telegram.sendText(111, '/frobnicate');
    await answerIn(111, (t) => t.startsWith('Unknown command /frobnicate.'), 'the unknown-command reply');
    expect(await threadsOf(999)).toHaveLength(0);
  });

  it("waits out Telegram's 429s (retry_after) on polls and replies, and the message is still answered", async () => {
    telegram.throttle('getUpdates', 1, 1);
    telegram.throttle('sendMessage', 2, 1);
    script.lead.push({ content: 'Answered after the rate limit.' });
    telegram.sendText(666, 'Are you rate limited?');
    await answerIn(666, (t) => t === 'Answered after the rate limit.', 'the answer after the 429s');
    expect(await threadsOf(666)).toHaveLength(1);
    // The failed poll is reported, and the next good one reports the channel connected again.
    await waitFor(async () => (await telegramStatus())?.connected, 'telegram connected again after the 429', 60_000);
  });

  it('restarts on request, and a killed holder is taken over by the other worker without losing a message', async () => {
    const before = await telegramStatus();
    const restart = await fetch(api('/channels/telegram/restart'), { method: 'POST' });
    expect(restart.status).toBe(202);
    expect((await fetch(api('/channels/discord/restart'), { method: 'POST' })).status).toBe(404);
    await waitFor(async () => (await telegramStatus())?.connected, 'telegram to reconnect after the restart', 60_000);

    const holder = (await telegramStatus())?.holder ?? before?.holder;
    const victim = cluster.workers.find((w) => w.name === holder);
    expect(victim).toBeDefined();
    victim?.child.kill('SIGKILL');
    // Sent while nobody polls: read by the next holder.
    script.lead.push({ content: 'Still here after the takeover.' });
    telegram.sendText(555, 'Are you there?');
    await answerIn(555, (t) => t === 'Still here after the takeover.', 'the answer after the takeover');
    const after = await telegramStatus();
    expect(after?.connected).toBe(true);
    expect(after?.holder).not.toBe(holder);
    expect(telegram.maxOpenPolls).toBe(1);
    // Every message got its one answer: none lost, none answered twice.
    expect(telegram.chat(555).filter((m) => m.texts.at(-1) === 'Still here after the takeover.')).toHaveLength(1);
  });
});
