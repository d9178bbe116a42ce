// The attempt as a fencing token, checked by Redis itself: once a run is claimed again, every
// write of the earlier attempt is refused (stream appends, checkpoints and their writes,
// rollback, settling), and a run's checkpoint only ever extends the thread's head.
import { randomUUID } from 'node:crypto';
import { emptyCheckpoint, uuid6, type Checkpoint } from '@langchain/langgraph-checkpoint';
import { describe, expect, it } from 'vitest';
import { isFenceRefusal, isLineageRefusal } from '../../src/store/script-errors.js';
import { keys } from '../../src/store/keys.js';
import { nowIso, type RunFence } from '../../src/store/records.js';
import { createRunStreams } from '../../src/store/run-stream.js';
import { loadScripts, type ScriptCaller } from '../../src/store/scripts.js';
import { FencedCheckpointSaver } from '../../workers/run-executor/fenced-saver.js';
import { StreamBarrier } from '../../workers/run-executor/stream-barrier.js';
import { testStores } from '../support/test-stores.js';

const onRedis = testStores();

/** A thread with one pending run, claimed `claims` times; returns each claim's fence. */
async function claimedRun(claims: number, kwargs: Record<string, unknown> = {}): Promise<RunFence[]> {
  const { threadId, runId } = await pendingRun(kwargs);
  const fences: RunFence[] = [];
  for (let i = 0; i < claims; i++) {
    const claim = await onRedis.stores.runs.start(threadId, runId, 10);
    if (claim.kind !== 'started') throw new Error(`claim ${i + 1}: ${claim.kind}`);
    fences.push({ threadId, runId, attempt: claim.attempt });
  }
  return fences;
}

/** A thread with one pending run. */
async function pendingRun(kwargs: Record<string, unknown> = {}): Promise<{ threadId: string; runId: string }> {
  const threadId = randomUUID();
  const runId = randomUUID();
  // An owner of its own, so no user's thread list on the shared test Redis sees these threads.
  await onRedis.stores.threads.create({ threadId, metadata: {}, ifExists: 'raise', owner: 'fenced-writes-test' });
  const now = nowIso();
  await onRedis.stores.runs.create(
    { run_id: runId, thread_id: threadId, assistant_id: 'agent', status: 'pending', created_at: now, updated_at: now, metadata: {}, kwargs, multitask_strategy: 'enqueue', attempt: 0, cancel: null, temporary: false },
    'enqueue',
  );
  return { threadId, runId };
}

const checkpoint = (): Checkpoint => ({ ...emptyCheckpoint(), id: uuid6(-1) });
const rootConfig = (threadId: string, parent?: string) => ({ configurable: { thread_id: threadId, checkpoint_ns: '', ...(parent ? { checkpoint_id: parent } : {}) } });
const refused = async (write: Promise<unknown>, test: (err: unknown) => boolean) => {
  const err = await write.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, 'the write was refused').not.toBeNull();
  expect(test(err), String(err)).toBe(true);
};

describe('claiming a run', () => {
  it('answers with the record and the thread\'s newest checkpoint, kept by the first attempt as where the run started', async () => {
    const { threadId, runId } = await pendingRun({ stream_mode: ['values'] });
    const first = await onRedis.stores.runs.start(threadId, runId, 10);
    expect(first).toMatchObject({ kind: 'started', attempt: 1, latest: null, run: { run_id: runId, status: 'running', attempt: 1, checkpoint_before: null, kwargs: { stream_mode: ['values'] } } });
    // The first attempt stores a checkpoint, then the run is claimed again: the thread moved on.
    const saver = onRedis.stores.checkpointer.forRun({ threadId, runId, attempt: 1 }, null);
    const stored = await saver.put(rootConfig(threadId), checkpoint(), { source: 'input', step: -1, parents: {} }, {});
    const second = await onRedis.stores.runs.start(threadId, runId, 10);
    const id = stored.configurable?.checkpoint_id as string;
    expect(second).toMatchObject({ kind: 'started', attempt: 2, latest: id, run: { attempt: 2, checkpoint_before: null } });
  });

  it('leaves a pending run that may wait out after_seconds unclaimed until the caller says it is due', async () => {
    const { threadId, runId } = await pendingRun({ after_seconds: 60 });
    expect(await onRedis.stores.runs.start(threadId, runId, 10)).toEqual({ kind: 'check-due' });
    expect((await onRedis.stores.runs.require(threadId, runId)).attempt).toBe(0);
    expect(await onRedis.stores.runs.start(threadId, runId, 10, undefined, { due: true })).toMatchObject({ kind: 'started', attempt: 1 });
  });

  it('settles a cancelled delayed run without waiting for its time', async () => {
    const { threadId, runId } = await pendingRun({ after_seconds: 60 });
    expect(await onRedis.stores.runs.cancel(threadId, runId, 'interrupt')).not.toBe('missing');
    expect(await onRedis.stores.runs.start(threadId, runId, 10)).toMatchObject({ kind: 'cancelled', action: 'interrupt' });
  });
});

