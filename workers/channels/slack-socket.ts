// Slack's Socket Mode (https://docs.slack.dev/apis/events-api/using-socket-mode) through its
// official client (@slack/socket-mode): apps.connections.open with the app token, then a
// WebSocket on which Slack sends envelopes that must be acknowledged. An `events_api` envelope is
// recorded in Redis (the inbox) before it is acknowledged, so an event Slack delivered is never
// dropped: unacknowledged, Slack delivers it again, and the inbox takes an event id only once.
// The client's own reconnecting is off: a dropped or refused connection is opened again here,
// with backoff, for as long as the lease is held.
import { setTimeout as delay } from 'node:timers/promises';
import { SocketModeClient } from '@slack/socket-mode';
import type { Logger } from 'pino';
import { slackClientOptions, slackError, slackLogger, slackRetry } from './slack-api.js';

export interface SocketModeDeps {
  appToken: string;
  baseUrl: string;
  /** Records an `event_callback` body durably; the envelope is acknowledged after. */
  record(body: Record<string, unknown>): Promise<void>;
  onConnected(): Promise<void>;
  onDropped(err: unknown): Promise<void>;
  log: Logger;
}

/** How long a closing socket may take before it is left behind. */
const CLOSE_WAIT_MS = 5_000;

interface Envelope {
  ack(response?: Record<string, unknown>): Promise<void>;
  type: string;
  body: unknown;
}

const isEventCallback = (body: unknown): body is Record<string, unknown> =>
  typeof body === 'object' && body !== null && (body as { type?: unknown }).type === 'event_callback';

const aborted = (signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });

/** Holds a Socket Mode connection until `signal` aborts, opening it again whenever it drops. */
export async function runSocketMode(deps: SocketModeDeps, signal: AbortSignal): Promise<void> {
  const { log } = deps;

  async function onEnvelope({ ack, type, body }: Envelope): Promise<void> {
    try {
      if (type === 'events_api' && isEventCallback(body)) await slackRetry.untilDone(() => deps.record(body), signal, log, 'recording an event');
      // Anything else (a slash command, an interaction) is not a conversation: acknowledged, nothing more.
      await ack();
    } catch (err) {
      log.warn({ err, type }, 'slack: an envelope was not acknowledged; Slack delivers it again');
    }
  }

  let failures = 0;
  while (!signal.aborted) {
    const client = new SocketModeClient({
      appToken: deps.appToken,
      autoReconnectEnabled: false,
      logger: slackLogger(log),
      clientOptions: slackClientOptions(deps.baseUrl),
    });
    const closed = new Promise<void>((resolve) => client.once('disconnected', () => resolve()));
    client.on('slack_event', (envelope: Envelope) => void onEnvelope(envelope));
    let why: unknown = null;
    try {
      const starting = client.start();
      // Given up on when the lease goes first: its failure then has nobody to tell.
      starting.catch(() => undefined); // a start that fails after the race is lost has no one to tell; the loop reconnects
      await Promise.race([starting, aborted(signal)]);
      if (signal.aborted) break;
      failures = 0;
      await deps.onConnected();
      await Promise.race([closed, aborted(signal)]);
      why = new Error('the Socket Mode connection closed');
    } catch (err) {
      // apps.connections.open refused (a 429 names its wait), or the socket did not open.
      why = slackError('apps.connections.open', err);
    } finally {
      await Promise.race([client.disconnect().catch(() => undefined), delay(CLOSE_WAIT_MS, undefined, { ref: false })]); // this client is dropped either way
      client.removeAllListeners('slack_event');
    }
    if (signal.aborted) break;
    failures++;
    log.warn({ err: why, attempt: failures }, 'slack: the Socket Mode connection dropped; opening it again');
    await deps.onDropped(why).catch(() => undefined); // only the status page; `why` was logged just above
    await delay(slackRetry.backoffMs(failures, why), undefined, { signal }).catch(() => undefined); // aborted: the loop's check ends it
  }
}
