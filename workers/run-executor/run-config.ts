// A run's kwargs (checked against the queue contract, src/queue/run-kwargs.ts) → what
// LangGraph.js takes: the input (or Command), and the config.
import { Command } from '@langchain/langgraph';
import type { RunnableConfig } from '@langchain/core/runnables';
import type { RunKwargs } from '../../src/queue/run-kwargs.js';
import type { StoredRun } from '../../src/store/records.js';

export function graphInput(kwargs: RunKwargs, resumeFromCheckpoint: boolean): unknown {
  // After a crash with progress made, continue from the last checkpoint instead of re-sending
  // the input (which would append the user's message twice).
  if (resumeFromCheckpoint) return null;
  if (kwargs.command) {
    const { resume, update, goto } = kwargs.command;
    return new Command({
      ...(resume !== undefined ? { resume } : {}),
      ...(update !== undefined && update !== null ? { update: update as Record<string, unknown> } : {}),
      ...(goto !== undefined && goto !== null ? { goto: goto as string } : {}),
    });
  }
  return kwargs.input ?? null;
}

export function graphConfig(run: StoredRun, kwargs: RunKwargs, attempt: number, defaultRecursionLimit: number) {
  const context = kwargs.context ?? {};
  const configurable: Record<string, unknown> = {
    ...(kwargs.config?.configurable ?? {}),
    // Context values reach the graph just as configurable ones do.
    ...context,
    thread_id: run.thread_id,
    run_id: run.run_id,
    assistant_id: run.assistant_id,
    graph_id: run.kwargs.graph_id ?? run.assistant_id,
  };
  if (kwargs.checkpoint?.checkpoint_id) configurable.checkpoint_id = kwargs.checkpoint.checkpoint_id;
  const config: RunnableConfig & { context?: unknown; interruptBefore?: '*' | string[]; interruptAfter?: '*' | string[] } = {
    configurable,
    context,
    recursionLimit: kwargs.config?.recursion_limit ?? defaultRecursionLimit,
    tags: kwargs.config?.tags,
    metadata: { ...run.metadata, run_id: run.run_id, thread_id: run.thread_id, run_attempt: attempt },
    runId: run.run_id,
    ...(kwargs.interrupt_before ? { interruptBefore: kwargs.interrupt_before } : {}),
    ...(kwargs.interrupt_after ? { interruptAfter: kwargs.interrupt_after } : {}),
  };
  return config;
}
