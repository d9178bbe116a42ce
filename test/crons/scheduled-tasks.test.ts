// Issue #30: DeerFlow's /api/scheduled-tasks, served on Warren's crons, on 2 API replicas and
// 2 workers. The contract (DeerFlow's field names, types and status codes, whichever replica
// answers), and the flow: a task's tick runs once, pause and resume stop and restart its
// scheduler (and the LangGraph cron routes say so), a trigger starts one run now.
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tickRunId } from '../../src/admission/tick-ids.js';
import { cronQueueName } from '../../src/crons/cron-queue.js';
import { buildDist, startCluster, type Cluster } from '../support/cluster.js';
import { GRAPHS_MODULE } from '../support/stack.js';
import { testBullmq } from '../support/test-redis.js';
import { waitFor } from '../support/wait-for.js';

const QUEUE = `tasks-${randomUUID().slice(0, 8)}`;
/** A schedule that does not fire during a test (once a year). */
const YEARLY = '0 0 1 1 *';

let cluster: Cluster;
let bull: ReturnType<typeof testBullmq>;
let cronQueue: Queue;
beforeAll(async () => {
  buildDist();
  // DeerFlow's tasks run `lead_agent`; here it is the echo graph, so no model is needed.
  cluster = await startCluster({ apis: 2, workers: 2, workerConcurrency: 4, env: { WARREN_QUEUE: QUEUE }, config: { graphs: { lead_agent: `${GRAPHS_MODULE}:echo` } } });
  bull = testBullmq(cluster.redis.url);
  cronQueue = new Queue(cronQueueName(QUEUE), { connection: bull.connection, prefix: bull.prefix(cronQueueName(QUEUE)) });
}, 240_000);
afterAll(async () => {
  await cronQueue?.close();
  bull?.close();
  await cluster?.stop();
}, 60_000);

