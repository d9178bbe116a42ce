// The turns a user's next memory update will read, and who is to run it. A finished turn of the
// lead agent is added to the user's list; the first turn with no update due claims the update
// (a token under `memoryUpdateDue`) and queues it, delayed by the debounce, so every turn until
// it runs joins that one update. The update reads the turns, forgets those it read, and releases
// its claim; turns that came meanwhile claim the next one. One update per user runs at a time.
import type { RedisClient } from '../store/redis.js';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { keys } from '../store/keys.js';
import { jsonReader, type OnDamagedRecord } from '../store/json.js';
import { requireScript, type ScriptCaller } from '../store/scripts.js';
import { RedisTransactionAbortedError } from '../store/store.errors.js';

export const MemoryTurnSchema = Type.Object({
  thread_id: Type.String(),
  /** The turn's conversation: the user's words and the agent's answers, without tool traffic. */
  messages: Type.Array(Type.Object({ role: Type.Union([Type.Literal('user'), Type.Literal('assistant')]), content: Type.String() })),
  /** When the turn ended (ISO); also keeps two identical turns apart in the list. */
  at: Type.String(),
});
export type MemoryTurn = Static<typeof MemoryTurnSchema>;

/** Turns kept per user while they wait: past it the oldest are dropped (a backlog, not a history). */
export const MAX_WAITING_TURNS = 50;

export interface WaitingTurn {
  turn: MemoryTurn;
  /** As stored, to forget exactly this entry. */
  raw: string;
}

export interface MemoryTurnStore {
  /**
   * Adds the turn. True when no update was due: the caller now holds the claim under `token`
   * (for `claimMs` at most) and must queue the update.
   */
  add(userId: string, turn: MemoryTurn, token: string, claimMs: number): Promise<boolean>;
  /** Claims the next update if turns wait and none is due (after an update, for turns that came meanwhile). */
  claimIfWaiting(userId: string, token: string, claimMs: number): Promise<boolean>;
  waiting(userId: string): Promise<WaitingTurn[]>;
  forget(userId: string, turns: readonly WaitingTurn[]): Promise<void>;
  /** Gives up the claim, if `token` still holds it. */
  release(userId: string, token: string): Promise<void>;
}

export function createMemoryTurnStore(redis: RedisClient, scripts: Record<string, ScriptCaller>, onDamaged: OnDamagedRecord): MemoryTurnStore {
  const json = jsonReader(onDamaged);
  const releaseToken = requireScript(scripts, 'releaseLock');
  const claim = async (userId: string, token: string, claimMs: number) => (await redis.set(keys.memoryUpdateDue(userId), token, 'PX', claimMs, 'NX')) === 'OK';

  return {
    async add(userId, turn, token, claimMs) {
      const list = keys.memoryTurns(userId);
      const replies = await redis
        .multi()
        .rpush(list, JSON.stringify(turn))
        .ltrim(list, -MAX_WAITING_TURNS, -1)
        .set(keys.memoryUpdateDue(userId), token, 'PX', claimMs, 'NX')
        .exec();
      const failed = replies?.find(([err]) => err);
      if (!replies || failed) throw failed?.[0] ?? new RedisTransactionAbortedError('memory turn not stored');
      return replies[2]?.[1] === 'OK';
    },

    async claimIfWaiting(userId, token, claimMs) {
      if ((await redis.llen(keys.memoryTurns(userId))) === 0) return false;
      return claim(userId, token, claimMs);
    },

    async waiting(userId) {
      const list = keys.memoryTurns(userId);
      const raws = await redis.lrange(list, 0, -1);
      return raws.flatMap((raw) => {
        const turn = json<unknown>(raw, null, list);
        return Value.Check(MemoryTurnSchema, turn) ? [{ turn, raw }] : [];
      });
    },

    async forget(userId, turns) {
      if (turns.length === 0) return;
      const pipeline = redis.pipeline();
      for (const { raw } of turns) pipeline.lrem(keys.memoryTurns(userId), 1, raw);
      await pipeline.exec();
    },

    async release(userId, token) {
      await releaseToken([keys.memoryUpdateDue(userId)], [token]);
    },
  };
}
