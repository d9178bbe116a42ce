// Custom agents: names are stored lower-case (DeerFlow's rule), a model must be configured, and
// tool groups must be known, so a run never meets an agent it cannot honour.
import type { AppConfig } from '../config/app-config.schemas.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { TOOL_GROUPS, type CustomAgent, type CustomAgentStore } from '../store/custom-agents.js';
import type { Agent, AgentCheck, AgentCreate, AgentList, AgentUpdate } from './agents.schemas.js';

const answer = ({ created_at: _created, updated_at: _updated, ...agent }: CustomAgent): Agent => agent;

export function createAgentsService(deps: { agents: CustomAgentStore; config: Pick<AppConfig, 'models'> }) {
  const { agents } = deps;

  const check = (fields: Pick<AgentUpdate, 'model' | 'tool_groups'>): void => {
    if (fields.model && !deps.config.models.some((m) => m.name === fields.model)) {
      throw new ValidationError(`model: '${fields.model}' is not a configured model (configured: ${deps.config.models.map((m) => m.name).join(', ') || 'none'}).`);
    }
    const unknown = (fields.tool_groups ?? []).filter((g) => !(TOOL_GROUPS as readonly string[]).includes(g));
    if (unknown.length > 0) throw new ValidationError(`tool_groups: unknown group ${unknown.map((g) => `'${g}'`).join(', ')} (known: ${TOOL_GROUPS.join(', ')}).`);
  };
  const require = async (name: string): Promise<CustomAgent> => {
    const agent = await agents.get(name.toLowerCase());
    if (!agent) throw new NotFoundError(`Agent '${name.toLowerCase()}' not found.`);
    return agent;
  };

  return {
    async list(): Promise<AgentList> {
      return { agents: (await agents.list()).map(answer) };
    },

    async check(name: string): Promise<AgentCheck> {
      const normalized = name.toLowerCase();
      return { available: (await agents.get(normalized)) === null, name: normalized };
    },

    async get(name: string): Promise<Agent> {
      return answer(await require(name));
    },

    async create(body: AgentCreate): Promise<Agent> {
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
      };
      if (!(await agents.create(agent))) throw new ConflictError(`Agent '${agent.name}' already exists.`);
      return answer(agent);
    },

    async update(name: string, body: AgentUpdate): Promise<Agent> {
      check(body);
      const updated = await agents.update(name.toLowerCase(), (current) => ({
        ...current,
        ...body,
        description: body.description === null ? '' : (body.description ?? current.description),
        soul: body.soul === null ? '' : (body.soul ?? current.soul),
        updated_at: new Date().toISOString(),
      }));
      if (!updated) throw new NotFoundError(`Agent '${name.toLowerCase()}' not found.`);
      return answer(updated);
    },

    async remove(name: string): Promise<{ success: boolean; message: string }> {
      const normalized = name.toLowerCase();
      if (!(await agents.remove(normalized))) throw new NotFoundError(`Agent '${normalized}' not found.`);
      return { success: true, message: `Agent '${normalized}' deleted.` };
    },
  };
}

export type AgentsService = ReturnType<typeof createAgentsService>;
