// A run's own view of the checkpointer. Once the run is stopped, the fence drops its writes:
// an aborted LangGraph loop may still flush a checkpoint after its stream has rejected, and
// that late write must not survive a rollback or land after a hand-back. Its checkpoints carry
// the run's ids and metadata.
import type { RunnableConfig } from '@langchain/core/runnables';
import {
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointTuple,
  type PendingWrite,
  getCheckpointId,
} from '@langchain/langgraph-checkpoint';

/** Configurable keys that address a checkpoint rather than describe the run. */
const ADDRESS_KEYS = new Set(['checkpoint_ns', 'checkpoint_id', 'checkpoint_map']);

/**
 * A run's checkpoint metadata as the LangGraph server stores it: the run's plain configurable
 * values (`thread_id`, `assistant_id`, `graph_id`, …) and its config metadata (`run_id`, the
 * user's metadata), under what the graph wrote, so that history can be filtered by them.
 */
export function runMetadata(config: RunnableConfig, metadata: CheckpointMetadata): CheckpointMetadata {
  const fromConfigurable = Object.entries(config.configurable ?? {}).filter(
    ([key, value]) => !key.startsWith('__') && !ADDRESS_KEYS.has(key) && ['string', 'number', 'boolean'].includes(typeof value),
  );
  return { ...Object.fromEntries(fromConfigurable), ...(config.metadata ?? {}), ...metadata };
}

/** A thread's newest root checkpoint, as a run knows it (null: none yet). */
export interface KnownHead {
  threadId: string;
  id: string | null;
}

export class FencedCheckpointSaver extends BaseCheckpointSaver {
  private fenced = false;
  /**
   * The thread's newest root checkpoint: what the claim found, then each one this run stores.
   * A look for the newest checkpoint reads it by id, without asking Redis which it is (a new
   * thread has none to read at all). Nothing else writes the thread's checkpoints while the run
   * holds it, and a checkpoint stored off a stale head is refused anyway (put-checkpoint's
   * lineage check). Unknown while a checkpoint is being stored, and once the run is fenced.
   */
  private head: KnownHead | undefined;
  /** Writes passed on to the inner saver and not settled yet. */
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    private readonly inner: BaseCheckpointSaver,
    /** Awaited before each checkpoint is stored (the run's stream catching up). */
    private readonly beforePut: () => Promise<void> = async () => {},
    knownHead?: KnownHead,
  ) {
    super(inner.serde);
    this.head = knownHead;
  }

  /**
   * From now on, writes are dropped. Resolves once the writes already passed on have settled: a
   * rollback that ran while one was in flight would leave its checkpoint behind.
   */
  async fence(): Promise<void> {
    this.fenced = true;
    this.head = undefined;
    await Promise.allSettled([...this.inFlight]);
  }

  private track<T>(write: Promise<T>): Promise<T> {
    this.inFlight.add(write);
    const untrack = () => this.inFlight.delete(write);
    write.then(untrack, untrack);
    return write;
  }

  getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const head = this.head;
    const { thread_id: threadId, checkpoint_ns: ns = '' } = (config.configurable ?? {}) as { thread_id?: unknown; checkpoint_ns?: unknown };
    if (head && threadId === head.threadId && ns === '' && !getCheckpointId(config)) {
      if (head.id === null) return Promise.resolve(undefined);
      return this.inner.getTuple({ ...config, configurable: { ...config.configurable, checkpoint_id: head.id } });
    }
    return this.inner.getTuple(config);
  }

  list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    return this.inner.list(config, options);
  }

  async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions): Promise<RunnableConfig> {
    const head = this.head;
    const root = (config.configurable?.checkpoint_ns ?? '') === '' && config.configurable?.thread_id === head?.threadId;
    if (root) this.head = undefined;
    if (!this.fenced) await this.beforePut();
    if (this.fenced) {
      return { configurable: { ...config.configurable, checkpoint_id: checkpoint.id } };
    }
    const stored = await this.track(this.inner.put(config, checkpoint, runMetadata(config, metadata), newVersions));
    if (root && head && !this.fenced) this.head = { threadId: head.threadId, id: checkpoint.id };
    return stored;
  }

  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string): Promise<void> {
    // A finished task's writes are not re-run on resume, so its events must be stored first too.
    if (!this.fenced) await this.beforePut();
    if (!this.fenced) await this.track(this.inner.putWrites(config, writes, taskId));
  }

  deleteThread(threadId: string): Promise<void> {
    return this.inner.deleteThread(threadId);
  }

  override getNextVersion(current: number | undefined): number {
    return this.inner.getNextVersion(current);
  }
}