describe('a run\'s own checkpointer', () => {
  it('finds the thread\'s newest checkpoint where the claim saw it, once, then reads Redis again', async () => {
    const [fence] = (await claimedRun(1)) as [RunFence];
    const { threadId } = fence;
    const inner = onRedis.stores.checkpointer.forRun(fence, null);
    const first = (await inner.put(rootConfig(threadId), checkpoint(), { source: 'input', step: -1, parents: {} }, {})).configurable?.checkpoint_id as string;
    const saver = new FencedCheckpointSaver(inner, async () => undefined, { threadId, id: first });
    expect((await saver.getTuple(rootConfig(threadId)))?.config.configurable?.checkpoint_id).toBe(first);
    const second = (await saver.put(rootConfig(threadId, first), checkpoint(), { source: 'loop', step: 0, parents: {} }, {})).configurable?.checkpoint_id as string;
    expect((await saver.getTuple(rootConfig(threadId)))?.config.configurable?.checkpoint_id).toBe(second);
    // A new thread: nothing to read.
    const fresh = new FencedCheckpointSaver(inner, async () => undefined, { threadId: 'no-such-thread', id: null });
    expect(await fresh.getTuple(rootConfig('no-such-thread'))).toBeUndefined();
  });

  it('sends a checkpoint behind the events appended before it, without waiting for their replies', async () => {
    const [fence] = (await claimedRun(1)) as [RunFence];
    const { threadId, runId } = fence;
    const writer = onRedis.stores.streams.writer(fence);
    const barrier = new StreamBarrier();
    const order: string[] = [];
    const saver = new FencedCheckpointSaver(onRedis.stores.checkpointer.forRun(fence, null), () => barrier.ahead(() => writer.sendQueued()));
    async function* events() {
      for (let i = 0; i < 5; i++) yield i;
    }
    for await (const i of barrier.track(events())) {
      const appended = barrier.appendStarted();
      void writer.append('custom', String(i)).then(() => {
        order.push(`event ${i}`);
        appended();
      });
    }
    const stored = saver.put(rootConfig(threadId), checkpoint(), { source: 'loop', step: 0, parents: {} }, {}).then(() => order.push('checkpoint'));
    await stored;
    await barrier.settled();
    expect(order).toEqual(['event 0', 'event 1', 'event 2', 'event 3', 'event 4', 'checkpoint']);
    expect((await onRedis.stores.streams.readAfter(threadId, runId, '0')).map((e) => e.data)).toEqual(['0', '1', '2', '3', '4']);
  });
});

