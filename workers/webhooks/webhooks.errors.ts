// The causes a webhook delivery fails with (a refused address is net's WARREN_NET_HOST_PRIVATE).
import { defineError } from '../../src/errors.js';

/** The receiver answered with a status worth retrying (5xx, 408, 429); BullMQ tries again with backoff. */
export const WebhookDeliveryFailedError = defineError('WARREN_WEBHOOK_DELIVERY_FAILED', 502);
