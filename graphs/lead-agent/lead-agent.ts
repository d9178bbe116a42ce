// The built-in `lead_agent` graph. One turn: prepare (thread folders, summarisation), then the
// model and its tool calls until it answers, then a title after the first exchange.
// Model clients and tools come in through GraphServices: the worker passes its own; the API
// builds the graph without them, to read and update state, and its nodes refuse to run there.
import type { BaseMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { END, START, StateGraph } from '@langchain/langgraph';
import type { AppConfig } from '../../src/config/app-config.schemas.js';
import { InternalInvariantError, RunError } from '../../src/errors.js';
import type { CustomAgent } from '../../src/agents/agents.js';
import { createThreadFiles, USER_DATA_AREAS, virtualPath } from '../../src/workspace/thread-files.js';
import type { GraphServices } from '../graph-services.js';
import type { GraphContext } from '../graph-services.js';
import { hasToolCalls, modelStep, toolsStep } from './agent-loop.js';
import { memoryPromptSection } from './memory-prompt.js';
import { BOOTSTRAP_SKILL, leadAgentPrompt } from './prompts.js';
import { pickModel, runOptions } from './run-options.js';
import { LeadAgentState, type LeadAgentStateType } from './state.js';
import { createLocalSubagentRunner, createTaskTool, type SubagentRunner } from './subagents.js';
import { summarizeIfNeeded } from './summarize.js';
import { activeContext, viewOf } from './compaction.js';
import { listSkillsForPrompt, listUploadsForPrompt } from './thread-context.js';
import { generateTitle } from './title.js';

/** The run's model (or the one named), with the run's thinking options. */
async function modelFor(appConfig: AppConfig, services: GraphServices, config: RunnableConfig, name?: string) {
  const options = runOptions(config);
  const entry = pickModel(appConfig.models, name ?? options.modelName);
  const model = await services.chatModel(entry, {
    thinkingEnabled: options.thinkingEnabled,
    ...(options.reasoningEffort ? { reasoningEffort: options.reasoningEffort } : {}),
  });
  return { entry, model };
}

/** Runs sub-agents in this process, with the run's model and the sub-agent tool sets. */
export function createSubagentRunnerFor(appConfig: AppConfig, services: GraphServices): SubagentRunner {
  return createLocalSubagentRunner({
    model: async (config) => (await modelFor(appConfig, services, config)).model,
    tools: (kind) => services.toolbox.forSubagent(kind),
  });
}

/** The custom agent the run names, if any; one that vanished since the run was accepted fails it. */
async function customAgentFor(services: GraphServices, config: RunnableConfig): Promise<CustomAgent | null> {
  const { agentName: name, isBootstrap } = runOptions(config);
  // A bootstrap run designs the agent it names: there is none to load yet (DeerFlow loads none either).
  if (!name || isBootstrap) return null;
  const agent = services.customAgents ? await services.customAgents.get(name) : null;
  if (!agent) throw new RunError('UnknownAgent', `No custom agent named '${name}' (see GET /api/agents).`);
  return agent;
}

function requireServices(services: GraphServices | undefined): GraphServices {
  if (!services) throw new InternalInvariantError('lead_agent runs only in a worker process');
  return services;
}

export function buildLeadAgent(appConfig: AppConfig, services: GraphServices | undefined) {
  // Sub-agents run as their own queued jobs when the process offers a task queue (workers do),
  // so they spread over the workers; otherwise in this process.
  let localRunner: SubagentRunner | undefined;
  const runner: SubagentRunner = (job, options) => {
    const queued = services?.tasks;
    if (queued) return queued.run(job, options);
    localRunner ??= createSubagentRunnerFor(appConfig, requireServices(services));
    return localRunner(job, options);
  };
  const task = createTaskTool({
    runner,
    maxConcurrent: appConfig.subagents.max_concurrent,
    timeoutMs: appConfig.subagents.timeout_seconds * 1000,
  });

  /** The run's own model_name wins over the custom agent's model, as in DeerFlow. */
  const runTools = async (config: RunnableConfig, agent: CustomAgent | null) => {
    const options = runOptions(config);
    const entry = pickModel(appConfig.models, options.modelName ?? agent?.model ?? undefined);
    const toolGroups = agent?.tool_groups ?? null;
    return { options, ...(await requireServices(services).toolbox.forRun(options, entry, { task, toolGroups })) };
  };

  const prepare = async (state: LeadAgentStateType, config: RunnableConfig) => {
    const { home } = requireServices(services);
    const threadId = runOptions(config).threadId;
    const files = createThreadFiles(home);
    await Promise.all(USER_DATA_AREAS.map((area) => files.ensureArea(threadId, area)));
    const update: Partial<LeadAgentStateType> = {};
    if (!state.sandbox) update.sandbox = { sandbox_id: threadId };
    if (!state.thread_data) {
      update.thread_data = {
        workspace_path: virtualPath('workspace', '').replace(/\/$/, ''),
        uploads_path: virtualPath('uploads', '').replace(/\/$/, ''),
        outputs_path: virtualPath('outputs', '').replace(/\/$/, ''),
      };
    }
    const { enabled, trigger_tokens: triggerTokens, keep_messages: keepMessages, model_name: summaryModel } = appConfig.summarization;
    if (enabled) {
      const { model } = await modelFor(appConfig, requireServices(services), config, summaryModel);
      const summary = await summarizeIfNeeded(model, activeContext(state.messages, viewOf), { triggerTokens, keepMessages }, config);
      if (summary) update.messages = summary.messages;
    }
    return update;
  };

  const agent = async (state: LeadAgentStateType, config: RunnableConfig) => {
    const svc = requireServices(services);
    const agent = await customAgentFor(svc, config);
    const modelName = runOptions(config).modelName ?? agent?.model ?? undefined;
    const [{ model }, run] = await Promise.all([modelFor(appConfig, svc, config, modelName), runTools(config, agent)]);
    const [uploads, allSkills, memory] = await Promise.all([
      listUploadsForPrompt(createThreadFiles(svc.home), run.options.threadId),
      listSkillsForPrompt(svc.skillsDir, svc.extensionsConfigPath, appConfig.skills.container_path),
      memoryForPrompt(svc, run.options.threadId),
    ]);
    // Bootstrap runs see only the `bootstrap` skill, as in DeerFlow; other runs never see it,
    // since they have no setup_agent to follow it with.
    const skillNames = run.options.isBootstrap ? [BOOTSTRAP_SKILL] : agent?.skills;
    const skills = skillNames ? allSkills.filter((s) => skillNames.includes(s.name)) : allSkills.filter((s) => s.name !== BOOTSTRAP_SKILL);
    const prompt = leadAgentPrompt({
      ...(run.options.isBootstrap && run.options.agentName ? { bootstrapAgent: run.options.agentName } : {}),
      ...(agent?.soul ? { soul: agent.soul } : {}),
      ...(memory ? { memory } : {}),
      skills,
      uploads,
      planMode: run.options.planMode,
      subagents: run.options.subagents,
      bash: run.bash,
      now: new Date(),
    });
    // A compacted thread keeps its old messages for the UI; the model gets the summary and what follows it.
    return { messages: [await modelStep(model, prompt, activeContext(state.messages, viewOf), run.tools, config)] };
  };

  /** Read at every model call: an update that landed mid-run shows in the next call. */
  const memoryForPrompt = async (svc: GraphServices, threadId: string): Promise<string> => {
    const { enabled, injection_enabled: injectionEnabled, max_injection_tokens: maxTokens } = appConfig.memory;
    if (!enabled || !injectionEnabled || !svc.memory) return '';
    return memoryPromptSection(await svc.memory.read(threadId), maxTokens);
  };

  const runToolCalls = async (state: LeadAgentStateType, config: RunnableConfig) =>
    toolsStep(state.messages.at(-1), (await runTools(config, await customAgentFor(requireServices(services), config))).tools, config);

  const nameThread = async (state: LeadAgentStateType, config: RunnableConfig) => {
    const { max_words: maxWords, max_chars: maxChars, model_name: titleModel } = appConfig.title;
    const { model } = await modelFor(appConfig, requireServices(services), config, titleModel);
    return { title: await generateTitle(model, state.messages, { maxWords, maxChars }, config) };
  };

  const afterModel = (state: LeadAgentStateType) => {
    if (hasToolCalls(state.messages.at(-1))) return 'tools';
    const answered = state.messages.some((m: BaseMessage) => m.getType() === 'ai');
    return appConfig.title.enabled && !state.title && answered ? 'name_thread' : END;
  };

  return new StateGraph(LeadAgentState)
    .addNode('prepare', prepare)
    .addNode('agent', agent)
    .addNode('tools', runToolCalls)
    .addNode('name_thread', nameThread)
    .addEdge(START, 'prepare')
    .addEdge('prepare', 'agent')
    .addConditionalEdges('agent', afterModel, ['tools', 'name_thread', END])
    .addEdge('tools', 'agent')
    .addEdge('name_thread', END)
    .compile();
}

const compiled = new WeakMap<GraphContext, ReturnType<typeof buildLeadAgent>>();

/** Graph factory for the registry: one compiled graph per process context. */
export function leadAgentGraph(_config: RunnableConfig | undefined, context: GraphContext) {
  let graph = compiled.get(context);
  if (!graph) {
    graph = buildLeadAgent(context.appConfig, context.services);
    compiled.set(context, graph);
  }
  return graph;
}
