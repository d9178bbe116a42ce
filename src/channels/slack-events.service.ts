// Slack's Events API: a request is taken only when Slack signed it (HMAC-SHA256 with the app's
// signing secret over `v0:<timestamp>:<raw body>`, compared in constant time) within the last
// five minutes (older is a replay). Slack's check of the address is answered with its challenge;
// an event is recorded in Slack's inbox in Redis, once per event id (Slack retries a delivery it
// saw no answer to), for the worker that holds Slack's lease. Nothing else is done here, so the
// answer goes back well inside Slack's three seconds, and any API replica can take it.
import { createHmac } from 'node:crypto';
import { sameSecret } from '../auth/constant-time.js';
import type { SlackChannelConfig } from '../config/app-config.schemas.js';
import { resolveEnvRef } from '../config/load-config.js';
import type { ChannelStore } from './channel-store.js';
import { ChannelEventMalformedError, ChannelEventsOffError, ChannelSignatureInvalidError } from './channels.errors.js';
import type { SlackEventsReply } from './slack-events.schemas.js';

/** How old a request's timestamp may be (either way: a sender's clock runs a little off). */
export const SLACK_REQUEST_MAX_AGE_SECONDS = 5 * 60;

export interface SlackEventsServiceDeps {
  config: SlackChannelConfig;
  inbox: Pick<ChannelStore, 'recordEvent'>;
  env?: NodeJS.ProcessEnv;
  /** Milliseconds since the epoch; a test's clock. */
  now?: () => number;
}

/** The `X-Slack-Signature` Slack sends with a body at a timestamp. */
export function slackSignature(secret: string, timestamp: string, rawBody: Buffer | string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:`).update(rawBody).digest('hex')}`;
}

export function createSlackEventsService(deps: SlackEventsServiceDeps) {
  const { config } = deps;
  const secret = resolveEnvRef(config.signing_secret, deps.env).value || null;
  const now = deps.now ?? Date.now;

  function verify(rawBody: Buffer, signature: string | undefined, timestamp: string | undefined): void {
    if (!signature || !timestamp) throw new ChannelSignatureInvalidError('Missing X-Slack-Signature or X-Slack-Request-Timestamp: requests must be signed by Slack.');
    const seconds = Number(timestamp);
    if (!/^\d{1,12}$/.test(timestamp) || Math.abs(now() / 1000 - seconds) > SLACK_REQUEST_MAX_AGE_SECONDS) {
      throw new ChannelSignatureInvalidError('X-Slack-Request-Timestamp is not within five minutes of now: the request is refused as a possible replay.');
    }
    if (!sameSecret(signature, slackSignature(secret as string, timestamp, rawBody))) throw new ChannelSignatureInvalidError('X-Slack-Signature does not match the body: the request is not from Slack.');
  }

  return {
    async receive(rawBody: Buffer, signature: string | undefined, timestamp: string | undefined): Promise<SlackEventsReply> {
      if (!config.enabled || secret === null) {
        throw new ChannelEventsOffError('Slack events are not taken here: set channels.slack.enabled and channels.slack.signing_secret in config.yaml.');
      }
      verify(rawBody, signature, timestamp);
      let body: unknown;
      try {
        body = JSON.parse(rawBody.toString('utf8'));
      } catch {
        throw new ChannelEventMalformedError('The body is not JSON.');
      }
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ChannelEventMalformedError('The body is not a JSON object.');
      const { type, challenge, event_id: eventId } = body as Record<string, unknown>;
      if (type === 'url_verification') {
        if (typeof challenge !== 'string') throw new ChannelEventMalformedError('url_verification without a challenge.');
        return { challenge };
      }
      if (type !== 'event_callback') return { ok: true };
      if (typeof eventId !== 'string' || eventId === '' || eventId.length > 128) throw new ChannelEventMalformedError('event_callback without an event_id.');
      await deps.inbox.recordEvent('slack', eventId, JSON.stringify(body));
      return { ok: true };
    },
  };
}

export type SlackEventsService = ReturnType<typeof createSlackEventsService>;