describe('fenced run writes', () => {
  it('refuses every stream append of an attempt that is no longer current', async () => {
    const [first, second] = (await claimedRun(2)) as [RunFence, RunFence];
    await refused(onRedis.stores.streams.writer(first).append('custom', '{"from":1}'), isFenceRefusal);
    await onRedis.stores.streams.writer(second).append('custom', '{"from":2}');
    const entries = await onRedis.stores.streams.readAfter(first.threadId, first.runId, '0');
    expect(entries.map((e) => e.data)).toEqual(['{"from":2}']);
  });

  it('stores appends made without waiting in order, several to a script call, and refuses a stale attempt\'s whole batch', async () => {
    const [first, second] = (await claimedRun(2)) as [RunFence, RunFence];
    const scripts = loadScripts(onRedis.redis);
    const append = scripts.appendRunEvents as ScriptCaller;
    let calls = 0;
    const streams = createRunStreams(onRedis.redis, {
      ...scripts,
      appendRunEvents: (keys, args) => {
        calls += 1;
        return append(keys, args);
      },
    });
    const events = Array.from({ length: 500 }, (_, i) => JSON.stringify({ i }));
    const writer = streams.writer(second);
    const ids = await Promise.all(events.map((data) => writer.append('custom', data)));
    const stored = await streams.readAfter(second.threadId, second.runId, '0');
    expect(stored.map((e) => e.data)).toEqual(events);
    expect(stored.map((e) => e.id)).toEqual(ids);
    // Batched, but capped: one script holds Redis for a bounded time.
    expect(calls).toBeGreaterThan(1);
    expect(calls).toBeLessThan(events.length / 10);

    const stale = streams.writer(first);
    const refusedAll = await Promise.allSettled(events.slice(0, 20).map((data) => stale.append('custom', data)));
    expect(refusedAll.every((r) => r.status === 'rejected' && isFenceRefusal(r.reason))).toBe(true);
    expect(await streams.readAfter(second.threadId, second.runId, '0')).toHaveLength(events.length);
  });

  it('refuses a stale attempt\'s checkpoints and writes, and a checkpoint off the thread\'s head', async () => {
    const [first, second] = (await claimedRun(2)) as [RunFence, RunFence];
    const { threadId } = first;
    const stale = onRedis.stores.checkpointer.forRun(first, null);
    const current = onRedis.stores.checkpointer.forRun(second, null);
    await refused(stale.put(rootConfig(threadId), checkpoint(), { source: 'loop', step: 0, parents: {} }, {}), isFenceRefusal);
    const head = await current.put(rootConfig(threadId), checkpoint(), { source: 'loop', step: 0, parents: {} }, {});
    const headId = head.configurable?.checkpoint_id as string;
    await refused(stale.putWrites(head, [['messages', 'late']], 'task-1'), isFenceRefusal);
    await current.putWrites(head, [['messages', 'on time']], 'task-1');
    const next = await current.put(rootConfig(threadId, headId), checkpoint(), { source: 'loop', step: 1, parents: {} }, {});

    // A root checkpoint whose parent is not the head would fork history under the run's feet.
    await refused(current.put(rootConfig(threadId, headId), checkpoint(), { source: 'loop', step: 2, parents: {} }, {}), isLineageRefusal);
    // Unless the run was asked to start from that checkpoint.
    await onRedis.stores.checkpointer.forRun(second, headId).put(rootConfig(threadId, headId), checkpoint(), { source: 'fork', step: 1, parents: {} }, {});

    const tuple = await onRedis.stores.checkpointer.getTuple(rootConfig(threadId, headId));
    expect(tuple?.pendingWrites?.map(([, , value]) => value)).toEqual(['on time']);
    expect(await onRedis.stores.checkpointer.latestId(threadId)).not.toBe(next.configurable?.checkpoint_id);
  });

  it('lets only the current attempt settle or roll back, and appends end once', async () => {
    const [first, second] = (await claimedRun(2)) as [RunFence, RunFence];
    const { threadId, runId } = first;
    await onRedis.stores.checkpointer.forRun(second, null).put(rootConfig(threadId), checkpoint(), { source: 'loop', step: 0, parents: {} }, {});
    const settle = (fence: RunFence) => onRedis.stores.runs.finish({ fence, status: 'success', threadStatus: 'idle', retentionSeconds: 60 });

    await refused(onRedis.stores.checkpointer.rollBack(first, null), isFenceRefusal);
    expect(await onRedis.stores.checkpointer.latestId(threadId)).not.toBeNull();
    await refused(settle(first), isFenceRefusal);
    expect((await onRedis.stores.runs.require(threadId, runId)).status).toBe('running');
    expect(await onRedis.redis.exists(keys.runStream(threadId, runId))).toBe(0);

    await settle(second);
    await settle(second);
    const events = (await onRedis.stores.streams.readAfter(threadId, runId, '0')).map((e) => e.event);
    expect(events).toEqual(['end']);
    expect((await onRedis.stores.runs.require(threadId, runId)).status).toBe('success');
    expect((await onRedis.stores.threads.get(threadId))?.status).toBe('idle');
  });

  it('a rollback after the run is stopped sees the checkpoint the graph still had in flight', async () => {
    // A stopped graph may have handed a checkpoint to the saver just before the stop: the
    // executor awaits fence() before rolling back, so that checkpoint is rolled back too.
    const [fence] = (await claimedRun(1)) as [RunFence];
    const { threadId } = fence;
    const real = onRedis.stores.checkpointer.forRun(fence, null);
    let release!: () => void;
    let entered!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const sent = new Promise<void>((resolve) => (entered = resolve));
    const held = Object.assign(Object.create(real) as typeof real, {
      put: async (...args: Parameters<typeof real.put>) => {
        entered();
        await gate;
        return real.put(...args);
      },
    });
    const saver = new FencedCheckpointSaver(held);
    const landing = saver.put(rootConfig(threadId), checkpoint(), { source: 'loop', step: 0, parents: {} }, {});
    await sent;
    let fenced = false;
    const fencing = saver.fence().then(() => (fenced = true));
    // A write after the fence is dropped, never sent.
    await saver.put(rootConfig(threadId), checkpoint(), { source: 'loop', step: 1, parents: {} }, {});
    expect(fenced).toBe(false);
    release();
    await fencing;
    await landing;
    expect(await onRedis.stores.checkpointer.latestId(threadId)).not.toBeNull();
    await onRedis.stores.checkpointer.rollBack(fence, null);
    expect(await onRedis.stores.checkpointer.latestId(threadId)).toBeNull();
  });

  it('counts a hand-back apart: the next claim is a new attempt, not one more failure', async () => {
    const [first] = (await claimedRun(1)) as [RunFence];
    await onRedis.stores.runs.handBack(first);
    const claim = await onRedis.stores.runs.start(first.threadId, first.runId, 1);
    expect(claim).toMatchObject({ kind: 'started', attempt: 2 });
    await refused(onRedis.stores.runs.handBack(first), isFenceRefusal);
    expect(await onRedis.stores.runs.start(first.threadId, first.runId, 1)).toEqual({ kind: 'exhausted', attempt: 3, failed: 1 });
  });
});
