// The storage ops, composed: what `main.ts` of each process builds and hands down.
import type { Logger } from 'pino';
import type { RedisClient } from './store/redis.js';
import { createAccountStore, type AccountStore } from './store/accounts.js';
import { createAssistantStore, type AssistantStore } from './store/assistants.js';
import { createChannelConnectionsStore, createChannelStore, type ChannelConnectionsStore, type ChannelStore } from './channels/channels.js';
import { RedisCheckpointSaver } from './store/checkpointer.js';
import { createCronStore, type CronStore } from './crons/crons.js';
import { createCustomAgentStore, type CustomAgentStore } from './agents/agents.js';
import { createMemoryStore, type MemoryStore } from './memory/memory.js';
import { createMemoryTurnStore, type MemoryTurnStore } from './memory/memory.js';
import { createRunStreams, type RunStreams } from './store/run-stream.js';
import { createRunStore, type RunStore } from './store/runs.js';
import { createRunUsageStore, type RunUsageStore } from './store/run-usage.js';
import { loadScripts } from './store/scripts.js';
import { ignoreDamaged, jsonReader, warnOncePerKey } from './store/json.js';
import { createFeedbackStore, type FeedbackStore } from './store/feedback.js';
import { createGoalStore, type GoalStore } from './store/goals.js';
import { createItemStore, type ItemStore, type StoreSettings } from './store/store-items.js';
import { createThreadStore, type ThreadStore } from './store/threads.js';

export interface Stores {
  threads: ThreadStore;
  runs: RunStore;
  streams: RunStreams;
  usage: RunUsageStore;
  checkpointer: RedisCheckpointSaver;
  customAgents: CustomAgentStore;
  assistants: AssistantStore;
  /** The long-term store (LangGraph's BaseStore, `/store/items`). */
  items: ItemStore;
  /** Each user's memory document, kept among `items`. */
  memory: MemoryStore;
  /** Turns waiting for each user's next memory update, and who is to run it. */
  memoryTurns: MemoryTurnStore;
  crons: CronStore;
  channels: ChannelStore;
  /** Chat platforms' credentials saved from the UI, connect codes and account bindings. */
  channelConnections: ChannelConnectionsStore;
  /** DeerFlow's run feedback, per thread. */
  feedback: FeedbackStore;
  /** DeerFlow's thread goals. */
  goals: GoalStore;
  /** People's accounts and sessions (`auth.accounts`). */
  accounts: AccountStore;
}

/** No semantic index and no expiry: what config.yaml's `store` defaults to. */
export const PLAIN_STORE: StoreSettings = { defaultTtlMinutes: null, refreshOnRead: true, index: null };

/**
 * `log` hears of a stored record that is not JSON (warned once per key; the record reads as its
 * default). Without it (tests, tools) such damage goes unreported.
 */
export function createStores(redis: RedisClient, store: StoreSettings = PLAIN_STORE, log?: Pick<Logger, 'warn'>): Stores {
  const scripts = loadScripts(redis);
  const onDamaged = log ? warnOncePerKey(log) : ignoreDamaged;
  const items = createItemStore(redis, scripts, store, onDamaged);
  return {
    threads: createThreadStore(redis, scripts, onDamaged),
    runs: createRunStore(redis, scripts, onDamaged),
    streams: createRunStreams(redis, scripts),
    usage: createRunUsageStore(redis, scripts),
    checkpointer: new RedisCheckpointSaver(redis),
    customAgents: createCustomAgentStore(redis, scripts),
    assistants: createAssistantStore(redis, scripts, onDamaged),
    items,
    memory: createMemoryStore(items),
    memoryTurns: createMemoryTurnStore(redis, scripts, onDamaged),
    crons: createCronStore(redis, scripts, onDamaged),
    channels: createChannelStore(redis, scripts),
    channelConnections: createChannelConnectionsStore(redis, scripts),
    feedback: createFeedbackStore(redis, jsonReader(onDamaged)),
    goals: createGoalStore(redis, jsonReader(onDamaged)),
    accounts: createAccountStore(redis, scripts),
  };
}
