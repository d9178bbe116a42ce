// A worker process's own metrics: the runs it executed, how long they waited and took, and the
// model and tool calls they made. Each worker serves them on its metrics port
// (workers/metrics-server.ts); Prometheus scrapes every worker and sums.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { createRegistry, renderRegistry } from './registry.js';
import { LATENCY_BUCKETS } from './warren-metrics.js';

/** Seconds, for runs and model calls: from 50 ms to an hour. */
const LONG_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];

export type CallOutcome = 'ok' | 'error';

export interface WorkerMetrics {
  registry: Registry;
  render(): Promise<string>;
  /** A run this worker started: how long it waited from creation (first attempts only). */
  runStarted(waitSeconds: number | null): void;
  /** How a run this worker started ended here: its final status, or handed_back / lost. */
  runEnded(status: string, seconds: number): void;
  modelCall(model: string, outcome: CallOutcome, seconds: number, tokens?: { input: number; output: number }): void;
  toolCall(tool: string, outcome: CallOutcome, seconds: number): void;
  /** One webhook delivery attempt. */
  webhookAttempt(outcome: 'delivered' | 'retry' | 'failed'): void;
}

export function createWorkerMetrics(): WorkerMetrics {
  const registry = createRegistry();
  const registers = [registry];
  const queueWait = new Histogram({
    name: 'warren_run_queue_wait_seconds',
    help: 'Time from a run being created to a worker starting it (first attempts).',
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const executing = new Gauge({ name: 'warren_worker_runs_executing', help: 'Runs this worker is executing now.', registers });
  const runs = new Counter({
    name: 'warren_worker_runs_total',
    help: 'Runs this worker executed, by how they ended here (final status, handed_back or lost).',
    labelNames: ['status'],
    registers,
  });
  const runSeconds = new Histogram({
    name: 'warren_run_duration_seconds',
    help: 'Time a run executed on this worker, by how it ended.',
    labelNames: ['status'],
    buckets: LONG_BUCKETS,
    registers,
  });
  const modelCalls = new Counter({ name: 'warren_model_calls_total', help: 'Model calls, by model and outcome.', labelNames: ['model', 'outcome'], registers });
  const modelSeconds = new Histogram({
    name: 'warren_model_call_duration_seconds',
    help: 'Time a model call took, by model.',
    labelNames: ['model'],
    buckets: LONG_BUCKETS,
    registers,
  });
  const modelTokens = new Counter({
    name: 'warren_model_tokens_total',
    help: 'Tokens the models reported (usage_metadata), by model and direction (input or output).',
    labelNames: ['model', 'direction'],
    registers,
  });
  const toolCalls = new Counter({ name: 'warren_tool_calls_total', help: 'Tool calls, by tool and outcome.', labelNames: ['tool', 'outcome'], registers });
  const toolSeconds = new Histogram({
    name: 'warren_tool_call_duration_seconds',
    help: 'Time a tool call took, by tool.',
    labelNames: ['tool'],
    buckets: LONG_BUCKETS,
    registers,
  });

  const webhookAttempts = new Counter({
    name: 'warren_webhook_attempts_total',
    help: 'Webhook delivery attempts, by outcome (delivered, retry, failed).',
    labelNames: ['outcome'],
    registers,
  });

  return {
    registry,
    render: () => renderRegistry(registry),
    runStarted(waitSeconds) {
      executing.inc();
      if (waitSeconds !== null) queueWait.observe(Math.max(0, waitSeconds));
    },
    runEnded(status, seconds) {
      executing.dec();
      runs.inc({ status });
      runSeconds.observe({ status }, seconds);
    },
    modelCall(model, outcome, seconds, tokens) {
      modelCalls.inc({ model, outcome });
      modelSeconds.observe({ model }, seconds);
      if (tokens) {
        modelTokens.inc({ model, direction: 'input' }, tokens.input);
        modelTokens.inc({ model, direction: 'output' }, tokens.output);
      }
    },
    toolCall(tool, outcome, seconds) {
      toolCalls.inc({ tool, outcome });
      toolSeconds.observe({ tool }, seconds);
    },
    webhookAttempt(outcome) {
      webhookAttempts.inc({ outcome });
    },
  };
}
