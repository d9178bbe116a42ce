// LangGraph checkpoint saver on plain Redis 7 (core commands only), through an ioredis client.
//
// Per thread and namespace (every key from keys.ts, so every key carries the `{thread_id}` tag):
//   checkpointNamespaces   set of the namespaces the thread used
//   checkpointIds          sorted set, all scores 0: uuid6 ids ordered by member = by time
//   checkpoint             hash {checkpoint, metadata, parent?}; the checkpoint without channel values
//   checkpointBlobs        hash, field JSON `[channel, version]`: a channel value, stored once per version
//   checkpointWrites       hash, field `<task_id>:<idx>`: one pending write
// plus checkpointThreads, a global set without tag that is only touched by single-key commands.
// Stored values are `<JSON header> \0 <serde bytes>`, so whatever the serde emits survives byte for byte.
import { randomUUID } from 'node:crypto';
import type { RunnableConfig } from '@langchain/core/runnables';
import {
  BaseCheckpointSaver,
  TASKS,
  WRITES_IDX_MAP,
  compareWritesSortKeys,
  getCheckpointId,
  maxChannelVersion,
  writesSortKey,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  type PendingWrite,
  type SerializerProtocol,
  type WritesSortKey,
} from '@langchain/langgraph-checkpoint';
import type { ChainableCommander } from 'ioredis';
import type { RedisClient } from './redis.js';
import { keys } from './keys.js';
import type { RunFence } from './records.js';
import { loadScripts, requireScript, type ScriptCaller } from './scripts.js';
import { InternalInvariantError } from '../errors.js';
import { CheckpointCorruptError, RedisTransactionAbortedError } from './store.errors.js';

interface CheckpointRef {
  threadId: string;
  ns: string;
  id: string;
}

type StoredCheckpoint = Omit<Checkpoint, 'channel_values'>;

/** How many checkpoints `list` loads per round trip. */
const LIST_BATCH = 50;
/** How many keys one UNLINK carries when a thread is deleted. */
const UNLINK_BATCH = 500;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function isStoredCheckpoint(value: unknown): value is StoredCheckpoint {
  return (
    isRecord(value) &&
    typeof value.v === 'number' &&
    typeof value.id === 'string' &&
    typeof value.ts === 'string' &&
    isRecord(value.channel_versions) &&
    isRecord(value.versions_seen)
  );
}

// Metadata is whatever the graph put there; LangGraph only promises an object.
const isMetadata = (value: unknown): value is CheckpointMetadata => isRecord(value);

function pack(header: readonly unknown[], bytes: Uint8Array): Buffer {
  // JSON escapes control characters, so the first NUL byte always ends the header.
  return Buffer.concat([Buffer.from(JSON.stringify(header)), Buffer.from([0]), bytes]);
}

function unpack(buf: Buffer): { header: unknown[]; bytes: Uint8Array } {
  const cut = buf.indexOf(0);
  const header: unknown = cut < 0 ? undefined : JSON.parse(buf.subarray(0, cut).toString('utf8'));
  if (!Array.isArray(header) || typeof header[0] !== 'string') {
    throw new CheckpointCorruptError('Corrupt checkpoint value in Redis: missing type header');
  }
  // A copy, not a view: ioredis buffers may share memory, and `bytes` values reach callers as is.
  return { header, bytes: new Uint8Array(buf.subarray(cut + 1)) };
}

/** LangGraph's filter semantics: every key of the filter equals the metadata's value, deeply. */
function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b || (Number.isNaN(a) && Number.isNaN(b))) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  }
  if (!isRecord(a) || !isRecord(b)) return false;
  const aKeys = Object.keys(a);
  return (
    aKeys.length === Object.keys(b).length &&
    aKeys.every((key) => Object.hasOwn(b, key) && deepEqual(a[key], b[key]))
  );
}

const matchesFilter = (metadata: Record<string, unknown>, filter: Record<string, unknown>): boolean =>
  Object.entries(filter).every(([key, value]) => deepEqual(metadata[key], value));

function threadIdOf(config: RunnableConfig): string | undefined {
  const id: unknown = config.configurable?.thread_id;
  if (typeof id === 'number') return String(id);
  return typeof id === 'string' && id !== '' ? id : undefined;
}

function namespaceOf(config: RunnableConfig): string | undefined {
  const ns: unknown = config.configurable?.checkpoint_ns;
  return typeof ns === 'string' ? ns : undefined;
}

