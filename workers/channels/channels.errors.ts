// The causes a chat platform's connection stops or refuses an event with, in the worker holding it.
import { defineError } from '../../src/errors.js';

/** This worker no longer holds the channel's lease, so its connection stops (a 5xx: no message is refused, the next holder takes it). */
export const ChannelLeaseLostError = defineError('WARREN_CHANNEL_LEASE_LOST', 503);
/** An event was not recorded (no event id, or the connection is closing), so it is left unacknowledged for the platform to deliver again. */
export const ChannelEventNotTakenError = defineError('WARREN_CHANNEL_EVENT_NOT_TAKEN', 503);
