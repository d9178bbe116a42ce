// What every Warren tool shares: a TypeBox schema (plain JSON Schema to LangChain, a static type
// to us), and the run's thread read from `config.configurable.thread_id` at call time, so one
// tool object serves every run of the worker.
import { tool, type StructuredToolInterface, type ToolRunnableConfig } from '@langchain/core/tools';
import { Type, type Static, type TObject, type TSchema } from 'typebox';
import { isThreadId } from '../../src/workspace/thread-files.js';
import { ToolContextMissingError } from './tools.errors.js';

export interface ToolSpec<S extends TObject> {
  name: string;
  description: string;
  schema: S;
}

/**
 * A LangChain tool whose input is typed from its schema. LangChain validates the input against
 * the JSON Schema before `run` is called, which is what makes the narrowing below sound.
 */
export function defineTool<S extends TObject>(
  spec: ToolSpec<S>,
  run: (input: Static<S>, config: ToolRunnableConfig) => Promise<unknown>,
): StructuredToolInterface {
  return tool((input: unknown, config: ToolRunnableConfig) => run(input as Static<S>, config), {
    name: spec.name,
    description: spec.description,
    schema: spec.schema,
  }) as StructuredToolInterface;
}

/** The thread this call belongs to. Missing only when a tool is invoked outside a run. */
export function threadIdOf(config: ToolRunnableConfig): string {
  const threadId: unknown = config.configurable?.thread_id;
  if (typeof threadId !== 'string' || !isThreadId(threadId)) {
    throw new ToolContextMissingError('This tool needs a thread: config.configurable.thread_id is missing or invalid.');
  }
  return threadId;
}

/** The id of the tool call being answered (set by ToolNode, or by invoking with a ToolCall). */
export function toolCallIdOf(config: ToolRunnableConfig): string {
  const id = config.toolCall?.id;
  if (typeof id !== 'string' || id === '') throw new ToolContextMissingError('This tool must be called through a tool call (no tool_call_id).');
  return id;
}

/**
 * DeerFlow's sandbox tools take a short reason first, which its UI shows as the step's label.
 * Declared so that a model prompted the DeerFlow way is asked for it; running the tool ignores it.
 */
export const StepDescription = Type.Optional(
  Type.String({ maxLength: 1000, description: 'Explain in a few words why you are doing this. Give this argument first.' }),
);

/** DeerFlow advertises optional arguments as nullable, so models send `null` for "not given". */
export const nullable = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));
