// Watches one run's graph through LangChain's callbacks, so no node, model or tool needs to know:
// a span per graph node, model call and tool call (children of the run's span, in LangChain's
// own nesting), the model and tool metrics, and each model call's token usage for the run's tally.
import { SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import type { Serialized } from '@langchain/core/load/serializable';
import type { BaseMessage } from '@langchain/core/messages';
import type { ChatGeneration, LLMResult } from '@langchain/core/outputs';
import type { ChainValues } from '@langchain/core/utils/types';
import type { CallOutcome, WorkerMetrics } from '../../src/metrics/worker-metrics.js';
import type { Logger } from 'pino';
import type { ModelCallUsage, RunUsageStore, UsageCaller } from '../../src/store/run-usage.js';
import { tracer, tracingActive } from '../../src/tracing/tracing.js';

interface Watched {
  /** The context this call's children start in: its own span's, or its parent's when it has none. */
  ctx: Context;
  span?: Span;
  started: number;
  model?: string;
  tool?: string;
  caller?: UsageCaller;
}

export interface RunObserverOptions {
  metrics: Pick<WorkerMetrics, 'modelCall' | 'toolCall'>;
  /** Records one model call's tokens with the run; its failure must not fail the run. */
  recordUsage: (usage: ModelCallUsage) => Promise<void>;
  /** Every call's caller, when known beforehand (a sub-agent's task). */
  caller?: UsageCaller;
}

export interface ObserveRun {
  root: Context;
  metrics: Pick<WorkerMetrics, 'modelCall' | 'toolCall'>;
  usage?: Pick<RunUsageStore, 'add'>;
  threadId: string;
  runId: string;
  log: Logger;
  caller?: UsageCaller;
}

/** An observer whose model calls add their tokens to the run `runId` (a failed write is logged). */
export function observeRun({ root, metrics, usage, threadId, runId, log, caller }: ObserveRun): RunObserver {
  return new RunObserver(root, {
    metrics,
    ...(caller ? { caller } : {}),
    recordUsage: async (call) => {
      // A lost tally costs the thread's token count this call, never the run.
      await usage?.add(threadId, runId, call).catch((err: unknown) => log.warn({ err, model: call.model }, 'could not record token usage'));
    },
  });
}

const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** The model's name: LangChain's `ls_model_name`, else the invocation's `model`, else the class. */
function modelName(llm: Serialized, extraParams?: Record<string, unknown>, metadata?: Record<string, unknown>): string {
  const invocation = extraParams?.invocation_params as Record<string, unknown> | undefined;
  return str(metadata?.ls_model_name) ?? str(invocation?.model) ?? str(invocation?.model_name) ?? llm.id.at(-1) ?? 'unknown';
}

/** Tokens the provider reported for the call, from the message's usage_metadata or the llmOutput. */
function usageOf(output: LLMResult): { input: number; output: number } | undefined {
  for (const generation of output.generations.flat() as ChatGeneration[]) {
    const usage = (generation.message as { usage_metadata?: { input_tokens?: number; output_tokens?: number } } | undefined)?.usage_metadata;
    if (usage) return { input: usage.input_tokens ?? 0, output: usage.output_tokens ?? 0 };
  }
  const legacy = output.llmOutput?.tokenUsage as { promptTokens?: number; completionTokens?: number } | undefined;
  return legacy ? { input: legacy.promptTokens ?? 0, output: legacy.completionTokens ?? 0 } : undefined;
}

export class RunObserver extends BaseCallbackHandler {
  name = 'warren-run-observer';
  // Handled in line, so a span starts and ends when its call does, and the usage write has
  // started before the node that made the call finishes.
  override awaitHandlers = true;
  private readonly watched = new Map<string, Watched>();
  private readonly writes = new Set<Promise<void>>();
  /** Whether spans go anywhere: without an exporter no span is made, not even a no-op one. */
  private readonly tracing = tracingActive();

  constructor(
    private readonly root: Context,
    private readonly options: RunObserverOptions,
  ) {
    super();
    // Chains matter only for node spans (and to nest spans under them): without tracing, every
    // runnable of the graph would call this handler, awaited, for nothing.
    this.ignoreChain = !this.tracing;
  }

  /** Waits for the usage writes started so far (before the run settles, so its tally is complete). */
  async flush(): Promise<void> {
    await Promise.all([...this.writes]);
  }

  private parentCtx(parentRunId?: string): Context {
    return (parentRunId && this.watched.get(parentRunId)?.ctx) || this.root;
  }

  private open(runId: string, parentRunId: string | undefined, name: string | null, attributes: Record<string, string>, extra: Partial<Watched> = {}): void {
    const parent = this.parentCtx(parentRunId);
    if (name === null || !this.tracing) {
      this.watched.set(runId, { ctx: parent, started: performance.now(), ...extra });
      return;
    }
    const span = tracer().startSpan(name, { kind: SpanKind.INTERNAL, attributes }, parent);
    this.watched.set(runId, { ctx: trace.setSpan(parent, span), span, started: performance.now(), ...extra });
  }

  private close(runId: string, err?: unknown): Watched | undefined {
    const entry = this.watched.get(runId);
    this.watched.delete(runId);
    if (entry?.span) {
      if (err !== undefined) {
        entry.span.recordException(err instanceof Error ? err : String(err));
        entry.span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
      }
      entry.span.end();
    }
    return entry;
  }

  private seconds(entry: Watched): number {
    return (performance.now() - entry.started) / 1000;
  }

  // The order CallbackManager passes (parent before tags; run type and name after metadata),
  // which is not the order BaseCallbackHandler's declaration names.
  override handleChainStart(_chain: Serialized, _inputs: ChainValues, runId: string, parentRunId?: string, tags?: string[], metadata?: Record<string, unknown>, _runType?: string, runName?: string): void {
    // A graph node is the chain LangGraph names after it; the graph itself and its internal
    // steps (channel writes, routing) get no span and pass their children on to their parent.
    const node = str(metadata?.langgraph_node);
    const isNode = node !== undefined && runName === node && !tags?.includes('langsmith:hidden');
    this.open(runId, parentRunId, isNode ? `node ${node}` : null, isNode ? { 'langgraph.node': node, 'langgraph.step': String(metadata?.langgraph_step ?? '') } : {});
  }

  override handleChainEnd(_outputs: ChainValues, runId: string): void {
    this.close(runId);
  }

  override handleChainError(err: Error, runId: string): void {
    this.close(runId, err);
  }

  override handleChatModelStart(llm: Serialized, _messages: BaseMessage[][], runId: string, parentRunId?: string, extraParams?: Record<string, unknown>, tags?: string[], metadata?: Record<string, unknown>): void {
    this.modelStart(llm, runId, parentRunId, extraParams, tags, metadata);
  }

  override handleLLMStart(llm: Serialized, _prompts: string[], runId: string, parentRunId?: string, extraParams?: Record<string, unknown>, tags?: string[], metadata?: Record<string, unknown>): void {
    this.modelStart(llm, runId, parentRunId, extraParams, tags, metadata);
  }

  private modelStart(llm: Serialized, runId: string, parentRunId?: string, extraParams?: Record<string, unknown>, tags?: string[], metadata?: Record<string, unknown>): void {
    const model = modelName(llm, extraParams, metadata);
    // Title and summary calls are tagged `nostream` (kept out of the conversation's stream).
    const caller: UsageCaller = this.options.caller ?? (tags?.includes('nostream') ? 'middleware' : 'lead_agent');
    const attributes = { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': model, 'gen_ai.provider.name': str(metadata?.ls_provider) ?? 'unknown' };
    this.open(runId, parentRunId, `chat ${model}`, attributes, { model, caller });
  }

  override handleLLMEnd(output: LLMResult, runId: string): void {
    const entry = this.watched.get(runId);
    const tokens = usageOf(output);
    if (entry?.span && tokens) {
      entry.span.setAttribute('gen_ai.usage.input_tokens', tokens.input);
      entry.span.setAttribute('gen_ai.usage.output_tokens', tokens.output);
    }
    this.close(runId);
    if (!entry?.model) return;
    this.options.metrics.modelCall(entry.model, 'ok', this.seconds(entry), tokens);
    if (!tokens) return;
    const write = this.options.recordUsage({ model: entry.model, caller: entry.caller ?? 'lead_agent', inputTokens: tokens.input, outputTokens: tokens.output });
    this.writes.add(write);
    void write.finally(() => this.writes.delete(write));
  }

  override handleLLMError(err: Error, runId: string): void {
    const entry = this.close(runId, err);
    if (entry?.model) this.options.metrics.modelCall(entry.model, 'error', this.seconds(entry));
  }

  override handleToolStart(tool: Serialized, _input: string, runId: string, parentRunId?: string, _tags?: string[], _metadata?: Record<string, unknown>, runName?: string, toolCallId?: string): void {
    const name = runName ?? tool.id.at(-1) ?? 'unknown';
    this.open(runId, parentRunId, `execute_tool ${name}`, { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name, 'gen_ai.tool.call.id': toolCallId ?? '' }, { tool: name });
  }

  override handleToolEnd(output: unknown, runId: string): void {
    // A tool that answers with an error message (status "error") failed, though it did not throw.
    const failed = (output as { status?: unknown } | null)?.status === 'error';
    this.toolEnded(runId, failed ? 'error' : 'ok', failed ? 'tool answered with an error' : undefined);
  }

  override handleToolError(err: Error, runId: string): void {
    this.toolEnded(runId, 'error', err);
  }

  private toolEnded(runId: string, outcome: CallOutcome, err?: unknown): void {
    const entry = this.close(runId, err);
    if (entry?.tool) this.options.metrics.toolCall(entry.tool, outcome, this.seconds(entry));
  }
}

