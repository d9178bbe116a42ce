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
/** Credentials from the UI cannot be saved: WARREN_CHANNEL_SECRETS_KEY, which encrypts them at rest, is not set. */
export const ChannelSecretsKeyMissingError = defineError('WARREN_CHANNEL_SECRETS_KEY_MISSING', 409);
/** A platform's credentials as sent are not usable: a required value is missing, or a field is not one the platform takes. */
export const ChannelConfigInvalidError = defineError('WARREN_CHANNEL_CONFIG_INVALID', 400);
/** The platform has no credentials (config.yaml or the UI), or is not running, so nothing can be connected to it yet. */
export const ChannelNotConfiguredError = defineError('WARREN_CHANNEL_NOT_CONFIGURED', 409);
/** No connection of that id is the caller's. */
export const ChannelConnectionNotFoundError = defineError('WARREN_CHANNEL_CONNECTION_NOT_FOUND', 404);
/** The connection comes from config.yaml: it changes there, not through the API. */
export const ChannelConnectionReadOnlyError = defineError('WARREN_CHANNEL_CONNECTION_READ_ONLY', 409);
/** Too many connect codes of the caller are pending for the platform; one must be used or expire first. */
export const ChannelConnectCodesExhaustedError = defineError('WARREN_CHANNEL_CONNECT_CODES_EXHAUSTED', 429);
/** A sealed credential does not open: WARREN_CHANNEL_SECRETS_KEY changed since it was saved, or the value was altered. */
export const ChannelSecretUnreadableError = defineError('WARREN_CHANNEL_SECRET_UNREADABLE', 409);
/** Lark's or Feishu's servers could not be reached, or answered something that is not their API. */
export const LarkUnreachableError = defineError('WARREN_LARK_UNREACHABLE', 502);
/** Lark or Feishu refused a set-up or authorization step (denied, expired, bad credentials): it will not work by retrying. */
export const LarkRefusedError = defineError('WARREN_LARK_REFUSED', 400);
/** The user has not approved the Lark/Feishu page yet, within the wait this call allowed; call again. */
export const LarkPendingError = defineError('WARREN_LARK_PENDING', 504);
/** A newer set-up flow of the Lark integration started for this user; this one is void. */
export const LarkFlowSupersededError = defineError('WARREN_LARK_FLOW_SUPERSEDED', 409);
