// Memory: what the agent remembers about each user across threads (DeerFlow's memory document and
// its facts), kept in the long-term store under a namespace per user.
// API side, here: `/api/memory` (memory.routes.ts, .schemas.ts, .service.ts), the document and its
// revisions, the store of documents (memory-store.ts), the turns waiting for an update
// (memory-turns.ts) and the update job's queue contract (memory-queue.ts).
// Worker side: workers/memory/memory-worker.ts runs the debounced update; the model's part of it is
// graphs/lead-agent/memory-update.ts, and the prompt that injects memory is memory-prompt.ts there.
// This module is the feature's door: code outside src/memory/ imports only from here (the API's
// composition roots also reach its routes and service).
export { isEmptyMemory } from './memory-document.js';
export type { MemoryDocument } from './memory-document.js';
export { MemoryUpdateJobSchema, createMemoryUpdateQueue, memoryQueueName } from './memory-queue.js';
export type { MemoryUpdateJob, MemoryUpdateQueue } from './memory-queue.js';
export { applyRevision, parseRevision } from './memory-revision.js';
export { DEFAULT_MEMORY_USER, createMemoryStore, memoryUserOf } from './memory-store.js';
export type { MemoryStore } from './memory-store.js';
export { turnFromValues } from './memory-turn.js';
export { createMemoryTurnStore } from './memory-turns.js';
export type { MemoryTurn, MemoryTurnStore } from './memory-turns.js';
