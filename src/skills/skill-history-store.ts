// Each custom skill's history, in Redis: one list per skill, a JSON revision per entry, oldest
// first. Every API replica reads the same history, and it outlives the skill's folder (a
// deleted skill can be rolled back, as DeerFlow's .jsonl beside the skills allows).
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { keys } from '../store/keys.js';
import type { RedisClient } from '../store/redis.js';

/** What changed a skill: DeerFlow's action names, plus `install` for a `.skill` archive. */
export const SkillHistoryActionSchema = Type.Union([
  Type.Literal('install'),
  Type.Literal('human_edit'),
  Type.Literal('human_delete'),
  Type.Literal('rollback'),
]);

export const SkillRevisionSchema = Type.Object({
  /** 1 for the first entry of the skill's history, then 2, 3… */
  revision: Type.Integer({ minimum: 1 }),
  ts: Type.String(),
  action: SkillHistoryActionSchema,
  author: Type.Literal('human'),
  thread_id: Type.Null(),
  file_path: Type.Literal('SKILL.md'),
  /** SKILL.md before the change; null when there was none (an install). */
  prev_content: Type.Union([Type.String(), Type.Null()]),
  /** SKILL.md after the change; null after a delete. */
  new_content: Type.Union([Type.String(), Type.Null()]),
  /** On a rollback: the `ts` of the entry whose previous content was restored. */
  rollback_from_ts: Type.Optional(Type.String()),
  rollback_from_revision: Type.Optional(Type.Integer({ minimum: 1 })),
});
export type SkillRevision = Static<typeof SkillRevisionSchema>;
export type NewSkillRevision = Omit<SkillRevision, 'revision' | 'ts' | 'author' | 'thread_id' | 'file_path'>;

export interface SkillHistoryStore {
  /** Appends a revision and returns it, numbered. Callers hold the custom skills' lock. */
  append(name: string, entry: NewSkillRevision): Promise<SkillRevision>;
  /** Every revision of the skill, oldest first; [] when it has none. */
  list(name: string): Promise<SkillRevision[]>;
}

export function createSkillHistoryStore(redis: RedisClient, onDamaged: (key: string) => void = () => undefined): SkillHistoryStore {
  return {
    async append(name, entry) {
      const key = keys.customSkillHistory(name);
      // Under the caller's lock no other append runs, so the length read here numbers this one.
      const revision: SkillRevision = {
        revision: (await redis.llen(key)) + 1,
        ts: new Date().toISOString(),
        author: 'human',
        thread_id: null,
        file_path: 'SKILL.md',
        ...entry,
      };
      await redis.rpush(key, JSON.stringify(revision));
      return revision;
    },

    async list(name) {
      const key = keys.customSkillHistory(name);
      const found: SkillRevision[] = [];
      for (const raw of await redis.lrange(key, 0, -1)) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(raw);
        } catch {
          parsed = undefined;
        }
        // A damaged entry is reported and left out; the rest of the history still reads.
        if (Value.Check(SkillRevisionSchema, parsed)) found.push(parsed);
        else onDamaged(key);
      }
      return found;
    },
  };
}
