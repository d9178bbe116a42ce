// What the relayed floor's two processes share: its Redis keys and the shape of a queued run.
export const RELAYED_RUNS_KEY = 'floor:runs';
/** The HTTP process adds to it to end its blocking read early when a new run's stream joins. */
export const RELAYED_WAKE_KEY = 'floor:wake';
export const relayedStreamKey = (runId: string): string => `floor:run:${runId}:stream`;
/** The run's attempt: each take bumps it, and the run's writes check it. */
export const relayedAttemptKey = (runId: string): string => `floor:run:${runId}:attempt`;
/** The runs one graph process has taken and not settled: what a crash leaves to be taken again. */
export const relayedTakenKey = (processId: string): string => `floor:taken:${processId}`;
export const relayedCheckpointsKey = (threadId: string): string => `floor:thread:${threadId}:checkpoints`;
/** The last entry of every run's stream. */
export const RELAYED_END_EVENT = '__end__';

export interface RelayedJob {
  threadId: string;
  runId: string;
  input: unknown;
  /** The run's `config.configurable` (the bench's `gated` flag picks the gated model). */
  configurable: Record<string, unknown>;
}
