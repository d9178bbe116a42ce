// Crons: runs on a schedule, as LangGraph's `/api/langgraph/runs/crons` defines them, on BullMQ job
// schedulers (one scheduler for the deployment; a tick's job id makes each tick run once).
// API side, here: the routes, schemas and service, the cron records (cron-store.ts), the tick
// queue's contract (cron-queue.ts) and the schedule arithmetic (cron-schedule.ts).
// Worker side: workers/crons/cron-worker.ts turns a tick into a run through src/admission/cron-tick.ts.
// This module is the feature's door: code outside src/crons/ imports only from here (the API's
// composition roots also reach its routes and service).
export { CronTickJobSchema, createCronScheduler, cronQueueName, tickOf } from './cron-queue.js';
export type { CronTickJob } from './cron-queue.js';
export { ticksBetween } from './cron-schedule.js';
export { createCronStore, cronOwner } from './cron-store.js';
export type { CronRunRef, CronStore } from './cron-store.js';
export { CronNotFoundError } from './crons.errors.js';
