// Webhooks: the POST a run's creator asked for when the run ends, sent by the worker that finished
// it, retried as a BullMQ job through the same outbound guard as the agent's web tools.
// API side, here: the queue contract (webhook-queue.ts). Worker side: workers/webhooks/webhook-worker.ts.
// This module is the feature's door: code outside src/webhooks/ imports only from here.
export { WebhookJobSchema, createWebhookDispatcher, webhookQueueName } from './webhook-queue.js';
export type { WebhookDispatcher, WebhookJob } from './webhook-queue.js';
