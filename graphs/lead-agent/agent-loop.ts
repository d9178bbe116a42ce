// The two steps every agent here repeats: ask the model (with its tools bound), then run the
// tool calls it made. Shared by the lead agent and its sub-agents.
import { AIMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { RunnableConfig } from '@langchain/core/runnables';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { Command, isGraphInterrupt } from '@langchain/langgraph';
import { isRepeatedToolCall, repairToolCalls } from './history.js';
import { liftToolImages } from './tool-images.js';
import { textOf } from './title.js';

export const LOOP_STOPPED_NOTE =
  'I stopped here because I was about to repeat the same tool call with the same arguments again, which was not making progress.';

/** One model call. Returns the message to append. */
export async function modelStep(
  model: BaseChatModel,
  systemPrompt: string,
  messages: readonly BaseMessage[],
  tools: readonly StructuredToolInterface[],
  config: RunnableConfig,
): Promise<AIMessage> {
  const bound = tools.length > 0 && model.bindTools ? model.bindTools([...tools]) : model;
  let history = repairToolCalls(messages);
  // Chat-completions style APIs take only text in tool results: images move to a user message.
  if (!acceptsImagesInToolResults(model)) history = liftToolImages(history);
  const response = (await bound.invoke([new SystemMessage(systemPrompt), ...history], config)) as AIMessage;
  if (!isRepeatedToolCall(messages, response)) return response;
  // Keep the text, drop the looping calls: the turn ends with an explanation.
  const text = textOf(response).trim();
  return new AIMessage({ content: text ? `${text}\n\n${LOOP_STOPPED_NOTE}` : LOOP_STOPPED_NOTE, ...(response.id ? { id: response.id } : {}) });
}

const acceptsImagesInToolResults = (model: BaseChatModel) => model._llmType() === 'anthropic';

const isAbort = (err: unknown) => err instanceof Error && (err.name === 'AbortError' || /abort/i.test(err.message));

/**
 * Runs the last AI message's tool calls in parallel. A tool that throws becomes an error tool
 * message and the run goes on; interrupts and cancellation propagate. Tools may return a
 * Command whose update is merged (messages and artifacts append, other keys replace).
 */
export async function toolsStep(
  last: BaseMessage | undefined,
  tools: readonly StructuredToolInterface[],
  config: RunnableConfig,
): Promise<Record<string, unknown>> {
  const calls = last && last.getType() === 'ai' ? ((last as AIMessage).tool_calls ?? []) : [];
  const byName = new Map(tools.map((t) => [t.name, t]));
  const results = await Promise.all(
    calls.map(async (call): Promise<ToolMessage | Command> => {
      const id = call.id ?? '';
      const tool = byName.get(call.name);
      if (!tool) {
        return new ToolMessage({ content: `Error: there is no tool named "${call.name}".`, tool_call_id: id, name: call.name, status: 'error' });
      }
      try {
        const out: unknown = await tool.invoke({ ...call, id, type: 'tool_call' }, config);
        if (out instanceof Command || out instanceof ToolMessage) return out;
        return new ToolMessage({ content: typeof out === 'string' ? out : JSON.stringify(out), tool_call_id: id, name: call.name });
      } catch (err) {
        if (isGraphInterrupt(err) || config.signal?.aborted || isAbort(err)) throw err;
        const message = err instanceof Error ? err.message : String(err);
        return new ToolMessage({ content: `Error: ${message}`, tool_call_id: id, name: call.name, status: 'error' });
      }
    }),
  );
  const update: Record<string, unknown> = { messages: [] as BaseMessage[] };
  for (const result of results) {
    if (result instanceof ToolMessage) {
      (update.messages as BaseMessage[]).push(result);
      continue;
    }
    for (const [key, value] of Object.entries((result.update ?? {}) as Record<string, unknown>)) {
      if ((key === 'messages' || key === 'artifacts') && Array.isArray(value)) {
        update[key] = [...((update[key] as unknown[]) ?? []), ...value];
      } else {
        update[key] = value;
      }
    }
  }
  return update;
}

export const hasToolCalls = (message: BaseMessage | undefined): boolean =>
  message?.getType() === 'ai' && ((message as AIMessage).tool_calls?.length ?? 0) > 0;
