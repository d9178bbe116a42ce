// Recording a run (create-run): the thread's metadata noted in the same step, and the run id's
// thread noted beside it, both only for a run that is recorded.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { nowIso, type StoredRun } from '../../src/store/records.js';
import { ThreadBusyError, ThreadNotFoundError } from '../../src/store/store.errors.js';
import { testStores } from '../support/test-stores.js';

const onRedis = testStores();

const OWNER = 'run-create-test';

async function thread(metadata: Record<string, unknown> = {}): Promise<string> {
  const threadId = randomUUID();
  await onRedis.stores.threads.create({ threadId, metadata, ifExists: 'raise', owner: OWNER });
  return threadId;
}

function pending(threadId: string, runId = randomUUID()): StoredRun {
  const now = nowIso();
  return { run_id: runId, thread_id: threadId, assistant_id: 'agent', status: 'pending', created_at: now, updated_at: now, metadata: {}, kwargs: {}, multitask_strategy: 'enqueue', attempt: 0, cancel: null, temporary: false };
}

describe('creating a run', () => {
  it('stores the thread metadata it is given with the run, and notes the run id’s thread', async () => {
    const threadId = await thread({ topic: 'x' });
    const run = pending(threadId);
    expect(await onRedis.stores.runs.create(run, 'enqueue', { topic: 'x', graph_id: 'agent', assistant_id: 'agent' })).toEqual({ dispatch: true });
    expect(await onRedis.stores.threads.metadataOf(threadId)).toEqual({ topic: 'x', graph_id: 'agent', assistant_id: 'agent' });
    expect(await onRedis.stores.runs.threadOf(run.run_id)).toBe(threadId);
    expect((await onRedis.stores.threads.get(threadId))?.status).toBe('busy');
  });

  it('leaves the thread metadata alone when given none', async () => {
    const threadId = await thread({ topic: 'y' });
    await onRedis.stores.runs.create(pending(threadId), 'enqueue');
    expect(await onRedis.stores.threads.metadataOf(threadId)).toEqual({ topic: 'y' });
  });

  it('a run refused on a busy thread (reject) notes nothing: no metadata, no run, no run id', async () => {
    const threadId = await thread();
    await onRedis.stores.runs.create(pending(threadId), 'enqueue', { graph_id: 'first', assistant_id: 'first' });
    const refused = pending(threadId);
    await expect(onRedis.stores.runs.create(refused, 'reject', { graph_id: 'second', assistant_id: 'second' })).rejects.toBeInstanceOf(ThreadBusyError);
    expect(await onRedis.stores.threads.metadataOf(threadId)).toEqual({ graph_id: 'first', assistant_id: 'first' });
    expect(await onRedis.stores.runs.get(threadId, refused.run_id)).toBeNull();
    expect(await onRedis.stores.runs.threadOf(refused.run_id)).toBeNull();
  });

  it('a run on a missing thread is refused, and its id is not noted', async () => {
    const run = pending(randomUUID());
    await expect(onRedis.stores.runs.create(run, 'enqueue', { graph_id: 'agent' })).rejects.toBeInstanceOf(ThreadNotFoundError);
    expect(await onRedis.stores.runs.threadOf(run.run_id)).toBeNull();
    expect(await onRedis.stores.threads.metadataOf(run.thread_id)).toBeNull();
  });

  it('a run id recorded already (a retried cron tick) is answered as it is, its id still noted', async () => {
    const threadId = await thread();
    const run = pending(threadId);
    await onRedis.stores.runs.create(run, 'enqueue');
    expect(await onRedis.stores.runs.create({ ...run, assistant_id: 'other' }, 'enqueue', { graph_id: 'other' })).toEqual({ dispatch: false, existed: true, holdsThread: true });
    expect(await onRedis.stores.runs.threadOf(run.run_id)).toBe(threadId);
    expect(await onRedis.stores.threads.metadataOf(threadId)).toEqual({});
  });
});

describe('a thread’s metadata alone', () => {
  it('is read without its values, and is null for a thread that does not exist', async () => {
    const threadId = await thread({ k: 1 });
    await onRedis.stores.threads.setValues(threadId, { messages: ['a long conversation'] });
    expect(await onRedis.stores.threads.metadataOf(threadId)).toEqual({ k: 1 });
    expect(await onRedis.stores.threads.metadataOf(randomUUID())).toBeNull();
  });
});
