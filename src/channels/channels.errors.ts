// The causes the channels API and the platforms' event callbacks (Slack, Feishu) refuse with.
import { defineError } from '../errors.js';

/** No chat channel of that name exists (telegram, slack, feishu). */
export const ChannelNotFoundError = defineError('WARREN_CHANNEL_NOT_FOUND', 404);
/** The channel is not enabled in config.yaml, so there is nothing to restart. */
export const ChannelNotEnabledError = defineError('WARREN_CHANNEL_NOT_ENABLED', 409);
/** The platform's events are not taken over HTTP here: the channel is off, or set to another mode. */
export const ChannelEventsOffError = defineError('WARREN_CHANNEL_EVENTS_OFF', 404);
/** A platform's event is not proven to come from it: a signature, token or timestamp that does not match, or a body that does not decrypt. */
export const ChannelSignatureInvalidError = defineError('WARREN_CHANNEL_SIGNATURE_INVALID', 401);
/** No event can be verified: the channel's verification token is not configured. */
export const ChannelUnverifiableError = defineError('WARREN_CHANNEL_UNVERIFIABLE', 401);
/** A platform's event cannot be read: not a JSON object, a field it needs is missing, or it is encrypted with no key set. */
export const ChannelEventMalformedError = defineError('WARREN_CHANNEL_EVENT_MALFORMED', 400);
