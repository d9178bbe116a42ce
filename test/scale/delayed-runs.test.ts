// after_seconds and bulk cancel across two API processes and two worker processes: a delayed run
// made on one replica is seen pending on the other and runs when due; delayed runs cancelled
// through the other replica are settled at once by whichever worker takes them.
import { fileURLToPath } from 'node:url';
import { Client } from '@langchain/langgraph-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDist, startCluster, type Cluster } from '../support/cluster.js';
import { waitFor } from '../support/wait-for.js';

const CONFORMANCE = fileURLToPath(new URL('../fixtures/graphs/conformance-graphs.ts', import.meta.url));

let cluster: Cluster;
let replicas: Client[];
beforeAll(async () => {
  buildDist();
  cluster = await startCluster({ apis: 2, workers: 2, workerConcurrency: 4, config: { graphs: { steps: `${CONFORMANCE}:steps` } } });
  replicas = cluster.apis.map((api) => new Client({ apiUrl: `http://127.0.0.1:${api.port}/api/langgraph`, defaultHeaders: { Accept: 'application/json' } }));
}, 240_000);
afterAll(async () => cluster?.stop(), 60_000);

const [a, b] = [() => replicas[0] as Client, () => replicas[1] as Client];

describe('delayed runs on two replicas and two workers', () => {
  it('a delayed run waits as pending on every replica, then runs once due', async () => {
    const { thread_id: id } = await a().threads.create();
    const run = await a().runs.create(id, 'steps', { input: { log: [] }, afterSeconds: 1 });
    expect((await b().runs.get(id, run.run_id)).status).toBe('pending');
    expect((await b().threads.get(id)).status).toBe('busy');
    await waitFor(async () => (await b().runs.get(id, run.run_id)).status === 'success', 'the delayed run to finish', 30_000);
    const state = await a().threads.getState<{ log: string[] }>(id);
    expect(state.values.log).toEqual(['first', 'second', 'third']);
  });

  it('a run queued behind a delayed one waits its turn; bulk cancel on the other replica settles both', async () => {
    const { thread_id: id } = await a().threads.create();
    const delayed = await a().runs.create(id, 'steps', { input: { log: [] }, afterSeconds: 3600 });
    const queued = await a().runs.create(id, 'steps', { input: { log: [] }, multitaskStrategy: 'enqueue' });
    expect((await b().runs.get(id, queued.run_id)).status).toBe('pending');
    await b().runs.cancelMany({ threadId: id, runIds: [delayed.run_id] });
    // The delayed run is settled as cancelled without waiting its hour, and hands the thread on.
    await waitFor(async () => (await a().runs.get(id, delayed.run_id)).status === 'interrupted', 'the delayed run to be cancelled', 30_000);
    await waitFor(async () => (await a().runs.get(id, queued.run_id)).status === 'success', 'the queued run to run', 30_000);

    const other = (await a().threads.create()).thread_id;
    const later = await a().runs.create(other, 'steps', { input: { log: [] }, afterSeconds: 3600 });
    await b().runs.cancelMany({ status: 'pending', action: 'interrupt' });
    await waitFor(async () => (await a().runs.get(other, later.run_id)).status === 'interrupted', 'the pending run to be cancelled', 30_000);
    expect((await b().threads.get(other)).status).toBe('idle');
  });

  it('a bulk cancel that answers is seen: its pending runs read interrupted on the other replica at once (#32)', async () => {
    const { thread_id: id } = await a().threads.create();
    const byId = await a().runs.create(id, 'steps', { input: { log: [] }, afterSeconds: 3600 });
    await b().runs.cancelMany({ threadId: id, runIds: [byId.run_id] });
    expect((await a().runs.get(id, byId.run_id)).status).toBe('interrupted');

    const other = (await a().threads.create()).thread_id;
    const byStatus = await a().runs.create(other, 'steps', { input: { log: [] }, afterSeconds: 3600 });
    await b().runs.cancelMany({ status: 'pending' });
    expect((await a().runs.get(other, byStatus.run_id)).status).toBe('interrupted');
  });
});