/** One request to replica `i` (0 or 1), its status and JSON body. */
async function call<T = Record<string, unknown>>(i: number, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`http://127.0.0.1:${cluster.apis[i]?.port}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as T };
}
async function ok<T = Record<string, unknown>>(i: number, method: string, path: string, body?: unknown): Promise<T> {
  const res = await call<T>(i, method, path, body);
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

interface Task {
  id: string;
  status: string;
  next_run_at: string | null;
  last_run_id: string | null;
  last_thread_id: string | null;
  run_count: number;
  thread_id: string | null;
}
interface TaskRun {
  id: string;
  run_id: string;
  thread_id: string;
  trigger: string;
  status: string;
  scheduled_for: string | null;
}

const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);
const isoOrNull = expect.toSatisfy((v: unknown) => v === null || (typeof v === 'string' && !Number.isNaN(Date.parse(v))));
const stringOrNull = expect.toSatisfy((v: unknown) => v === null || typeof v === 'string');

/** Every field of DeerFlow's task dict, with its type. */
const TASK_SHAPE = {
  id: expect.any(String),
  user_id: expect.any(String),
  thread_id: stringOrNull,
  context_mode: expect.stringMatching(/^(fresh_thread_per_run|reuse_thread)$/),
  assistant_id: 'lead_agent',
  title: expect.any(String),
  prompt: expect.any(String),
  schedule_type: expect.stringMatching(/^(cron|once)$/),
  schedule_spec: expect.any(Object),
  timezone: expect.any(String),
  status: expect.stringMatching(/^(enabled|paused|running|completed|failed|cancelled)$/),
  overlap_policy: expect.any(String),
  next_run_at: isoOrNull,
  last_run_at: isoOrNull,
  last_run_id: stringOrNull,
  last_thread_id: stringOrNull,
  last_error: stringOrNull,
  lease_owner: null,
  lease_expires_at: null,
  run_count: expect.any(Number),
  created_at: iso,
  updated_at: iso,
};
const RUN_SHAPE = {
  id: expect.any(String),
  task_id: expect.any(String),
  thread_id: expect.any(String),
  run_id: stringOrNull,
  scheduled_for: isoOrNull,
  trigger: expect.stringMatching(/^(scheduled|manual)$/),
  status: expect.stringMatching(/^(queued|running|success|failed|skipped|interrupted)$/),
  error: stringOrNull,
  started_at: isoOrNull,
  finished_at: isoOrNull,
  created_at: iso,
};

const runsOf = (taskId: string, i = 0) => ok<TaskRun[]>(i, 'GET', `/api/scheduled-tasks/${taskId}/runs`);

describe('DeerFlow scheduled tasks on Warren crons (#30)', () => {
  it('answers in DeerFlow shapes and status codes on either replica', async () => {
    const created = await call<Task>(0, 'POST', '/api/scheduled-tasks', {
      context_mode: 'fresh_thread_per_run',
      thread_id: null,
      title: 'Daily digest',
      prompt: 'summarise the news',
      schedule_type: 'cron',
      schedule_spec: { cron: YEARLY },
      timezone: 'Europe/Paris',
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual(TASK_SHAPE);
    expect(created.body).toMatchObject({
      title: 'Daily digest',
      prompt: 'summarise the news',
      context_mode: 'fresh_thread_per_run',
      thread_id: null,
      schedule_type: 'cron',
      schedule_spec: { cron: YEARLY },
      timezone: 'Europe/Paris',
      status: 'enabled',
      run_count: 0,
      last_run_id: null,
    });
    const id = created.body.id;
    // 2027-01-01T00:00 in Paris.
    expect(Date.parse(created.body.next_run_at ?? '')).toBeGreaterThan(Date.now());

    // The same record on the other replica, and through the LangGraph cron routes.
    expect(await ok(1, 'GET', `/api/scheduled-tasks/${id}`)).toEqual(created.body);
    expect((await ok<Task[]>(1, 'GET', '/api/scheduled-tasks')).map((t) => t.id)).toContain(id);
    const [cron] = await ok<Array<Record<string, unknown>>>(1, 'POST', '/api/langgraph/runs/crons/search', { metadata: {}, limit: 1000 }).then((cs) => cs.filter((c) => c.cron_id === id));
    expect(cron).toMatchObject({ cron_id: id, assistant_id: 'lead_agent', schedule: YEARLY, timezone: 'Europe/Paris', enabled: true, on_run_completed: 'keep', title: 'Daily digest' });

    const patched = await ok<Task>(1, 'PATCH', `/api/scheduled-tasks/${id}`, { title: 'Weekly digest', schedule_spec: { cron: '0 9 * * 1' }, timezone: 'UTC', context_mode: 'fresh_thread_per_run' });
    expect(patched).toEqual(TASK_SHAPE);
    expect(patched).toMatchObject({ title: 'Weekly digest', schedule_spec: { cron: '0 9 * * 1' }, timezone: 'UTC', prompt: 'summarise the news' });

    // A task on a thread: listed under the thread.
    const { thread_id: threadId } = await ok<{ thread_id: string }>(0, 'POST', '/api/langgraph/threads', {});
    const onThread = await ok<Task>(1, 'POST', '/api/scheduled-tasks', {
      context_mode: 'reuse_thread',
      thread_id: threadId,
      title: 't',
      prompt: 'p',
      schedule_type: 'cron',
      schedule_spec: { cron: YEARLY },
      timezone: 'UTC',
    });
    expect(onThread).toMatchObject({ thread_id: threadId, context_mode: 'reuse_thread', overlap_policy: 'skip' });
    expect((await ok<Task[]>(0, 'GET', `/api/threads/${threadId}/scheduled-tasks`)).map((t) => t.id)).toEqual([onThread.id]);
    expect(await ok(0, 'GET', `/api/threads/${randomUUID()}/scheduled-tasks`)).toEqual([]);

    // Refusals: 422 naming the cause, 404 for a task that is not there.
    const base = { title: 't', prompt: 'p', schedule_type: 'cron', schedule_spec: { cron: YEARLY }, timezone: 'UTC' };
    const refusals: Array<[unknown, number, RegExp]> = [
      [{ ...base, context_mode: 'sometimes' }, 422, /context_mode/],
      [{ ...base, context_mode: 'reuse_thread' }, 422, /reuse_thread requires thread_id/],
      [{ ...base, context_mode: 'reuse_thread', thread_id: 'no-such-thread' }, 404, /not found/],
      [{ ...base, schedule_type: 'weekly' }, 422, /schedule_type/],
      [{ ...base, schedule_spec: {} }, 422, /schedule_spec.cron/],
      [{ ...base, schedule_spec: { cron: '* * * *' } }, 422, /exactly 5 fields/],
      [{ ...base, schedule_spec: { cron: YEARLY, jitter: 5 } }, 422, /schedule_spec.jitter/],
      [{ ...base, timezone: 'Mars/Olympus' }, 422, /Unknown timezone/],
      [{ ...base, schedule_type: 'once', schedule_spec: {} }, 422, /once schedule requires run_at/],
      [{ ...base, schedule_type: 'once', schedule_spec: { run_at: '2020-01-01T00:00:00Z' } }, 422, /in the future/],
      [{ ...base, overlap_policy: 'allow' }, 422, /overlap_policy/],
      [{ ...base, title: '' }, 422, /title/],
    ];
    for (const [body, status, detail] of refusals) {
      const res = await call<{ detail: string }>(0, 'POST', '/api/scheduled-tasks', body);
      expect({ body, status: res.status }).toEqual({ body, status });
      expect(res.body.detail).toMatch(detail);
    }
    const moved = await call<{ detail: string }>(0, 'PATCH', `/api/scheduled-tasks/${id}`, { context_mode: 'reuse_thread', thread_id: threadId });
    expect(moved.status).toBe(422);
    expect(moved.body.detail).toMatch(/context_mode/);
    const missing = randomUUID();
    for (const [method, path] of [
      ['GET', ''],
      ['PATCH', ''],
      ['DELETE', ''],
      ['POST', '/pause'],
      ['POST', '/resume'],
      ['POST', '/trigger'],
      ['GET', '/runs'],
    ] as const) {
      const res = await call<{ detail: string }>(1, method, `/api/scheduled-tasks/${missing}${path}`, method === 'PATCH' ? { title: 'x' } : undefined);
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 });
      expect(res.body.detail).toBe('Scheduled task not found');
    }
    expect((await call(0, 'GET', `/api/scheduled-tasks/${id}/runs?limit=0`)).status).toBe(422);

    expect(await ok(0, 'DELETE', `/api/scheduled-tasks/${id}`)).toEqual({ id, deleted: true });
    expect(await ok(1, 'DELETE', `/api/scheduled-tasks/${onThread.id}`)).toEqual({ id: onThread.id, deleted: true });
    expect((await call(1, 'GET', `/api/scheduled-tasks/${id}`)).status).toBe(404);
    expect(await ok(1, 'GET', `/api/threads/${threadId}/scheduled-tasks`)).toEqual([]);
  }, 60_000);

  it('runs a task once at its tick; pause and resume stop and restart its scheduler; trigger runs it now', async () => {
    // A one-off task a few seconds ahead: its one tick makes one run, on a thread of its own.
    const runAt = new Date(Math.ceil((Date.now() + 3000) / 1000) * 1000);
    const once = await ok<Task>(0, 'POST', '/api/scheduled-tasks', {
      context_mode: 'fresh_thread_per_run',
      title: 'once',
      prompt: 'hello once',
      schedule_type: 'once',
      schedule_spec: { run_at: runAt.toISOString() },
      timezone: 'Asia/Tokyo',
    });
    expect(once).toMatchObject({ schedule_type: 'once', schedule_spec: { run_at: runAt.toISOString() }, next_run_at: runAt.toISOString(), status: 'enabled' });
    const [tickRun] = await waitFor(async () => {
      const runs = await runsOf(once.id, 1);
      return runs.length === 1 && runs[0]?.status === 'success' && runs;
    }, 'the one-off task to run once', 30_000);
    expect(tickRun).toEqual(RUN_SHAPE);
    expect(tickRun).toMatchObject({ task_id: once.id, trigger: 'scheduled', scheduled_for: runAt.toISOString(), run_id: tickRunId(once.id, runAt.getTime()) });
    // The run's thread is kept, with the prompt's answer in it.
    const state = await ok<{ values: { messages: Array<{ content: string }> } }>(1, 'GET', `/api/langgraph/threads/${tickRun?.thread_id}/state`);
    expect(state.values.messages.map((m) => m.content)).toEqual(['hello once', 'echo: hello once']);
    const done = await waitFor(async () => {
      const t = await ok<Task>(1, 'GET', `/api/scheduled-tasks/${once.id}`);
      return t.status === 'completed' && t;
    }, 'the one-off task to be completed');
    expect(done).toMatchObject({ run_count: 1, last_run_id: tickRun?.run_id, last_thread_id: tickRun?.thread_id, next_run_at: null });

    // A yearly task: paused, its scheduler is gone and the LangGraph routes show it disabled.
    const yearly = await ok<Task>(1, 'POST', '/api/scheduled-tasks', { title: 'y', prompt: 'hello yearly', schedule_type: 'cron', schedule_spec: { cron: YEARLY }, timezone: 'UTC' });
    expect(await cronQueue.getJobScheduler(yearly.id)).toBeTruthy();
    const paused = await ok<Task>(0, 'POST', `/api/scheduled-tasks/${yearly.id}/pause`);
    expect(paused).toEqual(TASK_SHAPE);
    expect(paused).toMatchObject({ status: 'paused', next_run_at: null });
    expect(await cronQueue.getJobScheduler(yearly.id)).toBeFalsy();
    const cronOf = async () => (await ok<Array<{ cron_id: string; enabled: boolean }>>(1, 'POST', '/api/langgraph/runs/crons/search', { limit: 1000 })).find((c) => c.cron_id === yearly.id);
    expect(await cronOf()).toMatchObject({ enabled: false, next_run_date: null });
    expect((await ok<Task[]>(1, 'GET', '/api/scheduled-tasks')).find((t) => t.id === yearly.id)?.status).toBe('paused');

    const resumed = await ok<Task>(1, 'POST', `/api/scheduled-tasks/${yearly.id}/resume`);
    expect(resumed).toMatchObject({ status: 'enabled', next_run_at: expect.any(String) });
    expect(await cronQueue.getJobScheduler(yearly.id)).toBeTruthy();
    expect(await cronOf()).toMatchObject({ enabled: true });

    // Trigger: one run now, twice two runs (a trigger's ids never meet a tick's or each other's).
    expect(await ok(0, 'POST', `/api/scheduled-tasks/${yearly.id}/trigger`)).toEqual({ id: yearly.id, triggered: true });
    expect(await ok(1, 'POST', `/api/scheduled-tasks/${yearly.id}/trigger`)).toEqual({ id: yearly.id, triggered: true });
    const manual = await waitFor(async () => {
      const runs = await runsOf(yearly.id);
      return runs.length === 2 && runs.every((r) => r.status === 'success') && runs;
    }, 'both triggered runs to succeed', 30_000);
    for (const run of manual) expect(run).toEqual(RUN_SHAPE);
    expect(manual.map((r) => r.trigger)).toEqual(['manual', 'manual']);
    expect(new Set(manual.map((r) => r.run_id)).size).toBe(2);
    expect(new Set(manual.map((r) => r.thread_id)).size).toBe(2);
    const [newest] = manual;
    expect(await ok(0, 'GET', `/api/scheduled-tasks/${yearly.id}`)).toMatchObject({ run_count: 2, last_run_id: newest?.run_id, status: 'enabled' });
    expect(await runsOf(yearly.id).then(() => ok<TaskRun[]>(1, 'GET', `/api/scheduled-tasks/${yearly.id}/runs?limit=1&offset=1`))).toEqual([manual[1]]);
    // A paused task can still be triggered, as in DeerFlow.
    await ok(0, 'POST', `/api/scheduled-tasks/${yearly.id}/pause`);
    expect(await ok(1, 'POST', `/api/scheduled-tasks/${yearly.id}/trigger`)).toEqual({ id: yearly.id, triggered: true });
    await waitFor(async () => (await runsOf(yearly.id)).length === 3, 'the paused task\'s triggered run');

    await ok(0, 'DELETE', `/api/scheduled-tasks/${yearly.id}`);
    await ok(0, 'DELETE', `/api/scheduled-tasks/${once.id}`);
    expect(await cronQueue.getJobScheduler(yearly.id)).toBeFalsy();
  }, 90_000);
});
