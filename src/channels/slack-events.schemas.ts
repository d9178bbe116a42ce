// POST /api/channels/slack/events: Slack's Events API requests (https://docs.slack.dev/apis/events-api).
import { Type, type Static } from 'typebox';

export const SlackEventsHeadersSchema = Type.Object({
  /** `v0=` and the hex HMAC-SHA256 of `v0:<timestamp>:<raw body>` with the app's signing secret. */
  'x-slack-signature': Type.Optional(Type.String({ maxLength: 256 })),
  /** Seconds since the epoch when Slack sent the request; older than five minutes is refused. */
  'x-slack-request-timestamp': Type.Optional(Type.String({ maxLength: 32 })),
});

/** Slack's checks of the address (`url_verification`): its challenge, echoed. */
export const SlackChallengeReplySchema = Type.Object({ challenge: Type.String() });

/** An event taken: recorded for the worker that holds Slack's connection (or a retry of one already recorded). */
export const SlackEventTakenSchema = Type.Object({ ok: Type.Boolean() });

export const SlackEventsReplySchema = Type.Union([SlackChallengeReplySchema, SlackEventTakenSchema]);
export type SlackEventsReply = Static<typeof SlackEventsReplySchema>;
