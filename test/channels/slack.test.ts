// The Slack channel in the production topology: two API processes and two workers on one Redis,
// the lead agent on the scripted model, and a local server speaking Slack's Web API and Socket
// Mode. One worker holds the one socket; a DM or a mention becomes a run (recursion_limit 100)
// whose answer streams back as chat.update edits in the conversation's thread; a shared file
// becomes an upload of the thread, a presented file comes back through Slack's upload flow;
// /new, /status and /stop work; signed Events API requests are taken by the API (and unsigned,
// stale or forged ones refused); the holder is SIGKILLed and the other worker takes over,
// losing nothing.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slackSignature } from '../../src/channels/slack-events.service.js';
import { agentScript } from '../support/agent-script.js';
import { channelApi, longAnswer } from '../support/channel-api.js';
import { ROOT, type Cluster } from '../support/cluster.js';
import { startChannelStack, type ChannelStack } from '../support/channel-stack.js';
import { startFakeSlack, type FakeSlack, type PostedMessage } from '../support/fake-slack.js';
import type { ScriptedOpenAI } from '../support/scripted-openai.js';
import { waitFor } from '../support/wait-for.js';

const SIGNING_SECRET = 'test-signing-secret';
const USERS = ['U0000111', 'U0000222', 'U0000333', 'U0000444', 'U0000555', 'U0000666', 'U0000777', 'U0000888'] as const;
const [ALICE, BOB, CAROL, DAVE, ERIN, FRANK, GRACE, HEIDI] = USERS;

const script = agentScript();
let stack: ChannelStack<FakeSlack>;
let llm: ScriptedOpenAI;
let slack: FakeSlack;
let cluster: Cluster;

beforeAll(async () => {
  stack = await startChannelStack(script, startFakeSlack, (fake) => ({
    apis: 2,
    workers: 2,
    env: { WARREN_TEST_SLACK_BOT: fake.botToken, WARREN_TEST_SLACK_APP: fake.appToken, WARREN_TEST_SLACK_SECRET: SIGNING_SECRET },
    config: {
      // A killed worker's runs and lease are taken over within seconds.
      runtime: { lock_seconds: 2, stalled_check_seconds: 1 },
      uploads: { max_file_mb: 1 },
      channels: {
        lease_seconds: 2,
        slack: {
          enabled: true,
          mode: 'socket',
          bot_token: '$WARREN_TEST_SLACK_BOT',
          app_token: '$WARREN_TEST_SLACK_APP',
          signing_secret: '$WARREN_TEST_SLACK_SECRET',
          base_url: fake.apiUrl,
          allowed_users: [...USERS],
          edit_interval_ms: 150,
        },
      },
    },
  }));
  ({ llm, platform: slack, cluster } = stack);
}, 240_000);

afterAll(async () => stack?.stop(), 60_000);

const { api, call, status: slackStatus, connected, threadsOf, runsOf } = channelApi(() => cluster, 'slack');

/** The bot's message in a channel whose last text satisfies `done`. */
const answerIn = (channel: string, done: (text: string) => boolean, what: string): Promise<PostedMessage> =>
  waitFor(async () => slack.in(channel).find((m) => done(m.texts.at(-1) ?? '')), what, 60_000);
const dmOf = (user: string) => `D${user}`;
const eventTs = (body: Record<string, unknown>) => (body.event as { ts: string }).ts;

/** POSTs a body to the Events API route, signed as Slack does (or as told). */
async function postEvent(body: unknown, sign: { secret?: string; timestamp?: number; signature?: string | null } = {}): Promise<Response> {
  const raw = JSON.stringify(body);
  const timestamp = String(sign.timestamp ?? Math.floor(Date.now() / 1000));
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-slack-request-timestamp': timestamp };
  const signature = sign.signature === undefined ? slackSignature(sign.secret ?? SIGNING_SECRET, timestamp, raw) : sign.signature;
  if (signature !== null) headers['x-slack-signature'] = signature;
  return fetch(api('/channels/slack/events'), { method: 'POST', headers, body: raw });
}

