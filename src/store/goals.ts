// A thread's goal (DeerFlow's `/goal`): one JSON string under the thread's tag, deleted with it.
import { keys } from './keys.js';
import type { JsonReader } from './json.js';
import type { RedisClient } from './redis.js';

/** DeerFlow's GoalState, as its UI reads it. */
export interface GoalState {
  objective: string;
  status: 'active';
  created_at: string;
  updated_at: string;
  continuation_count: number;
  max_continuations: number;
  no_progress_count: number;
  max_no_progress_continuations: number;
}

export interface GoalStore {
  get(threadId: string): Promise<GoalState | null>;
  set(threadId: string, goal: GoalState): Promise<void>;
  remove(threadId: string): Promise<void>;
}

export function createGoalStore(redis: RedisClient, json: JsonReader): GoalStore {
  return {
    async get(threadId) {
      return json<GoalState | null>(await redis.get(keys.threadGoal(threadId)), null, keys.threadGoal(threadId));
    },
    async set(threadId, goal) {
      await redis.set(keys.threadGoal(threadId), JSON.stringify(goal));
    },
    async remove(threadId) {
      await redis.del(keys.threadGoal(threadId));
    },
  };
}
