// Assistants: each configured graph's system assistant (id = graph id, read-only, never stored),
// and assistants clients create in Redis, with versions. Runs resolve their assistant here.
import { checkCreate, matchesAccessFilter, type AccessPolicy } from '../auth/access.js';
import { mayReach, ownerFilter, type Identity } from '../auth/identity.js';
import { randomUUID } from 'node:crypto';
import { GraphBuildFailedError, GraphNotFoundError } from '../../graphs/graphs.errors.js';
import type { GraphRegistry, HostedGraph } from '../../graphs/registry.js';
import { resolveRunAssistant, systemAssistantDefaults, type RunAssistant, type RunConfig } from '../admission/run-assistant.js';
import type { SystemAssistantDefaults } from '../config/langgraph-config.js';
import { isWarrenError } from '../errors.js';
import { matchesFilter } from '../store/json.js';
import { nowIso, type Assistant, type AssistantVersion } from '../store/records.js';
import type { StoredAssistant } from '../store/assistants.js';
import { AssistantNotFoundError } from '../store/store.errors.js';
import type { Stores } from '../stores.js';
import type {
  AssistantCount,
  AssistantCreate,
  AssistantField,
  AssistantPatch,
  AssistantSearch,
  AssistantVersionsQuery,
  GraphSchemas,
} from './assistants.schemas.js';
import { channelSchemas, NO_SCHEMAS, runtimeSchemas, toGraphSchemas, withEndpointSchemas, type SchemaParts } from './graph-schemas.js';
import type { TypeSchemas } from './type-schemas/type-schemas.js';
import { AssistantContendedError, AssistantExistsError, AssistantReadOnlyError, AssistantVersionNotFoundError } from './runtime.errors.js';

export interface AssistantsServiceDeps {
  stores: Pick<Stores, 'assistants' | 'threads'>;
  graphs: Pick<GraphRegistry, 'has' | 'ids' | 'load' | 'schemaExtractors'>;
  /** Deletes a thread with its runs and checkpoints (DELETE with `delete_threads`). */
  removeThread(threadId: string): Promise<void>;
  /** A custom auth module's handlers (OPEN_ACCESS: none). */
  access: AccessPolicy;
  /** The system assistants' config and context (LANGGRAPH_CONFIG). */
  systemDefaults?: ReadonlyMap<string, SystemAssistantDefaults>;
  /** Schemas from the TypeScript types of graphs that give none of their own. */
  typeSchemas: Pick<TypeSchemas, 'covers' | 'forGraph'>;
}

/** Concurrent writers retry their compare-and-set; this many lost races in a row is a conflict. */
const MAX_ATTEMPTS = 20;

const versionOf = ({ updated_at: _updated, ...version }: Assistant): AssistantVersion => version;

function compareBy(key: AssistantField, order: 'asc' | 'desc') {
  const dir = order === 'asc' ? 1 : -1;
  return (a: Assistant, b: Assistant) => {
    const x = String(a[key] ?? '');
    const y = String(b[key] ?? '');
    return x < y ? -dir : x > y ? dir : 0;
  };
}

