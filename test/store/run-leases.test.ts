// A claimed run's hold (#33): a live hold keeps other workers' claims off the run, its attempt
// renews it (and re-takes it after an outage) only while no other attempt holds the run, and a
// hand-back ends it at once.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { nowIso, type RunFence } from '../../src/store/records.js';
import { isFenceRefusal } from '../../src/store/script-errors.js';
import { testStores } from '../support/test-stores.js';

const LEASE = { leaseMs: 60_000, graceMs: 60_000 };

const onRedis = testStores();

/** A pending run on a thread of its own. */
async function pendingRun(): Promise<{ threadId: string; runId: string }> {
  const threadId = randomUUID();
  const runId = randomUUID();
  await onRedis.stores.threads.create({ threadId, metadata: {}, ifExists: 'raise', owner: 'run-leases-test' });
  const now = nowIso();
  await onRedis.stores.runs.create(
    { run_id: runId, thread_id: threadId, assistant_id: 'agent', status: 'pending', created_at: now, updated_at: now, metadata: {}, kwargs: {}, multitask_strategy: 'enqueue', attempt: 0, cancel: null, temporary: false },
    'enqueue',
  );
  return { threadId, runId };
}

async function claim(threadId: string, runId: string, lease = LEASE): Promise<RunFence> {
  const result = await onRedis.stores.runs.start(threadId, runId, 10, lease);
  expect(result.kind).toBe('started');
  return { threadId, runId, attempt: (result as { attempt: number }).attempt };
}

describe('run holds (#33)', () => {
  it('keeps a second claim off a run whose hold is live, and tells it when to ask again', async () => {
    const { threadId, runId } = await pendingRun();
    const fence = await claim(threadId, runId);
    const second = await onRedis.stores.runs.start(threadId, runId, 10, LEASE);
    expect(second.kind).toBe('held');
    const { attempt, waitMs } = second as { attempt: number; waitMs: number };
    expect(attempt).toBe(fence.attempt);
    expect(waitMs).toBeGreaterThan(0);
    expect(waitMs).toBeLessThanOrEqual(LEASE.leaseMs);
    expect(await onRedis.stores.runs.renewLease(fence, LEASE.leaseMs)).toBe(true);
  });

  it('lets a claim take over a hold that lapsed, and then refuses the old attempt its renewal', async () => {
    const { threadId, runId } = await pendingRun();
    // A hold of 0 ms has lapsed as soon as it is taken: its worker died, as far as Redis knows.
    const first = await claim(threadId, runId, { leaseMs: 0, graceMs: 0 });
    const second = await claim(threadId, runId);
    expect(second.attempt).toBe(first.attempt + 1);
    const refused = await onRedis.stores.runs.renewLease(first, LEASE.leaseMs).then(
      () => null,
      (err: unknown) => err,
    );
    expect(isFenceRefusal(refused), String(refused)).toBe(true);
  });

  it('ends the hold with a hand-back: the next claim does not wait for it', async () => {
    const { threadId, runId } = await pendingRun();
    const first = await claim(threadId, runId);
    await onRedis.stores.runs.handBack(first);
    expect((await claim(threadId, runId)).attempt).toBe(first.attempt + 1);
  });

  it('has nothing to renew once the run has settled', async () => {
    const { threadId, runId } = await pendingRun();
    const fence = await claim(threadId, runId);
    await onRedis.stores.runs.finish({ fence, status: 'success', threadStatus: 'idle', retentionSeconds: 60 });
    expect(await onRedis.stores.runs.renewLease(fence, LEASE.leaseMs)).toBe(false);
    expect((await onRedis.stores.runs.start(threadId, runId, 10, LEASE)).kind).toBe('terminal');
  });
});