describe('slack channel', () => {
  it('is held by exactly one worker, over exactly one Socket Mode connection', async () => {
    const status = await connected();
    expect(status).toMatchObject({ enabled: true, connected: true, last_error: null });
    expect(['worker-0', 'worker-1']).toContain(status.holder);
    expect(slack.openSockets).toBe(1);
    expect(slack.maxOpenSockets).toBe(1);
  });

  it('turns a DM into a run of lead_agent with recursion_limit 100 and streams the answer as chat.update edits', async () => {
    script.lead.push({ content: longAnswer, delayMs: 40 });
    slack.dm(ALICE, 'Tell me a long story');
    const answer = await answerIn(dmOf(ALICE), (t) => t === longAnswer, 'the streamed answer');
    // Posted with the first words, then edited as the rest arrived.
    expect(answer.texts.length).toBeGreaterThan(2);
    expect(answer.texts[0]?.length).toBeLessThan(longAnswer.length);
    // A DM is answered in the DM itself.
    expect(answer.thread_ts).toBeNull();

    const [thread] = await threadsOf(dmOf(ALICE));
    const [run] = await runsOf(thread?.thread_id as string);
    expect(run?.kwargs.config.recursion_limit).toBe(100);
    expect(run?.multitask_strategy).toBe('enqueue');
    expect(run?.metadata).toMatchObject({ channel: 'slack', chat_id: dmOf(ALICE), user_id: ALICE });
    // Every envelope was acknowledged.
    await waitFor(async () => slack.acked.size >= 1, 'the envelope to be acknowledged');
  });

  it('answers a mention in a channel in its thread, and a reply in that thread continues the same Warren thread', async () => {
    script.lead.push({ content: 'Hello channel.' }, { content: 'Still the same thread.' });
    const first = slack.mention('C0000AAA', BOB, 'hi there');
    const rootTs = eventTs(first);
    await waitFor(async () => slack.in('C0000AAA', rootTs).find((m) => m.texts.at(-1) === 'Hello channel.'), 'the answer in the thread', 60_000);
    slack.mention('C0000AAA', BOB, 'and again', rootTs);
    await waitFor(async () => slack.in('C0000AAA', rootTs).find((m) => m.texts.at(-1) === 'Still the same thread.'), 'the second answer in the thread', 60_000);
    const threads = await threadsOf('C0000AAA');
    expect(threads).toHaveLength(1);
    expect(threads[0]?.metadata).toMatchObject({ conversation: `C0000AAA:${rootTs}` });
    expect(await runsOf(threads[0]?.thread_id as string)).toHaveLength(2);
    // The mention of the bot is not part of what the agent reads.
    const asked = script.leadRequests(llm.requests).at(-1);
    expect(JSON.stringify(asked?.messages)).toContain('and again');
    expect(JSON.stringify(asked?.messages)).not.toContain('<@');
  });

  it('stores a shared file as an upload of the thread, converted to Markdown', async () => {
    script.lead.push({ content: 'I read your document.' });
    const file = slack.addFile('sample.docx', readFileSync(path.join(ROOT, 'test', 'fixtures', 'documents', 'sample.docx')));
    slack.dm(CAROL, 'What does it say?', [file]);
    await answerIn(dmOf(CAROL), (t) => t === 'I read your document.', 'the answer about the document');
    const [thread] = await threadsOf(dmOf(CAROL));
    const { files } = await call<{ files: { filename: string }[] }>(`/threads/${thread?.thread_id}/uploads/list`);
    expect(files.map((f) => f.filename).sort()).toEqual(['sample.docx', 'sample.md']);
    const asked = script.leadRequests(llm.requests).at(-1);
    expect(JSON.stringify(asked?.messages)).toContain('/mnt/user-data/uploads/sample');
  });

  it('refuses a file over the upload limit with a reply, and starts nothing', async () => {
    const big = slack.addFile('big.bin', Buffer.alloc(2 * 1024 * 1024, 1));
    slack.dm(HEIDI, '', [big]);
    await answerIn(dmOf(HEIDI), (t) => t.startsWith('big.bin is 2 MiB; files up to 1 MiB are accepted.'), 'the refusal of the big file');
    expect(await threadsOf(dmOf(HEIDI))).toHaveLength(0);
  });

  it('sends a presented file back through the upload flow, in the conversation', async () => {
    script.lead.push(
      { tool_calls: [{ name: 'write_file', args: { path: '/mnt/user-data/outputs/report.md', content: '# Report\n\nAll good.\n' } }] },
      { tool_calls: [{ name: 'present_files', args: { filepaths: ['/mnt/user-data/outputs/report.md'] } }] },
      { content: 'Here is the report.' },
    );
    const asked = slack.mention('C0000BBB', DAVE, 'Write me a report');
    await answerIn('C0000BBB', (t) => t === 'Here is the report.', 'the answer with the report');
    const upload = await waitFor(async () => slack.uploads.find((u) => u.channel === 'C0000BBB'), 'the report as a file');
    expect(upload.filename).toBe('report.md');
    expect(upload.thread_ts).toBe(eventTs(asked));
    expect(upload.bytes.toString('utf8')).toBe('# Report\n\nAll good.\n');
  });

  it('/new starts a fresh thread, /status tells it, /stop stops the running answer', async () => {
    const dm = dmOf(ERIN);
    script.lead.push({ content: 'First thread.' });
    slack.dm(ERIN, 'hello');
    await answerIn(dm, (t) => t === 'First thread.', 'the first answer');
    slack.dm(ERIN, '/new');
    await answerIn(dm, (t) => t === 'New conversation started.', 'the /new reply');
    expect(await threadsOf(dm)).toHaveLength(2);

    script.lead.push({ content: Array.from({ length: 200 }, (_, i) => `slow${i}`).join(' '), delayMs: 100 });
    slack.dm(ERIN, 'Tell me everything');
    const threads = await threadsOf(dm);
    const fresh = threads.find((t) => t.created_at === threads.map((x) => x.created_at).sort().at(-1));
    await waitFor(async () => (await runsOf(fresh?.thread_id as string)).some((r) => r.status === 'running'), 'the slow run to be running');
    slack.dm(ERIN, '/status');
    await answerIn(dm, (t) => t.startsWith(`Thread ${fresh?.thread_id}. Answering`), 'the /status reply');
    await answerIn(dm, (t) => t.startsWith('slow0 slow1'), 'the slow answer to start streaming');
    slack.dm(ERIN, '/stop');
    await answerIn(dm, (t) => t === 'Stopped.', 'the /stop reply');
    const stopped = await answerIn(dm, (t) => t.endsWith('(stopped)'), 'the stopped answer');
    expect(stopped.texts.at(-1)).toMatch(/^slow0 slow1/);
    expect((await runsOf(fresh?.thread_id as string)).map((r) => r.status)).toEqual(['interrupted']);
    slack.dm(ERIN, '/help');
    await answerIn(dm, (t) => t.includes('/new') && t.includes('/stop'), 'the /help reply');
  });

  it('answers users not on allowed_users, and messages it cannot read, without starting runs', async () => {
    slack.dm('U0000999', 'let me in');
    await answerIn(dmOf('U0000999'), (t) => t.includes('only answers its allowed users') && t.includes('U0000999'), 'the refusal');
    // A file Slack no longer holds, and no text: nothing to read.
    slack.dm(FRANK, '', [{ ...slack.addFile('gone.txt', Buffer.from('x')), mode: 'tombstone' }]);
    await answerIn(dmOf(FRANK), (t) => t.includes('not supported'), 'the unsupported-message reply');
    expect(await threadsOf(dmOf('U0000999'))).toHaveLength(0);
    expect(await threadsOf(dmOf(FRANK))).toHaveLength(0);
  });

  it("waits out Slack's 429s (Retry-After) and the message is still answered", async () => {
    slack.throttle('chat.postMessage', 2, 1);
    script.lead.push({ content: 'Answered after the rate limit.' });
    slack.dm(GRACE, 'Are you rate limited?');
    await answerIn(dmOf(GRACE), (t) => t === 'Answered after the rate limit.', 'the answer after the 429s');
    expect(slack.calls.get('chat.postMessage')).toBeGreaterThan(0);
  });

  it('opens the socket again after an outage (apps.connections.open rate limited meanwhile), and what was sent meanwhile is answered', async () => {
    const opened = slack.socketsOpened;
    const asked = slack.calls.get('apps.connections.open') ?? 0;
    slack.throttle('apps.connections.open', 1, 1);
    slack.dropSockets();
    script.lead.push({ content: 'Back after the outage.' });
    slack.dm(GRACE, 'Did you miss this?');
    await answerIn(dmOf(GRACE), (t) => t === 'Back after the outage.', 'the answer after the outage');
    expect(slack.socketsOpened).toBeGreaterThan(opened);
    // The 429 was one of the tries.
    expect(slack.calls.get('apps.connections.open')).toBeGreaterThanOrEqual(asked + 2);
    expect(slack.maxOpenSockets).toBe(1);
    await waitFor(async () => (await slackStatus())?.connected, 'slack connected again after the outage', 60_000);
  });

  describe('Events API', () => {
    it('answers url_verification with its challenge', async () => {
      const res = await postEvent({ token: 'x', challenge: 'the-challenge-123', type: 'url_verification' });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ challenge: 'the-challenge-123' });
    });

    it('takes a signed event, once however often Slack retries it, and the holder answers it', async () => {
      script.lead.push({ content: 'Answered from the Events API.' });
      const body = slack.eventBody({ type: 'message', channel: dmOf(BOB), channel_type: 'im', user: BOB, text: 'over HTTP', ts: '1800000000.000100' });
      const first = await postEvent(body);
      expect(first.status).toBe(200);
      expect(await first.json()).toEqual({ ok: true });
      // Slack's retry of the same event id.
      expect((await postEvent(body)).status).toBe(200);
      await answerIn(dmOf(BOB), (t) => t === 'Answered from the Events API.', 'the answer to the HTTP event');
      const [thread] = await threadsOf(dmOf(BOB));
      expect(await runsOf(thread?.thread_id as string)).toHaveLength(1);
    });

    it('refuses unsigned, forged and stale requests with 401 {detail}, and a signed non-JSON body with 400', async () => {
      const body = slack.eventBody({ type: 'message', channel: dmOf(BOB), channel_type: 'im', user: BOB, text: 'forged', ts: '1800000000.000200' });
      const cases = [
        await postEvent(body, { signature: null }),
        await postEvent(body, { secret: 'not-the-secret' }),
        await postEvent(body, { signature: 'v0=00' }),
        await postEvent(body, { timestamp: Math.floor(Date.now() / 1000) - 6 * 60 }),
      ];
      for (const res of cases) {
        expect(res.status).toBe(401);
        expect(typeof ((await res.json()) as { detail?: unknown }).detail).toBe('string');
      }
      const timestamp = String(Math.floor(Date.now() / 1000));
      const notJson = await fetch(api('/channels/slack/events'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-slack-request-timestamp': timestamp, 'x-slack-signature': slackSignature(SIGNING_SECRET, timestamp, '{nope') },
        body: '{nope',
      });
      expect(notJson.status).toBe(400);
      expect(typeof ((await notJson.json()) as { detail?: unknown }).detail).toBe('string');
    });
  });

  it('restarts on request, and a killed holder is taken over by the other worker without losing a message', async () => {
    const opened = slack.socketsOpened;
    expect((await fetch(api('/channels/slack/restart'), { method: 'POST' })).status).toBe(202);
    await waitFor(async () => slack.socketsOpened > opened && (await slackStatus())?.connected, 'slack to reconnect after the restart', 60_000);

    const holder = (await slackStatus())?.holder;
    const victim = cluster.workers.find((w) => w.name === holder);
    expect(victim).toBeDefined();
    victim?.child.kill('SIGKILL');
    // Sent while nobody holds the socket: delivered to the next holder.
    script.lead.push({ content: 'Still here after the takeover.' });
    slack.dm(ALICE, 'Are you there?');
    await answerIn(dmOf(ALICE), (t) => t === 'Still here after the takeover.', 'the answer after the takeover');
    const after = await slackStatus();
    expect(after?.connected).toBe(true);
    expect(after?.holder).not.toBe(holder);
    expect(slack.openSockets).toBe(1);
    expect(slack.maxOpenSockets).toBe(1);
    // Every message got its one answer: none lost, none answered twice.
    expect(slack.in(dmOf(ALICE)).filter((m) => m.texts.at(-1) === 'Still here after the takeover.')).toHaveLength(1);
  });
});