export function createAssistantsService(deps: AssistantsServiceDeps) {
  const store = deps.stores.assistants;
  const bootedAt = nowIso();
  const systemAssistant = (graphId: string): Assistant => ({
    assistant_id: graphId,
    graph_id: graphId,
    name: graphId,
    description: null,
    ...systemAssistantDefaults(deps, graphId),
    metadata: { created_by: 'system' },
    version: 1,
    created_at: bootedAt,
    updated_at: bootedAt,
  });
  const isSystem = (id: string) => deps.graphs.has(id);

  const requireGraph = (graphId: string) => {
    if (!deps.graphs.has(graphId)) throw new GraphNotFoundError(`Graph "${graphId}" not found. Configured graphs: ${deps.graphs.ids().join(', ')}.`);
  };
  const refuseSystem = (id: string, what: string) => {
    if (isSystem(id)) {
      throw new AssistantReadOnlyError(`Assistant ${id} is the system assistant of graph ${id}, which is read-only: ${what} is refused. Create an assistant for the graph instead.`);
    }
  };
  const requireStored = async (id: string): Promise<StoredAssistant> => {
    const stored = await store.get(id);
    if (!stored) throw new AssistantNotFoundError(`Assistant ${id} not found`);
    return stored;
  };
  const get = async (id: string): Promise<Assistant> => (isSystem(id) ? systemAssistant(id) : (await requireStored(id)).assistant);

  /** Reads, changes and writes back, again while another replica's write comes in between. */
  async function update(id: string, change: (current: StoredAssistant, now: string) => { assistant: Assistant; maxVersion: number; version?: AssistantVersion }) {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const current = await requireStored(id);
      const next = change(current, nowIso());
      if (await store.save({ expected: current.maxVersion, ...next })) return next.assistant;
    }
    throw new AssistantContendedError(`Assistant ${id} is being changed by other requests; try again`);
  }

  async function matching(filter: AssistantCount, caller: Identity): Promise<Assistant[]> {
    const name = filter.name?.toLowerCase();
    const accessFilter = await deps.access.check({ identity: caller, resource: 'assistants', action: 'search', value: { ...filter } });
    // System assistants are everyone's; stored ones the caller's own (an admin's: all).
    const all = [...deps.graphs.ids().map(systemAssistant), ...(await store.all(ownerFilter(caller).owner))];
    return all.filter(
      (a) =>
        (!filter.graph_id || a.graph_id === filter.graph_id) &&
        (!name || a.name.toLowerCase().includes(name)) &&
        (!filter.metadata || matchesFilter(a.metadata, filter.metadata)) &&
        matchesAccessFilter(a.metadata, accessFilter),
    );
  }

  async function loadGraph(id: string): Promise<{ assistant: Assistant; graph: HostedGraph }> {
    const assistant = await get(id);
    requireGraph(assistant.graph_id);
    const config = assistant.config as RunConfig;
    try {
      return { assistant, graph: await deps.graphs.load(assistant.graph_id, config.configurable ? { configurable: config.configurable } : undefined) };
    } catch (err) {
      // The project's code threw (a factory refusing this config, a node named like a state key):
      // the caller learns why, rather than an anonymous 500.
      if (isWarrenError(err)) throw err;
      const why = err instanceof Error ? err.message : String(err);
      throw new GraphBuildFailedError(`Graph "${assistant.graph_id}" could not be built with assistant ${id}'s config: ${why}`);
    }
  }

  /**
   * A graph's schemas (or its subgraph's at `namespace`): its own (Zod), else from its TypeScript
   * types, else its channels when it is JavaScript. A subgraph the types do not name gets its
   * root graph's, as LangGraph's server answers. `typed` is set when they came from the types.
   */
  async function schemaParts(graphId: string, graph: HostedGraph, namespace?: string): Promise<{ parts: SchemaParts; typed: boolean }> {
    const own = runtimeSchemas(graph, await deps.graphs.schemaExtractors(graphId));
    if (own) return { parts: own, typed: false };
    if (!deps.typeSchemas.covers(graphId)) return { parts: channelSchemas(graph), typed: false };
    const derived = await deps.typeSchemas.forGraph(graphId);
    if (!derived) return { parts: NO_SCHEMAS, typed: false };
    return { parts: (namespace !== undefined ? derived.subgraphs[namespace] : undefined) ?? derived.root, typed: true };
  }

  return {
    get,

    async create(body: AssistantCreate, caller: Identity): Promise<Assistant> {
      requireGraph(body.graph_id);
      const id = body.assistant_id ?? randomUUID();
      const ifExists = body.if_exists ?? 'raise';
      const metadata = await checkCreate(deps.access, caller, 'assistants', { ...body, assistant_id: id });
      const now = nowIso();
      const assistant: Assistant = {
        assistant_id: id,
        graph_id: body.graph_id,
        name: body.name || 'Untitled',
        description: body.description ?? null,
        config: body.config ?? {},
        context: body.context ?? {},
        metadata,
        version: 1,
        created_at: now,
        updated_at: now,
      };
      if (!isSystem(id) && (await store.save({ expected: null, assistant, maxVersion: 1, version: versionOf(assistant), owner: caller.user }))) return assistant;
      // `do_nothing` answers the existing assistant, unless it is another user's.
      if (ifExists === 'raise' || (!isSystem(id) && !mayReach(caller, (await store.ownership(id)).owner))) throw new AssistantExistsError(`Assistant ${id} already exists`);
      return get(id);
    },

    async patch(id: string, body: AssistantPatch): Promise<Assistant> {
      refuseSystem(id, 'changing it');
      if (body.graph_id !== undefined) requireGraph(body.graph_id);
      return update(id, ({ assistant, maxVersion }, now) => {
        const next: Assistant = {
          ...assistant,
          graph_id: body.graph_id ?? assistant.graph_id,
          config: body.config ?? assistant.config,
          context: body.context ?? assistant.context,
          metadata: body.metadata ? { ...assistant.metadata, ...body.metadata } : assistant.metadata,
          name: body.name ?? assistant.name,
          description: body.description !== undefined ? body.description : assistant.description,
          version: maxVersion + 1,
          created_at: now,
          updated_at: now,
        };
        // A version's created_at is when it was made; the assistant keeps its own.
        return { assistant: { ...next, created_at: assistant.created_at }, maxVersion: next.version, version: versionOf(next) };
      });
    },

    async remove(id: string, deleteThreads: boolean, caller: Identity): Promise<void> {
      refuseSystem(id, 'deleting it');
      await requireStored(id);
      if (deleteThreads) {
        const { threads } = await deps.stores.threads.search({
          ...ownerFilter(caller),
          metadata: { assistant_id: id },
          limit: Number.MAX_SAFE_INTEGER,
          offset: 0,
          sort_by: 'created_at',
          sort_order: 'asc',
        });
        for (const thread of threads) await deps.removeThread(thread.thread_id);
      }
      if (!(await store.remove(id))) throw new AssistantNotFoundError(`Assistant ${id} not found`);
    },

    async search(body: AssistantSearch, caller: Identity): Promise<{ assistants: Partial<Assistant>[]; total: number }> {
      const found = (await matching(body, caller)).sort(compareBy(body.sort_by ?? 'created_at', body.sort_order ?? 'desc'));
      const page = found.slice(body.offset, body.offset + body.limit);
      const select = body.select;
      const assistants = select ? page.map((a) => Object.fromEntries(select.map((f) => [f, a[f]])) as Partial<Assistant>) : page;
      return { assistants, total: found.length };
    },

    count: async (body: AssistantCount, caller: Identity): Promise<number> => (await matching(body, caller)).length,

    async versions(id: string, query: AssistantVersionsQuery): Promise<AssistantVersion[]> {
      const all = isSystem(id) ? [versionOf(systemAssistant(id))] : await store.versions(id);
      if (all.length === 0) throw new AssistantNotFoundError(`Assistant ${id} not found`);
      return all
        .filter((v) => !query.metadata || matchesFilter(v.metadata, query.metadata))
        .sort((a, b) => b.version - a.version)
        .slice(query.offset, query.offset + query.limit);
    },

    async setLatest(id: string, version: number): Promise<Assistant> {
      if (isSystem(id)) {
        if (version !== 1) throw new AssistantVersionNotFoundError(`Assistant ${id} has no version ${version}`);
        return systemAssistant(id);
      }
      const chosen = await store.version(id, version);
      if (!chosen) {
        await requireStored(id);
        throw new AssistantVersionNotFoundError(`Assistant ${id} has no version ${version}`);
      }
      return update(id, ({ assistant, maxVersion }, now) => ({
        assistant: { ...chosen, created_at: assistant.created_at, updated_at: now },
        maxVersion,
      }));
    },

    async schemas(id: string): Promise<GraphSchemas> {
      const { assistant, graph } = await loadGraph(id);
      return toGraphSchemas(assistant.graph_id, (await schemaParts(assistant.graph_id, graph)).parts);
    },

    async subgraphs(id: string, namespace: string | undefined, recurse: boolean): Promise<Record<string, GraphSchemas>> {
      const { assistant, graph } = await loadGraph(id);
      const out: Record<string, GraphSchemas> = {};
      for await (const [ns, subgraph] of graph.getSubgraphsAsync(namespace, recurse)) {
        out[ns] = toGraphSchemas(assistant.graph_id, (await schemaParts(assistant.graph_id, subgraph as HostedGraph, ns)).parts);
      }
      return out;
    },

    async drawable(id: string, xray: boolean | number): Promise<Record<string, unknown>> {
      const { assistant, graph } = await loadGraph(id);
      // Pregel's own signature omits `xray`, which its graphs honour.
      const getGraph = graph.getGraphAsync.bind(graph) as (config: { xray?: boolean | number }) => ReturnType<typeof graph.getGraphAsync>;
      const drawn = (await getGraph({ xray })).toJSON() as Record<string, unknown>;
      // Only schemas from types are drawn in: a Zod graph is drawn as LangGraph.js draws it.
      const { parts, typed } = await schemaParts(assistant.graph_id, graph);
      return typed ? withEndpointSchemas(drawn, parts) : drawn;
    },
  };
}

export type AssistantsService = ReturnType<typeof createAssistantsService>;
