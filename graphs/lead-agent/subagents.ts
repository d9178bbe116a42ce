// The `task` tool: delegates a self-contained piece of work to a sub-agent (general-purpose or
// bash), at most `max_concurrent` at a time per run, each with a timeout. Progress goes to the
// run's stream as `custom` events: task_started, task_running, task_completed, task_failed,
// task_timed_out. Where the sub-agent runs is the runner's business: in this process, or as its
// own queued job on any worker (src/queue/task-queue.ts).
import { HumanMessage, type BaseMessage } from '@langchain/core/messages';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { RunnableConfig } from '@langchain/core/runnables';
import { tool, type StructuredToolInterface, type ToolRunnableConfig } from '@langchain/core/tools';
import { END, MessagesAnnotation, START, StateGraph, type LangGraphRunnableConfig } from '@langchain/langgraph';
import { InternalInvariantError, TaskTimeoutError } from '../../src/errors.js';
import type { TaskJob, TaskRunOptions } from '../../src/queue/task-queue.js';
import { hasToolCalls, modelStep, toolsStep } from './agent-loop.js';
import { SUBAGENT_PROMPTS } from './prompts.js';
import { textOf } from './title.js';

export type SubagentKind = keyof typeof SUBAGENT_PROMPTS;
export const SUBAGENT_KINDS = Object.keys(SUBAGENT_PROMPTS) as SubagentKind[];
export const isSubagentKind = (kind: string): kind is SubagentKind => (SUBAGENT_KINDS as string[]).includes(kind);

/** Runs one sub-agent task to its final text; throws TaskTimeoutError when out of time. */
export type SubagentRunner = (task: TaskJob, options: TaskRunOptions) => Promise<string>;

export interface LocalSubagentDeps {
  model: (config: RunnableConfig) => Promise<BaseChatModel>;
  tools: (kind: SubagentKind, config: RunnableConfig) => Promise<StructuredToolInterface[]>;
  /** Steps one sub-agent may take. */
  recursionLimit?: number;
}

/** The run's own settings (model, thread), without LangGraph's internal keys of the parent. */
export function userConfigurable(configurable: Record<string, unknown> | undefined): Record<string, unknown> {
  return Object.fromEntries(Object.entries(configurable ?? {}).filter(([k]) => !k.startsWith('__') && !k.startsWith('checkpoint_')));
}

function buildSubagentGraph(kind: SubagentKind, deps: LocalSubagentDeps) {
  return new StateGraph(MessagesAnnotation)
    .addNode('agent', async (state, config) => {
      const [model, tools] = await Promise.all([deps.model(config), deps.tools(kind, config)]);
      return { messages: [await modelStep(model, SUBAGENT_PROMPTS[kind], state.messages, tools, config)] };
    })
    .addNode('tools', async (state, config) => toolsStep(state.messages.at(-1), await deps.tools(kind, config), config))
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', (state) => (hasToolCalls(state.messages.at(-1)) ? 'tools' : END), ['tools', END])
    .addEdge('tools', 'agent')
    // A sub-agent keeps no checkpoints of its own: it lives inside one tool call.
    .compile({ checkpointer: false });
}

/** Runs sub-agents in this process. */
export function createLocalSubagentRunner(deps: LocalSubagentDeps): SubagentRunner {
  const graphs = new Map(SUBAGENT_KINDS.map((kind) => [kind, buildSubagentGraph(kind, deps)]));
  return async (task, options) => {
    const { timeoutMs, signal, onProgress } = options;
    const graph = graphs.get(isSubagentKind(task.kind) ? task.kind : 'general-purpose');
    if (!graph) throw new InternalInvariantError(`unknown sub-agent ${task.kind}`);
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    let last: BaseMessage | undefined;
    try {
      // A fresh config (no parent callbacks): the sub-agent's tokens stay out of the parent's
      // message stream; its progress is reported through onProgress.
      const stream = await graph.stream(
        { messages: [new HumanMessage(task.prompt)] },
        {
          configurable: { ...task.configurable, task_id: task.task_id },
          signal: combined,
          streamMode: 'values',
          recursionLimit: deps.recursionLimit ?? 50,
          tags: ['nostream'],
          // Only the worker's observer, never the parent's: its tokens count, but stay out of the
          // parent's message stream.
          ...(options.callbacks ? { callbacks: options.callbacks } : {}),
        },
      );
      for await (const values of stream) {
        const message = (values as { messages: BaseMessage[] }).messages.at(-1);
        if (message && message !== last && message.getType() === 'ai') {
          const text = textOf(message).slice(0, 500);
          if (text) onProgress?.(text);
        }
        last = message;
      }
    } catch (err) {
      if (timeout.aborted && !signal?.aborted) throw new TaskTimeoutError(`timed out after ${Math.round(timeoutMs / 1000)} s`);
      throw err;
    }
    return (last ? textOf(last) : '') || '(the sub-agent returned no text)';
  };
}

