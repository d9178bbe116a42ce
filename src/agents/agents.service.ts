// Custom agents: names are stored lower-case (DeerFlow's rule), a model must be configured, and
// tool groups must be known, so a run never meets an agent it cannot honour.
import { mayReach, ownerFilter, type Identity } from '../auth/identity.js';
import type { AppConfig } from '../config/app-config.schemas.js';
import { AgentExistsError, AgentModelUnknownError, AgentNotFoundError, AgentToolGroupUnknownError } from './agents.errors.js';
import { TOOL_GROUPS, type CustomAgent, type CustomAgentStore } from './custom-agent-store.js';
import type { Agent, AgentCheck, AgentCreate, AgentList, AgentUpdate } from './agents.schemas.js';

const answer = ({ created_at: _created, updated_at: _updated, owner: _owner, ...agent }: CustomAgent): Agent => agent;

export function createAgentsService(deps: { agents: CustomAgentStore; config: Pick<AppConfig, 'models'> }) {
  const { agents } = deps;

  const check = (fields: Pick<AgentUpdate, 'model' | 'tool_groups'>): void => {
    if (fields.model && !deps.config.models.some((m) => m.name === fields.model)) {
      throw new AgentModelUnknownError(`model: '${fields.model}' is not a configured model (configured: ${deps.config.models.map((m) => m.name).join(', ') || 'none'}).`);
    }
    const unknown = (fields.tool_groups ?? []).filter((g) => !(TOOL_GROUPS as readonly string[]).includes(g));
    if (unknown.length > 0) throw new AgentToolGroupUnknownError(`tool_groups: unknown group ${unknown.map((g) => `'${g}'`).join(', ')} (known: ${TOOL_GROUPS.join(', ')}).`);
  };
  /** Another user's agent answers as one that does not exist. */
  const require = async (name: string, caller: Identity): Promise<CustomAgent> => {
    const agent = await agents.get(name.toLowerCase());
    if (!agent || !mayReach(caller, agent.owner)) throw new AgentNotFoundError(`Agent '${name.toLowerCase()}' not found.`);
    return agent;
  };

  return {
    async list(caller: Identity): Promise<AgentList> {
      return { agents: (await agents.list(ownerFilter(caller).owner)).map(answer) };
    },

    async check(name: string): Promise<AgentCheck> {
      const normalized = name.toLowerCase();
      return { available: (await agents.get(normalized)) === null, name: normalized };
    },

    async get(name: string, caller: Identity): Promise<Agent> {
      return answer(await require(name, caller));
    },

    async create(body: AgentCreate, caller: Identity): Promise<Agent> {
      check(body);
      const now = new Date().toISOString();
      const agent: CustomAgent = {
        name: body.name.toLowerCase(),
        display_name: body.display_name ?? null,
        description: body.description ?? '',
        model: body.model ?? null,
        tool_groups: body.tool_groups ?? null,
        skills: body.skills ?? null,
        soul: body.soul ?? '',
        created_at: now,
        updated_at: now,
        owner: caller.user,
      };
      if (!(await agents.create(agent))) throw new AgentExistsError(`Agent '${agent.name}' already exists.`);
      return answer(agent);
    },

    async update(name: string, body: AgentUpdate, caller: Identity): Promise<Agent> {
      check(body);
      await require(name, caller);
      const updated = await agents.update(name.toLowerCase(), (current) => ({
        ...current,
        ...body,
        description: body.description === null ? '' : (body.description ?? current.description),
        soul: body.soul === null ? '' : (body.soul ?? current.soul),
        updated_at: new Date().toISOString(),
      }));
      if (!updated) throw new AgentNotFoundError(`Agent '${name.toLowerCase()}' not found.`);
      return answer(updated);
    },

    async remove(name: string, caller: Identity): Promise<{ success: boolean; message: string }> {
      const normalized = name.toLowerCase();
      await require(normalized, caller);
      if (!(await agents.remove(normalized))) throw new AgentNotFoundError(`Agent '${normalized}' not found.`);
      return { success: true, message: `Agent '${normalized}' deleted.` };
    },
  };
}

export type AgentsService = ReturnType<typeof createAgentsService>;
