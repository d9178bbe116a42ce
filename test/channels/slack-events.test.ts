// Slack in `events` mode: no Socket Mode connection at all; Slack posts signed events to
// POST /api/channels/slack/events on whichever API replica its load balancer picks, and the one
// worker holding Slack's lease answers them. Two API replicas, one worker, the scripted model
// and the local Slack server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slackSignature } from '../../src/channels/slack-events.service.js';
import { agentScript } from '../support/agent-script.js';
import { channelApi } from '../support/channel-api.js';
import type { Cluster } from '../support/cluster.js';
import { startChannelStack, type ChannelStack } from '../support/channel-stack.js';
import { startFakeSlack, type FakeSlack } from '../support/fake-slack.js';
import { waitFor } from '../support/wait-for.js';

const SIGNING_SECRET = 'events-mode-secret';
const USER = 'U0000AAA';

const script = agentScript();
let stack: ChannelStack<FakeSlack>;
let slack: FakeSlack;
let cluster: Cluster;

beforeAll(async () => {
  stack = await startChannelStack(script, startFakeSlack, (fake) => ({
    apis: 2,
    workers: 1,
    env: { WARREN_TEST_SLACK_BOT: fake.botToken, WARREN_TEST_SLACK_SECRET: SIGNING_SECRET },
    config: {
      channels: {
        lease_seconds: 2,
        slack: {
          enabled: true,
          mode: 'events',
          bot_token: '$WARREN_TEST_SLACK_BOT',
          signing_secret: '$WARREN_TEST_SLACK_SECRET',
          base_url: fake.apiUrl,
          allowed_users: [USER],
          edit_interval_ms: 150,
        },
      },
    },
  }));
  ({ platform: slack, cluster } = stack);
}, 240_000);

afterAll(async () => stack?.stop(), 60_000);

const { connected } = channelApi(() => cluster, 'slack');

/** POSTs a body to one API replica's Events API route, signed as Slack does. */
function postEvent(replica: number, body: unknown): Promise<Response> {
  const raw = JSON.stringify(body);
  const timestamp = String(Math.floor(Date.now() / 1000));
  return fetch(`http://127.0.0.1:${cluster.apis[replica]?.port}/api/channels/slack/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-slack-request-timestamp': timestamp, 'x-slack-signature': slackSignature(SIGNING_SECRET, timestamp, raw) },
    body: raw,
  });
}

describe('slack channel in events mode', () => {
  it('opens no socket, and reports the channel connected once the bot token checks out', async () => {
    const s = await connected();
    expect(s).toMatchObject({ enabled: true, connected: true, holder: 'worker-0', last_error: null });
    expect(slack.socketsOpened).toBe(0);
    expect(slack.calls.get('apps.connections.open') ?? 0).toBe(0);
  });

  it('answers events whichever API replica took them, each once', async () => {
    script.lead.push({ content: 'Via replica zero.' }, { content: 'Via replica one.' });
    const first = slack.eventBody({ type: 'message', channel: `D${USER}`, channel_type: 'im', user: USER, text: 'first', ts: '1800000001.000001' });
    expect((await postEvent(0, first)).status).toBe(200);
    await waitFor(async () => slack.in(`D${USER}`).find((m) => m.texts.at(-1) === 'Via replica zero.'), 'the first answer', 60_000);
    const second = slack.eventBody({ type: 'message', channel: `D${USER}`, channel_type: 'im', user: USER, text: 'second', ts: '1800000001.000002' });
    expect((await postEvent(1, second)).status).toBe(200);
    // Slack's retry of it lands on the other replica: recorded once all the same.
    expect((await postEvent(0, second)).status).toBe(200);
    await waitFor(async () => slack.in(`D${USER}`).find((m) => m.texts.at(-1) === 'Via replica one.'), 'the second answer', 60_000);
    expect(slack.in(`D${USER}`).map((m) => m.texts.at(-1))).toEqual(['Via replica zero.', 'Via replica one.']);
    expect(slack.socketsOpened).toBe(0);
  });
});
