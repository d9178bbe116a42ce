// Custom agents (DeerFlow's `/api/agents`): a persona (`soul`), a model and a tool-group list
// under a name. Every agent is one field of one hash, so a create is one HSETNX and every API
// replica and worker reads the same set; nothing is kept on disk.
import type { RedisClient } from '../store/redis.js';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { keys } from '../store/keys.js';
import { createOwnerIndex } from '../store/owners.js';
import { requireScript, type ScriptCaller } from '../store/scripts.js';

/** Letters, digits and hyphens, stored lower-case: a name is never a path. */
export const AGENT_NAME_PATTERN = '^[A-Za-z0-9-]{1,64}$';
const NAME_RE = new RegExp(AGENT_NAME_PATTERN);
/** The groups a custom agent may limit its tools to, as DeerFlow names them. */
export const TOOL_GROUPS = ['web', 'file:read', 'file:write', 'bash', 'mcp'] as const;
export type ToolGroup = (typeof TOOL_GROUPS)[number];

export const isAgentName = (name: string): boolean => NAME_RE.test(name);

export const CustomAgentSchema = Type.Object({
  name: Type.String({ pattern: AGENT_NAME_PATTERN }),
  display_name: Type.Union([Type.String({ maxLength: 128 }), Type.Null()]),
  description: Type.String({ maxLength: 4096 }),
  /** A configured model's name; null uses the run's or the default model. */
  model: Type.Union([Type.String({ minLength: 1, maxLength: 128 }), Type.Null()]),
  /** Tool groups the agent may use (`web`, `file:read`, `file:write`, `bash`, `mcp`); null means all. */
  tool_groups: Type.Union([Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 32 }), Type.Null()]),
  /** Skills the agent is told about; null means every enabled skill, [] none. */
  skills: Type.Union([Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: 256 }), Type.Null()]),
  /** The persona prompt (DeerFlow's SOUL.md). */
  soul: Type.String({ maxLength: 64 * 1024 }),
  created_at: Type.String(),
  updated_at: Type.String(),
  /** The user who made it; agents from before owners existed are the anonymous user's. */
  owner: Type.Optional(Type.String()),
});
export type CustomAgent = Static<typeof CustomAgentSchema>;

export interface CustomAgentStore {
  /** Every agent by name; with `owner`, only theirs (read from their own index). */
  list(owner?: string): Promise<CustomAgent[]>;
  get(name: string): Promise<CustomAgent | null>;
  /** False when the name is taken. */
  create(agent: CustomAgent): Promise<boolean>;
  /** Applies `change` to the stored agent atomically; null when there is none. */
  update(name: string, change: (agent: CustomAgent) => CustomAgent): Promise<CustomAgent | null>;
  /** False when there was none. */
  remove(name: string): Promise<boolean>;
}

const parse = (json: string): CustomAgent | null => {
  const value: unknown = JSON.parse(json);
  return Value.Check(CustomAgentSchema, value) ? value : null;
};

export function createCustomAgentStore(redis: RedisClient, scripts: Record<string, ScriptCaller>): CustomAgentStore {
  const key = keys.customAgents();
  const replaceField = requireScript(scripts, 'replaceHashField');
  const owners = createOwnerIndex(redis);
  return {
    async list(owner) {
      let all: Record<string, string>;
      if (owner === undefined) all = await redis.hgetall(key);
      else {
        const names = await owners.ids('agents', owner);
        const values = names.length > 0 ? await redis.hmget(key, ...names) : [];
        all = Object.fromEntries(names.flatMap((name, i) => (values[i] ? [[name, values[i]]] : [])));
      }
      return Object.keys(all)
        .sort()
        .map((name) => parse(all[name] as string))
        .filter((agent): agent is CustomAgent => agent !== null);
    },
    async get(name) {
      const json = await redis.hget(key, name);
      return json === null ? null : parse(json);
    },
    async create(agent) {
      if ((await redis.hsetnx(key, agent.name, JSON.stringify(agent))) !== 1) return false;
      if (agent.owner !== undefined) await owners.add('agents', agent.owner, agent.name, Date.parse(agent.created_at));
      return true;
    },
    async update(name, change) {
      // Compare-and-set on the field: a concurrent change makes us read again, never lose it.
      for (;;) {
        const before = await redis.hget(key, name);
        const current = before === null ? null : parse(before);
        if (current === null) return null;
        const next = change(current);
        if ((await replaceField([key], [name, before as string, JSON.stringify(next)])) === 1) return next;
      }
    },
    async remove(name) {
      const before = await redis.hget(key, name);
      const owner = before === null ? undefined : parse(before)?.owner;
      const removed = (await redis.hdel(key, name)) === 1;
      if (owner !== undefined) await owners.remove('agents', owner, name);
      return removed;
    },
  };
}
