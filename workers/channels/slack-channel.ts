// Slack's connection, run by the worker that holds its lease. Events reach Redis first (the
// inbox): in `socket` mode from the Socket Mode connection this worker opens, in `events` mode
// from POST /api/channels/slack/events on any API replica. This worker works through the inbox
// (workers/channels/inbox.ts).
import { setTimeout as delay } from 'node:timers/promises';
import type { SlackChannelConfig } from '../../src/config/app-config.schemas.js';
import type { ChannelStore } from '../../src/channels/channels.js';
import { createChatMessages, type ConnectionParts } from './chat-messages.js';
import { holdInbox, type InboxHolderDeps } from './inbox.js';
import { slackText } from './slack-answers.js';
import { slackRetry, type SlackApi } from './slack-api.js';
import { incomingOf, messageEventOf } from './slack-events.js';
import { runSocketMode } from './slack-socket.js';

export interface SlackConnectionDeps extends ConnectionParts {
  config: SlackChannelConfig;
  api: SlackApi;
  /** The app-level token, for Socket Mode. */
  appToken: string | null;
  store: InboxHolderDeps['store'] & Pick<ChannelStore, 'recordEvent'>;
  waitForInbox: InboxHolderDeps['waitForInbox'];
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

export function createSlackConnection(deps: SlackConnectionDeps) {
  const { api, config, log, store } = deps;
  const messages = createChatMessages({
    ...deps,
    platform: 'Slack',
    allowedUsers: config.allowed_users,
    readable: 'text and files',
    fileLimit: deps.maxFileBytes,
    retry: slackRetry,
  });

  /** Records an event Slack delivered (once per event id). */
  async function record(body: Record<string, unknown>): Promise<void> {
    const eventId = typeof body.event_id === 'string' && body.event_id !== '' ? body.event_id : null;
    if (eventId === null) return;
    await store.recordEvent('slack', eventId, JSON.stringify(body));
  }

  /** Handles one recorded event until it is done; a refusal is answered, an outage waited out. */
  async function handleEvent(body: unknown, botUserId: string, signal: AbortSignal): Promise<void> {
    const event = messageEventOf(body, botUserId);
    if (!event) return;
    const message = incomingOf(api, event, botUserId);
    const reply = await messages.handle(message, signal);
    if (reply === null) return;
    await slackRetry.untilDone(() => api.postMessage(event.channel, slackText(reply), message.origin.replyTo ?? null), signal, log, 'replying').catch((err: unknown) => {
      if (signal.aborted) throw err;
      // The channel is gone, the bot was removed from it: the message is done with all the same.
      log.warn({ err, channel: event.channel }, 'slack: a reply could not be sent');
    });
  }

  /**
   * The bot's identity (auth.test). A refused token is reported and asked again with backoff,
   * not given up on: the channel's status shows why until the token is fixed.
   */
  async function authorize(signal: AbortSignal) {
    for (let attempt = 1; ; attempt++) {
      try {
        return await api.authTest();
      } catch (err) {
        if (signal.aborted) throw err;
        log.warn({ err, attempt }, 'slack: auth.test failed; trying again');
        await store.report('slack', { connected: false, last_error: errorText(err) }).catch(() => undefined); // only the status page; auth.test is asked again
        await delay(slackRetry.backoffMs(attempt, err), undefined, { signal });
      }
    }
  }

  /** Holds the connection until `signal` aborts; `token` fences the inbox removals. */
  async function run(token: string, held: AbortSignal): Promise<void> {
    if (config.allowed_users.length === 0) log.warn('slack: allowed_users is empty, so anyone in the workspace who finds the bot can start runs');
    await holdInbox('slack', deps, token, held, async (signal) => {
      const identity = await authorize(signal);
      const appToken = config.mode === 'socket' ? deps.appToken : null;
      return {
        listen:
          appToken === null
            ? null
            : (s) =>
                runSocketMode(
                  {
                    appToken,
                    baseUrl: config.base_url,
                    record,
                    onConnected: () => store.report('slack', { connected: true, last_error: null }),
                    onDropped: (err) => store.report('slack', { connected: false, last_error: errorText(err) }),
                    log,
                  },
                  s,
                ),
        handle: (body, s) => handleEvent(body, identity.userId, s),
      };
    });
  }

  return { run, record };
}