function configOf(ref: CheckpointRef): RunnableConfig {
  return { configurable: { thread_id: ref.threadId, checkpoint_ns: ref.ns, checkpoint_id: ref.id } };
}

async function execAll(tx: ChainableCommander): Promise<void> {
  const results = await tx.exec();
  if (results === null) throw new RedisTransactionAbortedError('Redis transaction was aborted');
  for (const [error] of results) if (error) throw error;
}

/** How a run's writes are checked by Redis: its attempt, and the checkpoint it may fork from. */
interface WriteFence {
  fence: RunFence;
  /** Besides the thread's head, the one checkpoint a new root checkpoint may descend from. */
  forkFrom: string | null;
}

export class RedisCheckpointSaver extends BaseCheckpointSaver {
  private readonly putCheckpointScript: ScriptCaller;
  private readonly putWritesScript: ScriptCaller;
  private readonly dropCheckpointsScript: ScriptCaller;
  /** Threads a run's saver has put in the global checkpoint index (a subgraph's puts share it). */
  private readonly indexed = new Set<string>();

  constructor(
    private readonly redis: RedisClient,
    serde?: SerializerProtocol,
    private readonly writeFence?: WriteFence,
    // A run's view reuses its parent's callers: loading reads the scripts folder.
    private readonly scripts: Record<string, ScriptCaller> = loadScripts(redis),
  ) {
    super(serde);
    this.putCheckpointScript = requireScript(scripts, 'putCheckpoint');
    this.putWritesScript = requireScript(scripts, 'putWrites');
    this.dropCheckpointsScript = requireScript(scripts, 'dropCheckpoints');
  }

  /**
   * The saver a run writes through: Redis refuses its writes once another attempt holds the run
   * (WARREN_FENCED), and refuses a root checkpoint that does not descend from the thread's head or from
   * `forkFrom` (WARREN_LINEAGE), so a stale history can never become the head.
   */
  forRun(fence: RunFence, forkFrom: string | null): RedisCheckpointSaver {
    return new RedisCheckpointSaver(this.redis, this.serde, { fence, forkFrom }, this.scripts);
  }

  // Versions are `<counter>.<random>` strings, as LangGraph's Python savers mint them: channel
  // values are keyed by (channel, version), and two forks of one checkpoint must never mint the
  // same version for different values. Zero padding keeps `<` and localeCompare in step with the
  // counter. The declared type stays `number` so the saver is still a `BaseCheckpointSaver` to
  // every LangGraph API; versions are `number | string` at run time anyway.
  override getNextVersion(current: number | undefined): number {
    const raw: unknown = current;
    const counter =
      typeof raw === 'number' ? raw : typeof raw === 'string' ? Number.parseInt(raw.split('.')[0] ?? '', 10) : 0;
    const next = (Number.isFinite(counter) ? Math.trunc(counter) : 0) + 1;
    const version: unknown = `${String(next).padStart(32, '0')}.${randomUUID()}`;
    return version as number;
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const threadId = threadIdOf(config);
    if (threadId === undefined) return undefined;
    const ns = namespaceOf(config) ?? '';
    let id = getCheckpointId(config);
    if (!id) {
      const [latest] = await this.redis.zrevrangebylex(keys.checkpointIds(threadId, ns), '+', '-', 'LIMIT', 0, 1);
      if (latest === undefined) return undefined;
      id = latest;
    }
    const [tuple] = await this.loadTuples([{ threadId, ns, id }]);
    return tuple;
  }

