// The causes run admission refuses a run with (HTTP runs and cron ticks alike).
import { defineError } from '../errors.js';

/** The run's webhook is not an http(s) URL, or does not reach a public host. */
export const WebhookRefusedError = defineError('WARREN_WEBHOOK_REFUSED', 422);
/** The run's `agent_name` names no custom agent the caller has. */
export const RunAgentUnknownError = defineError('WARREN_RUN_AGENT_UNKNOWN', 422);
