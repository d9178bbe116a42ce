// DeerFlow's assistants, served from Warren's: the graphs' system assistants and the caller's
// stored assistants (runtime/assistants.service.ts), then the caller's custom agents as DeerFlow
// lists them (an assistant named after the agent, on the lead agent's graph).
import { mayReach, ownerFilter, type Identity } from '../auth/identity.js';
import type { CustomAgent, CustomAgentStore } from '../agents/agents.js';
import type { AssistantsService } from '../runtime/assistants.service.js';
import type { AssistantSearch, GraphSchemas } from '../runtime/assistants.schemas.js';
import type { Assistant } from '../store/records.js';
import { AssistantNotFoundError } from '../store/store.errors.js';
import type { DfAssistant, DfGraph } from './deerflow-assistants.schemas.js';

export interface DeerFlowAssistantsDeps {
  assistants: Pick<AssistantsService, 'search' | 'get' | 'schemas' | 'drawable'>;
  agents: Pick<CustomAgentStore, 'list' | 'get'>;
  /** The graph custom agents run on. */
  agentGraph: string;
}

/** Everything matching is read before paging: the system, stored and agent lists are merged. */
const ALL = 1000;

const fromAssistant = (a: Partial<Assistant>): DfAssistant => ({
  assistant_id: a.assistant_id ?? '',
  graph_id: a.graph_id ?? '',
  name: a.name ?? a.assistant_id ?? '',
  config: a.config ?? {},
  metadata: a.metadata ?? {},
  description: a.description ?? null,
  created_at: a.created_at ?? '',
  updated_at: a.updated_at ?? '',
  version: a.version ?? 1,
});

export function createDeerFlowAssistantsService(deps: DeerFlowAssistantsDeps) {
  const fromAgent = (agent: CustomAgent): DfAssistant => ({
    assistant_id: agent.name,
    graph_id: deps.agentGraph,
    name: agent.name,
    config: {},
    metadata: { created_by: 'user' },
    description: agent.description,
    created_at: agent.created_at,
    updated_at: agent.updated_at,
    version: 1,
  });

  /** The assistant, else the caller's custom agent of that name; the graph it runs on. */
  const resolve = async (id: string, identity: Identity): Promise<{ answer: DfAssistant; graphOf: string }> => {
    try {
      return { answer: fromAssistant(await deps.assistants.get(id)), graphOf: id };
    } catch (err) {
      if (!(err instanceof AssistantNotFoundError)) throw err;
      const agent = await deps.agents.get(id.toLowerCase());
      if (!agent || !mayReach(identity, agent.owner)) throw new AssistantNotFoundError(`Assistant ${id} not found`);
      return { answer: fromAgent(agent), graphOf: deps.agentGraph };
    }
  };

  return {
    async search(body: AssistantSearch, identity: Identity): Promise<DfAssistant[]> {
      const { assistants } = await deps.assistants.search({ ...body, select: undefined, limit: ALL, offset: 0 }, identity);
      const out = assistants.map(fromAssistant);
      const seen = new Set(out.map((a) => a.assistant_id));
      const name = body.name?.toLowerCase();
      if (!body.graph_id || body.graph_id === deps.agentGraph) {
        for (const agent of await deps.agents.list(ownerFilter(identity).owner)) {
          if (seen.has(agent.name) || (name && !agent.name.includes(name)) || body.metadata) continue;
          out.push(fromAgent(agent));
        }
      }
      return out.slice(body.offset, body.offset + body.limit);
    },

    async get(id: string, identity: Identity): Promise<DfAssistant> {
      return (await resolve(id, identity)).answer;
    },

    async graph(id: string, identity: Identity): Promise<DfGraph> {
      const { answer, graphOf } = await resolve(id, identity);
      const drawn = await deps.assistants.drawable(graphOf, false);
      return { ...drawn, graph_id: answer.graph_id, nodes: Array.isArray(drawn.nodes) ? drawn.nodes : [], edges: Array.isArray(drawn.edges) ? drawn.edges : [] };
    },

    async schemas(id: string, identity: Identity): Promise<GraphSchemas> {
      return deps.assistants.schemas((await resolve(id, identity)).graphOf);
    },
  };
}

export type DeerFlowAssistantsService = ReturnType<typeof createDeerFlowAssistantsService>;
