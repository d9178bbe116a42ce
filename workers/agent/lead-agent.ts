// The built-in `lead_agent` graph: a conversational agent whose model is chosen per run
// (`model_name`), and which names the conversation after the first exchange. Tools, skills,
// sub-agents and plan mode extend this graph (issue 5).
import { AIMessage, SystemMessage, type BaseMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { Annotation, END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import type { AppConfig } from '../../src/config/app-config.schemas.js';
import type { GraphContext } from '../../src/graphs/registry.js';
import { createChatModel, pickModel } from './model-factory.js';
import { LEAD_AGENT_PROMPT, titlePrompt } from './prompts.js';

export const LeadAgentState = Annotation.Root({
  ...MessagesAnnotation.spec,
  title: Annotation<string | null>({ reducer: (_, next) => next, default: () => null }),
  artifacts: Annotation<string[]>({
    reducer: (current, next) => [...new Set([...(current ?? []), ...(next ?? [])])],
    default: () => [],
  }),
  sandbox: Annotation<Record<string, unknown> | null>({ reducer: (_, next) => next, default: () => null }),
  thread_data: Annotation<Record<string, unknown> | null>({ reducer: (_, next) => next, default: () => null }),
  todos: Annotation<unknown[]>({ reducer: (_, next) => next, default: () => [] }),
});
export type LeadAgentStateType = typeof LeadAgentState.State;

function runOptions(config: RunnableConfig) {
  const c = config.configurable ?? {};
  return {
    modelName: c.model_name,
    thinkingEnabled: c.thinking_enabled === true,
    reasoningEffort: typeof c.reasoning_effort === 'string' ? (c.reasoning_effort as 'low' | 'medium' | 'high') : undefined,
  };
}

export function buildLeadAgent(appConfig: AppConfig) {
  const agent = async (state: LeadAgentStateType, config: RunnableConfig) => {
    const options = runOptions(config);
    const model = await createChatModel(pickModel(appConfig.models, options.modelName), {
      thinkingEnabled: options.thinkingEnabled,
      ...(options.reasoningEffort ? { reasoningEffort: options.reasoningEffort } : {}),
    });
    const response = await model.invoke([new SystemMessage(LEAD_AGENT_PROMPT), ...state.messages], config);
    return { messages: [response] };
  };

  const title = async (state: LeadAgentStateType, config: RunnableConfig) => {
    const { max_words: maxWords, max_chars: maxChars, model_name: titleModel } = appConfig.title;
    const options = runOptions(config);
    const model = await createChatModel(pickModel(appConfig.models, titleModel ?? options.modelName));
    const exchange = state.messages.slice(0, 2).map((m: BaseMessage) => `${m.getType()}: ${textOf(m)}`).join('\n');
    // Hidden from the token stream: the title is not part of the conversation.
    const reply = await model.invoke([new SystemMessage(titlePrompt(maxWords)), new AIMessage(exchange)], {
      ...config,
      tags: [...(config.tags ?? []), 'nostream'],
    });
    return { title: trimTitle(textOf(reply), maxWords, maxChars) };
  };

  const needsTitle = (state: LeadAgentStateType) =>
    appConfig.title.enabled && !state.title && state.messages.some((m: BaseMessage) => m.getType() === 'ai') ? 'name_thread' : END;

  return new StateGraph(LeadAgentState)
    .addNode('agent', agent)
    .addNode('name_thread', title)
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', needsTitle, ['name_thread', END])
    .addEdge('name_thread', END)
    .compile();
}

export function textOf(message: BaseMessage): string {
  const content = message.content;
  if (typeof content === 'string') return content;
  return content
    .map((part) => (typeof part === 'string' ? part : part.type === 'text' && typeof part.text === 'string' ? part.text : ''))
    .join('');
}

export function trimTitle(raw: string, maxWords: number, maxChars: number): string {
  const words = raw.replace(/["'`*#\n\r]/g, ' ').trim().split(/\s+/).filter(Boolean).slice(0, maxWords);
  let title = words.join(' ');
  if (title.length > maxChars) title = `${title.slice(0, Math.max(1, maxChars - 1)).trimEnd()}…`;
  return title || 'New conversation';
}

const compiled = new WeakMap<AppConfig, ReturnType<typeof buildLeadAgent>>();

/** Graph factory for the registry: one compiled graph per loaded configuration. */
export function leadAgentGraph(_config: RunnableConfig | undefined, context: GraphContext) {
  let graph = compiled.get(context.appConfig);
  if (!graph) {
    graph = buildLeadAgent(context.appConfig);
    compiled.set(context.appConfig, graph);
  }
  return graph;
}
