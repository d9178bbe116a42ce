// Slack's connection, run by the worker that holds its lease. Events reach Redis first (the
// inbox): in `socket` mode from the Socket Mode connection this worker opens, in `events` mode
// from POST /api/channels/slack/events on any API replica. This worker reads the inbox, handles
// each event until it is durably a run (or a reply) and only then removes it, fenced by its
// lease, so an event that was received is never dropped, even when its holder dies mid-way.
import { setTimeout as delay } from 'node:timers/promises';
import type { SlackChannelConfig } from '../../src/config/app-config.schemas.js';
import type { ChannelStore, InboxEntry } from '../../src/store/channels.js';
import { createChatMessages, type ConnectionParts } from './chat-messages.js';
import { slackText } from './slack-answers.js';
import { slackRetry, type SlackApi } from './slack-api.js';
import { incomingOf, messageEventOf } from './slack-events.js';
import { runSocketMode } from './slack-socket.js';

/** How long one read of the inbox waits for an event. */
const INBOX_WAIT_MS = 2_000;

export interface SlackConnectionDeps extends ConnectionParts {
  config: SlackChannelConfig;
  api: SlackApi;
  /** The app-level token, for Socket Mode. */
  appToken: string | null;
  store: Pick<ChannelStore, 'report' | 'owed' | 'recordEvent' | 'dropEvent'>;
  /** Waits up to `blockMs` for inbox entries after `after`. */
  waitForInbox(after: string, blockMs: number): Promise<InboxEntry[]>;
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

export function createSlackConnection(deps: SlackConnectionDeps) {
  const { api, config, log, store } = deps;
  const messages = createChatMessages({
    platform: 'Slack',
    allowedUsers: config.allowed_users,
    readable: 'text and files',
    chatRuns: deps.chatRuns,
    answers: deps.answers,
    uploads: deps.uploads,
    files: deps.files,
    fileLimit: deps.maxFileBytes,
    retry: slackRetry,
    log,
  });

  /** Records an event Slack delivered (once per event id). */
  async function record(body: Record<string, unknown>): Promise<void> {
    const eventId = typeof body.event_id === 'string' && body.event_id !== '' ? body.event_id : null;
    if (eventId === null) return;
    await store.recordEvent('slack', eventId, JSON.stringify(body));
  }

  /** Handles one inbox entry until it is done; a refusal is answered, an outage waited out. */
  async function handleEntry(entry: InboxEntry, botUserId: string, signal: AbortSignal): Promise<void> {
    let body: unknown;
    try {
      body = JSON.parse(entry.body);
    } catch {
      log.warn({ entry: entry.id }, 'slack: an inbox entry is not JSON; passed over');
      return;
    }
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
        await store.report('slack', { connected: false, last_error: errorText(err) }).catch(() => undefined);
        await delay(slackRetry.backoffMs(attempt, err), undefined, { signal });
      }
    }
  }

  /** Holds the connection until `signal` aborts; `token` fences the inbox removals. */
  async function run(token: string, held: AbortSignal): Promise<void> {
    if (config.allowed_users.length === 0) log.warn('slack: allowed_users is empty, so anyone in the workspace who finds the bot can start runs');
    // Ends the socket too when reading fails here: the lease holder then opens both anew.
    const ending = new AbortController();
    const signal = AbortSignal.any([held, ending.signal]);
    let socket: Promise<void> = Promise.resolve();
    try {
      const identity = await authorize(signal);
      for (const owed of await store.owed('slack')) deps.answers.follow(owed);
      if (config.mode === 'socket' && deps.appToken) {
        socket = runSocketMode(
          {
            appToken: deps.appToken,
            baseUrl: config.base_url,
            record,
            onConnected: () => store.report('slack', { connected: true, last_error: null }),
            onDropped: (err) => store.report('slack', { connected: false, last_error: errorText(err) }),
            log,
          },
          signal,
        ).catch((err: unknown) => {
          // Not expected (it retries whatever fails): the connection is dropped and opened anew.
          log.error({ err }, 'slack: Socket Mode stopped');
          ending.abort(err);
        });
      } else {
        await store.report('slack', { connected: true, last_error: null });
      }
      let after = '0-0';
      while (!signal.aborted) {
        const entries = await deps.waitForInbox(after, INBOX_WAIT_MS).catch((err: unknown) => {
          if (signal.aborted) return [];
          throw err;
        });
        for (const entry of entries) {
          await handleEntry(entry, identity.userId, signal);
          if (!(await store.dropEvent('slack', token, entry.id))) throw new Error('the lease was taken over; this worker stops reading Slack events');
          after = entry.id;
        }
      }
    } finally {
      ending.abort(new Error('the Slack connection ended'));
      deps.answers.stopAll();
      await socket;
    }
  }

  return { run, record };
}