  async *list(config: RunnableConfig, options: CheckpointListOptions = {}): AsyncGenerator<CheckpointTuple> {
    const { limit, before, filter } = options;
    if (limit !== undefined && limit <= 0) return;
    const threadId = threadIdOf(config);
    const ns = namespaceOf(config);
    const onlyId = getCheckpointId(config) || undefined;
    const beforeId = (before && getCheckpointId(before)) || undefined;
    // Without a metadata filter, no namespace can contribute more than `limit` checkpoints.
    const perNamespace = filter === undefined || Object.keys(filter).length === 0 ? limit : undefined;

    const threads = threadId !== undefined ? [threadId] : await this.redis.smembers(keys.checkpointThreads());
    const refLists = await Promise.all(
      threads.map(async (thread) => {
        const namespaces = ns !== undefined ? [ns] : await this.redis.smembers(keys.checkpointNamespaces(thread));
        const perNs = await Promise.all(
          namespaces.map(async (space) => {
            const ids = await this.candidateIds(thread, space, onlyId, beforeId, perNamespace);
            return ids.map((id): CheckpointRef => ({ threadId: thread, ns: space, id }));
          }),
        );
        return perNs.flat();
      }),
    );
    // Newest first across threads and namespaces, like the SQL savers' ORDER BY checkpoint_id DESC.
    const refs = refLists.flat().sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));

    let remaining = limit ?? Number.POSITIVE_INFINITY;
    for (let start = 0; start < refs.length; start += LIST_BATCH) {
      for (const tuple of await this.loadTuples(refs.slice(start, start + LIST_BATCH), filter)) {
        yield tuple;
        remaining -= 1;
        if (remaining <= 0) return;
      }
    }
  }

  async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    const threadId = threadIdOf(config);
    if (threadId === undefined) {
      throw new InternalInvariantError('Cannot put a checkpoint: config.configurable.thread_id is missing');
    }
    const ns = namespaceOf(config) ?? '';
    const parentId = getCheckpointId(config);
    const { channel_values: values = {}, ...rest } = checkpoint;

    // Only the channels that changed are written; the others keep their stored versions.
    const blobs = await Promise.all(
      Object.entries(newVersions)
        .filter(([channel]) => Object.hasOwn(values, channel))
        .map(async ([channel, version]) => [JSON.stringify([channel, version]), await this.dump(values[channel])] as const),
    );
    const record: Record<string, Buffer | string> = {
      checkpoint: await this.dump(rest),
      metadata: await this.dump(metadata),
    };
    if (parentId) record.parent = parentId;

    // The global index first: a thread listed without checkpoints is harmless, the reverse is not.
    // A run's saver adds its thread once: deleting the thread deletes the run, whose fence then
    // refuses every later put, so the thread cannot leave the index while this saver writes.
    if (!this.writeFence || !this.indexed.has(threadId)) {
      await this.redis.sadd(keys.checkpointThreads(), threadId);
      if (this.writeFence) this.indexed.add(threadId);
    }
    const cpKey = keys.checkpoint(threadId, ns, checkpoint.id);
    if (this.writeFence) {
      const { fence, forkFrom } = this.writeFence;
      await this.putCheckpointScript(
        [keys.run(fence.threadId, fence.runId), cpKey, keys.checkpointIds(threadId, ns), keys.checkpointNamespaces(threadId), keys.checkpointBlobs(threadId, ns)],
        [String(fence.attempt), ns, checkpoint.id, parentId ?? '', forkFrom ?? '', record.checkpoint as Buffer, record.metadata as Buffer, ...blobs.flat()],
      );
      return configOf({ threadId, ns, id: checkpoint.id });
    }
    const tx = this.redis.multi();
    if (blobs.length > 0) tx.hset(keys.checkpointBlobs(threadId, ns), Object.fromEntries(blobs));
    tx.del(cpKey)
      .hset(cpKey, record)
      .zadd(keys.checkpointIds(threadId, ns), 0, checkpoint.id)
      .sadd(keys.checkpointNamespaces(threadId), ns);
    await execAll(tx);
    return configOf({ threadId, ns, id: checkpoint.id });
  }

  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath = ''): Promise<void> {
    const threadId = threadIdOf(config);
    if (threadId === undefined) throw new InternalInvariantError('Cannot put writes: config.configurable.thread_id is missing');
    const checkpointId = getCheckpointId(config);
    if (!checkpointId) throw new InternalInvariantError('Cannot put writes: config.configurable.checkpoint_id is missing');
    const ns = namespaceOf(config) ?? '';

    const entries = await Promise.all(
      writes.map(async ([channel, value], index) => {
        // Special channels (errors, interrupts, ...) have a fixed negative index and replace the
        // previous write; a regular write is kept as first stored, so a retried task cannot
        // change what an earlier attempt recorded.
        const special = Object.hasOwn(WRITES_IDX_MAP, channel) ? WRITES_IDX_MAP[channel] : undefined;
        const field = `${taskId}:${special ?? index}`;
        return { field, replace: special !== undefined, data: await this.dump(value, [channel, taskPath]) };
      }),
    );
    const writesKey = keys.checkpointWrites(threadId, ns, checkpointId);
    if (this.writeFence) {
      const { fence } = this.writeFence;
      await this.putWritesScript(
        [keys.run(fence.threadId, fence.runId), writesKey, keys.checkpointNamespaces(threadId)],
        [String(fence.attempt), ns, ...entries.flatMap(({ field, replace, data }) => [field, replace ? '1' : '0', data])],
      );
      return;
    }
    const tx = this.redis.multi();
    for (const { field, replace, data } of entries) {
      if (replace) tx.hset(writesKey, field, data);
      else tx.hsetnx(writesKey, field, data);
    }
    tx.sadd(keys.checkpointNamespaces(threadId), ns);
    await execAll(tx);
  }

  async deleteThread(threadId: string): Promise<void> {
    const nsKey = keys.checkpointNamespaces(threadId);
    const namespaces = await this.redis.smembers(nsKey);
    const perNs = await Promise.all(
      namespaces.map(async (ns) => {
        const idsKey = keys.checkpointIds(threadId, ns);
        const ids = await this.redis.zrange(idsKey, 0, -1);
        const perCheckpoint = ids.flatMap((id) => [
          keys.checkpoint(threadId, ns, id),
          keys.checkpointWrites(threadId, ns, id),
        ]);
        return [...perCheckpoint, keys.checkpointBlobs(threadId, ns), idsKey];
      }),
    );
    const doomed = [...perNs.flat(), nsKey];
    // All in one slot (the hash tag), so one transaction of multi-key UNLINKs suits a cluster too.
    const tx = this.redis.multi();
    for (let start = 0; start < doomed.length; start += UNLINK_BATCH) {
      tx.unlink(...doomed.slice(start, start + UNLINK_BATCH));
    }
    await execAll(tx);
    await this.redis.srem(keys.checkpointThreads(), threadId);
  }

  /**
   * Starts another thread from one root checkpoint of this one (a branch): its values, with
   * `overrides` laid over them, become the new thread's only checkpoint, under the same id and
   * with no parent. Null when that checkpoint is gone.
   */
  async forkCheckpoint(
    fromThreadId: string,
    checkpointId: string,
    toThreadId: string,
    overrides: Record<string, unknown>,
    metadata: Record<string, unknown>,
    /** A checkpoint already on the new thread to hang this one under (else it starts the line). */
    parentId?: string,
  ): Promise<string | null> {
    const tuple = await this.getTuple({ configurable: { thread_id: fromThreadId, checkpoint_ns: '', checkpoint_id: checkpointId } });
    if (!tuple) return null;
    const versions = { ...tuple.checkpoint.channel_versions };
    // A channel the source never wrote needs a version for its value to be stored: any existing one
    // will do on a thread whose history starts here.
    const someVersion = Object.values(versions)[0] ?? 1;
    for (const channel of Object.keys(overrides)) versions[channel] ??= someVersion;
    const checkpoint = { ...tuple.checkpoint, channel_values: { ...tuple.checkpoint.channel_values, ...overrides }, channel_versions: versions };
    const stored = { ...(tuple.metadata ?? {}), ...metadata, thread_id: toThreadId } as CheckpointMetadata;
    const at = { configurable: { thread_id: toThreadId, checkpoint_ns: '', ...(parentId ? { checkpoint_id: parentId } : {}) } };
    const written = await this.put(at, checkpoint, stored, versions);
    return String(written.configurable?.checkpoint_id ?? checkpoint.id);
  }

  /**
   * Copies every checkpoint of a thread (all namespaces, with their pending writes) to another
   * thread, oldest first so each parent is there before its children. Ids stay the same.
   */
  async copyThread(fromThreadId: string, toThreadId: string): Promise<void> {
    const tuples: CheckpointTuple[] = [];
    for await (const tuple of this.list({ configurable: { thread_id: fromThreadId } })) tuples.push(tuple);
    for (const tuple of tuples.reverse()) {
      const ns = String(tuple.config.configurable?.checkpoint_ns ?? '');
      const parentId = tuple.parentConfig?.configurable?.checkpoint_id as string | undefined;
      const at = { configurable: { thread_id: toThreadId, checkpoint_ns: ns, ...(parentId ? { checkpoint_id: parentId } : {}) } };
      const stored = (tuple.metadata ?? {}) as Record<string, unknown>;
      const metadata = { ...stored, ...(stored.thread_id === fromThreadId ? { thread_id: toThreadId } : {}) } as CheckpointMetadata;
      await this.put(at, tuple.checkpoint, metadata, tuple.checkpoint.channel_versions);
      const byTask = new Map<string, PendingWrite[]>();
      for (const [taskId, channel, value] of tuple.pendingWrites ?? []) byTask.set(taskId, [...(byTask.get(taskId) ?? []), [channel, value]]);
      const written = { configurable: { thread_id: toThreadId, checkpoint_ns: ns, checkpoint_id: tuple.checkpoint.id } };
      for (const [taskId, writes] of byTask) await this.putWrites(written, writes, taskId);
    }
  }

  /** How many messages the thread had at one of its root checkpoints; null when that checkpoint is gone. */
  async messageCountAt(threadId: string, checkpointId: string): Promise<number | null> {
    const tuple = await this.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: '', checkpoint_id: checkpointId } });
    if (!tuple) return null;
    const messages: unknown = tuple.checkpoint.channel_values.messages;
    return Array.isArray(messages) ? messages.length : 0;
  }

  /** Id of the thread's newest root checkpoint, or null. */
  async latestId(threadId: string): Promise<string | null> {
    const [id] = await this.redis.zrevrangebylex(keys.checkpointIds(threadId, ''), '+', '-', 'LIMIT', 0, 1);
    return id ?? null;
  }

  /**
   * Removes a rolled-back run's checkpoints: every one newer than `checkpointId` in all
   * namespaces, or all of them with null. Ids are uuid6, so "newer" is lexical order. Fenced by
   * the run's attempt: a worker that lost the run removes nothing.
   */
  async rollBack(fence: RunFence, checkpointId: string | null): Promise<void> {
    const { threadId } = fence;
    const namespaces = await this.redis.smembers(keys.checkpointNamespaces(threadId));
    const idSets: string[] = [];
    const members: string[] = [];
    const doomed: string[] = [];
    for (const ns of namespaces) {
      const idsKey = keys.checkpointIds(threadId, ns);
      const ids = await this.redis.zrangebylex(idsKey, checkpointId === null ? '-' : `(${checkpointId}`, '+');
      if (ids.length === 0) continue;
      idSets.push(idsKey);
      members.push(String(ids.length), ...ids);
      doomed.push(...ids.flatMap((id) => [keys.checkpoint(threadId, ns, id), keys.checkpointWrites(threadId, ns, id)]));
      // Nothing is left to point at this namespace's values.
      if (checkpointId === null) doomed.push(keys.checkpointBlobs(threadId, ns));
    }
    await this.dropCheckpointsScript(
      [keys.run(threadId, fence.runId), ...idSets, ...doomed],
      [String(fence.attempt), idSets.length, ...members],
    );
  }

  private async candidateIds(
    threadId: string,
    ns: string,
    onlyId: string | undefined,
    beforeId: string | undefined,
    limit: number | undefined,
  ): Promise<string[]> {
    const idsKey = keys.checkpointIds(threadId, ns);
    if (onlyId !== undefined) {
      if (beforeId !== undefined && onlyId >= beforeId) return [];
      return (await this.redis.zscore(idsKey, onlyId)) === null ? [] : [onlyId];
    }
    const max = beforeId === undefined ? '+' : `(${beforeId}`;
    return limit === undefined
      ? this.redis.zrevrangebylex(idsKey, max, '-')
      : this.redis.zrevrangebylex(idsKey, max, '-', 'LIMIT', 0, limit);
  }

  /** The tuples of the given checkpoints, in the given order; missing or filtered-out ones are skipped. */
  private async loadTuples(refs: readonly CheckpointRef[], filter?: Record<string, unknown>): Promise<CheckpointTuple[]> {
    const records = await Promise.all(
      refs.map((ref) => this.redis.hgetallBuffer(keys.checkpoint(ref.threadId, ref.ns, ref.id))),
    );
    const tuples = await Promise.all(
      refs.map(async (ref, i) => {
        const record = records[i];
        if (record?.checkpoint === undefined || record.metadata === undefined) return undefined;
        const metadata = await this.load(record.metadata);
        if (!isMetadata(metadata)) throw new CheckpointCorruptError(`Corrupt metadata for checkpoint ${ref.id}`);
        if (filter !== undefined && !matchesFilter(metadata, filter)) return undefined;
        return this.buildTuple(ref, record.checkpoint, metadata, record.parent?.toString('utf8'));
      }),
    );
    return tuples.filter((tuple): tuple is CheckpointTuple => tuple !== undefined);
  }

  private async buildTuple(
    ref: CheckpointRef,
    checkpointData: Buffer,
    metadata: CheckpointMetadata,
    parentId: string | undefined,
  ): Promise<CheckpointTuple> {
    const stored = await this.load(checkpointData);
    if (!isStoredCheckpoint(stored)) throw new CheckpointCorruptError(`Corrupt checkpoint ${ref.id}`);
    const versions = Object.entries(stored.channel_versions);
    const [blobs, pendingWrites] = await Promise.all([
      versions.length === 0
        ? Promise.resolve([])
        : this.redis.hmgetBuffer(
            keys.checkpointBlobs(ref.threadId, ref.ns),
            ...versions.map(([channel, version]) => JSON.stringify([channel, version])),
          ),
      this.loadWrites(ref),
    ]);
    const values = await Promise.all(
      versions.map(async ([channel], i) => {
        const blob = blobs[i];
        // No blob: the channel was empty at that version.
        return blob ? ([channel, await this.load(blob)] as const) : undefined;
      }),
    );
    const checkpoint: Checkpoint = {
      ...stored,
      channel_values: Object.fromEntries(values.filter((entry) => entry !== undefined)),
    };
    if (checkpoint.v < 4 && parentId !== undefined) {
      await this.migratePendingSends(checkpoint, { ...ref, id: parentId });
    }
    const tuple: CheckpointTuple = { config: configOf(ref), checkpoint, metadata, pendingWrites };
    if (parentId !== undefined) tuple.parentConfig = configOf({ ...ref, id: parentId });
    return tuple;
  }

  // Before checkpoint format 4, sends lived as the parent's writes to TASKS; newer LangGraph reads
  // them from the TASKS channel, so old checkpoints get them moved there on load.
  private async migratePendingSends(checkpoint: Checkpoint, parent: CheckpointRef): Promise<void> {
    const sends = (await this.loadWrites(parent)).filter(([, channel]) => channel === TASKS).map(([, , value]) => value);
    if (sends.length === 0) return;
    const versions = Object.values(checkpoint.channel_versions);
    checkpoint.channel_values[TASKS] = sends;
    checkpoint.channel_versions[TASKS] =
      versions.length > 0 ? maxChannelVersion(...versions) : this.getNextVersion(undefined);
  }

  /** Pending writes of one checkpoint in LangGraph's `(task_path, task_id, idx)` order. */
  private async loadWrites(ref: CheckpointRef): Promise<CheckpointPendingWrite[]> {
    const raw = await this.redis.hgetallBuffer(keys.checkpointWrites(ref.threadId, ref.ns, ref.id));
    const entries = await Promise.all(
      Object.entries(raw).map(async ([field, data]) => {
        const cut = field.lastIndexOf(':');
        const taskId = field.slice(0, cut);
        const { header, value } = await this.loadWithHeader(data);
        const [, channel, taskPath] = header;
        if (typeof channel !== 'string' || typeof taskPath !== 'string') {
          throw new CheckpointCorruptError(`Corrupt pending write ${field} of checkpoint ${ref.id}`);
        }
        const key: WritesSortKey = writesSortKey(taskPath, taskId, Number(field.slice(cut + 1)));
        const write: CheckpointPendingWrite = [taskId, channel, value];
        return { key, write };
      }),
    );
    entries.sort((a, b) => compareWritesSortKeys(a.key, b.key));
    return entries.map(({ write }) => write);
  }

  private async dump(value: unknown, extra: readonly unknown[] = []): Promise<Buffer> {
    const [type, bytes] = await this.serde.dumpsTyped(value);
    return pack([type, ...extra], bytes);
  }

  private async load(data: Buffer): Promise<unknown> {
    return (await this.loadWithHeader(data)).value;
  }

  private async loadWithHeader(data: Buffer): Promise<{ header: unknown[]; value: unknown }> {
    const { header, bytes } = unpack(data);
    const value: unknown = await this.serde.loadsTyped(String(header[0]), bytes);
    return { header, value };
  }
}