/** A counting semaphore per run: calls beyond the limit wait for a free slot. */
class Slots {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly limit: number) {}
  get idle(): boolean {
    return this.active === 0 && this.waiting.length === 0;
  }
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active += 1;
    try {
      return await fn();
    } finally {
      this.active -= 1;
      this.waiting.shift()?.();
    }
  }
}

export interface TaskToolDeps {
  runner: SubagentRunner;
  maxConcurrent: number;
  timeoutMs: number;
}

export function createTaskTool(deps: TaskToolDeps) {
  const slotsByRun = new Map<string, Slots>();

  return tool(
    async (input: unknown, config: ToolRunnableConfig) => {
      const { description, prompt, subagent_type: kindInput } = input as { description: string; prompt: string; subagent_type?: string | null };
      // Any string is taken (as DeerFlow does): an unknown kind is answered with the known ones.
      if (kindInput && !isSubagentKind(kindInput)) return `There is no sub-agent type "${kindInput}". Use one of: ${SUBAGENT_KINDS.join(', ')}.`;
      const kind: SubagentKind = kindInput && isSubagentKind(kindInput) ? kindInput : 'general-purpose';
      const configurable = userConfigurable(config.configurable);
      const runId = String(configurable.run_id ?? 'run');
      const taskId = config.toolCall?.id ?? `${Date.now()}`;
      let slots = slotsByRun.get(runId);
      if (!slots) slotsByRun.set(runId, (slots = new Slots(deps.maxConcurrent)));
      const owned = slots;
      const writer = (config as LangGraphRunnableConfig).writer;
      const emit = (type: string, extra: Record<string, unknown> = {}) => writer?.({ type, task_id: taskId, description, subagent_type: kind, ...extra });
      const task: TaskJob = {
        thread_id: String(configurable.thread_id ?? ''),
        run_id: runId,
        task_id: taskId,
        kind,
        description,
        prompt,
        configurable,
      };

      return owned
        .run(async () => {
          emit('task_started');
          try {
            const result = await deps.runner(task, {
              timeoutMs: deps.timeoutMs,
              ...(config.signal ? { signal: config.signal } : {}),
              onProgress: (message) => emit('task_running', { message }),
            });
            emit('task_completed', { result: result.slice(0, 2000) });
            return result;
          } catch (err) {
            if (config.signal?.aborted) throw err;
            if (err instanceof TaskTimeoutError) {
              emit('task_timed_out');
              throw new TaskTimeoutError(`sub-agent task "${description}" ${err.message}`);
            }
            emit('task_failed', { error: err instanceof Error ? err.message : String(err) });
            throw err;
          }
        })
        .finally(() => {
          if (owned.idle && slotsByRun.get(runId) === owned) slotsByRun.delete(runId);
        });
    },
    {
      name: 'task',
      description:
        'Delegate a self-contained task to a sub-agent and get its final report. subagent_type is "general-purpose" (files, web) or "bash" (shell work). The prompt must contain everything the sub-agent needs; it cannot see this conversation.',
      schema: {
        type: 'object',
        properties: {
          description: { type: 'string', description: 'A short (3-8 word) label for the task.' },
          prompt: { type: 'string', description: 'The full task for the sub-agent.' },
          subagent_type: { type: ['string', 'null'], description: `One of: ${SUBAGENT_KINDS.join(', ')} (default general-purpose).` },
        },
        required: ['description', 'prompt'],
      },
    },
  );
}
