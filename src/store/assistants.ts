// AssistantStore: user-created assistants and their versions. Knows Redis, not HTTP.
// A record is the assistant's current version; every write is a compare-and-set on its
// `max_version` (save-assistant-2.lua), so replicas never hand out one version number twice.
import type { RedisClient } from './redis.js';
import { keys } from './keys.js';
import { createOwnerIndex } from './owners.js';
import { jsonReader, type OnDamagedRecord } from './json.js';
import type { Assistant, AssistantVersion } from './records.js';
import { requireScript, type ScriptCaller } from './scripts.js';

/** What a write is checked against: the record as read, with the highest version ever made. */
export interface StoredAssistant {
  assistant: Assistant;
  maxVersion: number;
  /** Who made it; null for an assistant from before owners existed (the anonymous user's). */
  owner: string | null;
}

export interface AssistantWrite {
  /** The `maxVersion` read before; null when the assistant must not exist yet. */
  expected: number | null;
  assistant: Assistant;
  maxVersion: number;
  /** A version to add beside the record. */
  version?: AssistantVersion;
  /** The owner of a new assistant (`expected: null`); an update keeps the owner it has. */
  owner?: string;
}

export interface AssistantStore {
  get(assistantId: string): Promise<StoredAssistant | null>;
  /** Whether the assistant exists, and whose it is (null: from before owners existed). */
  ownership(assistantId: string): Promise<{ owner: string | null; exists: boolean }>;
  /** False when the assistant changed (or appeared, or went) since `expected` was read. */
  save(write: AssistantWrite): Promise<boolean>;
  versions(assistantId: string): Promise<AssistantVersion[]>;
  version(assistantId: string, version: number): Promise<AssistantVersion | null>;
  remove(assistantId: string): Promise<boolean>;
  /** Every stored assistant, oldest first; with `owner`, only theirs (read from their own index). */
  all(owner?: string): Promise<Assistant[]>;
}

export function createAssistantStore(redis: RedisClient, scripts: Record<string, ScriptCaller>, onDamaged: OnDamagedRecord): AssistantStore {
  const saveScript = requireScript(scripts, 'saveAssistant');
  const owners = createOwnerIndex(redis);
  const json = jsonReader(onDamaged);

  const fromHash = (hash: Record<string, string>, key: string): StoredAssistant | null => {
    const assistant = json<Assistant | null>(hash.record, null, `${key}#record`);
    return assistant ? { assistant, maxVersion: Number(hash.max_version ?? assistant.version), owner: hash.owner ?? null } : null;
  };

  return {
    async get(assistantId) {
      return fromHash(await redis.hgetall(keys.assistant(assistantId)), keys.assistant(assistantId));
    },

    async ownership(assistantId) {
      const [owner, record] = await redis.hmget(keys.assistant(assistantId), 'owner', 'max_version');
      return { owner: owner ?? null, exists: record !== null };
    },

    async save({ expected, assistant, maxVersion, version, owner }) {
      const id = assistant.assistant_id;
      const saved = Number(
        await saveScript(
          [keys.assistant(id), keys.assistantVersions(id)],
          [expected === null ? '' : String(expected), JSON.stringify(assistant), String(maxVersion), version ? String(version.version) : '', version ? JSON.stringify(version) : '', expected === null ? (owner ?? '') : ''],
        ),
      );
      if (saved === 1 && expected === null) {
        await redis.zadd(keys.assistantIndex(), Date.parse(assistant.created_at), id);
        if (owner) await owners.add('assistants', owner, id, Date.parse(assistant.created_at));
      }
      return saved === 1;
    },

    async versions(assistantId) {
      const key = keys.assistantVersions(assistantId);
      const raw = await redis.hvals(key);
      return raw.map((v) => json<AssistantVersion | null>(v, null, key)).filter((v): v is AssistantVersion => v !== null);
    },

    async version(assistantId, version) {
      const key = keys.assistantVersions(assistantId);
      return json<AssistantVersion | null>(await redis.hget(key, String(version)), null, `${key}#${version}`);
    },

    async remove(assistantId) {
      const owner = await redis.hget(keys.assistant(assistantId), 'owner');
      const removed = await redis.del(keys.assistant(assistantId), keys.assistantVersions(assistantId));
      await redis.zrem(keys.assistantIndex(), assistantId);
      if (owner !== null) await owners.remove('assistants', owner, assistantId);
      return removed > 0;
    },

    async all(owner) {
      // Fine to tens of thousands of assistants (each is a small record); search filters in memory.
      const ids = owner === undefined ? await redis.zrange(keys.assistantIndex(), 0, -1) : await owners.ids('assistants', owner);
      // Each assistant is its own slot: one HGET each, sent together.
      const records = await Promise.all(ids.map(async (id) => json<Assistant | null>(await redis.hget(keys.assistant(id), 'record'), null, `${keys.assistant(id)}#record`)));
      return records.filter((assistant): assistant is Assistant => assistant !== null);
    },
  };
}
