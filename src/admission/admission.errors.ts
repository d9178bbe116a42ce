// The causes run admission refuses a run with (HTTP runs and cron ticks alike).
import { defineError } from '../errors.js';

/** The run's webhook is not an http(s) URL, or does not reach a public host. */
export const WebhookRefusedError = defineError('WARREN_WEBHOOK_REFUSED', 422);
/** The run's `agent_name` names no custom agent the caller has. */
export const RunAgentUnknownError = defineError('WARREN_RUN_AGENT_UNKNOWN', 422);
/** A `checkpoint` reference names another thread than the one in the path. */
export const CheckpointThreadMismatchError = defineError('WARREN_CHECKPOINT_THREAD_MISMATCH', 422);
