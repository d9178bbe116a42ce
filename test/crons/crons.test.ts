// Crons through the LangGraph SDK: create (on a thread, stateless), search, count, PATCH,
// DELETE, refusals, thread deletion taking its crons, the recursion_limit Warren gives the runs
// it starts, stateless crons' threads deleted or kept, and a cron's first ticks taken out of order.
import type { Cron, CronCreateResponse, Run } from '@langchain/langgraph-sdk';
import { Queue } from 'bullmq';
import { CronExpressionParser } from 'cron-parser';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { tickRunId, tickThreadId } from '../../src/admission/tick-ids.js';
import { CRON_TICK_JOB_NAME, cronQueueName } from '../../src/crons/cron-queue.js';
import { userInput } from '../support/sse.js';
import { startStack, testGraphs, type Stack } from '../support/stack.js';
import { testBullmq } from '../support/test-redis.js';
import { waitFor } from '../support/wait-for.js';

let stack: Stack;
const EVERY_SECOND = '* * * * * *';
/** A schedule that does not fire during a test (once a year). */
const YEARLY = '0 0 1 1 *';

beforeAll(async () => {
  stack = await startStack({ workers: 1, config: { graphs: testGraphs('echo') } });
});
afterAll(async () => {
  await stack?.close();
});

const post = (path: string, body: unknown, method = 'POST') =>
  fetch(`${stack.apiUrl}${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

// Fields the wire carries and the SDK's types leave out: a run's kwargs, a created cron's on_run_completed.
type WireRun = Run & { kwargs: Record<string, unknown> };
type CreatedCron = CronCreateResponse & Pick<Cron, 'on_run_completed'>;

/** The runs a cron has started on its thread, once there are at least `count`. */
const cronRuns = (threadId: string, cronId: string, count: number) =>
  waitFor(async () => {
    // Warren lists a thread's runs as `{runs}` (the spec's shape).
    const listed = (await stack.client.runs.list(threadId, { limit: 100 })) as unknown as { runs: WireRun[] };
    const runs = listed.runs.filter((r) => r.metadata?.cron_id === cronId);
    return runs.length >= count && runs;
  }, `${count} runs of cron ${cronId}`);

describe('crons API', () => {
  it('creates, searches, counts, patches and deletes a cron', async () => {
    const { thread_id: threadId } = await stack.client.threads.create();
    const cron = await stack.client.crons.createForThread(threadId, 'echo', { schedule: YEARLY, input: userInput('hi'), metadata: { team: 'a' } });
    expect(cron).toMatchObject({ thread_id: threadId, assistant_id: 'echo', schedule: YEARLY, enabled: true, user_id: null, metadata: { team: 'a' }, end_time: null });
    expect(cron.payload).toEqual({ input: userInput('hi') });
    expect(Date.parse(cron.next_run_date)).toBeGreaterThan(Date.now());
    const stateless = await stack.client.crons.create('echo', { schedule: YEARLY, timezone: 'Europe/Paris', endTime: '2099-01-01T00:00:00Z' });
    expect(stateless).toMatchObject({ thread_id: null, on_run_completed: 'delete', timezone: 'Europe/Paris', end_time: '2099-01-01T00:00:00.000Z' });

    expect((await stack.client.crons.search({ threadId })).map((c) => c.cron_id)).toEqual([cron.cron_id]);
    expect(await stack.client.crons.count({ threadId })).toBe(1);
    expect(await stack.client.crons.count({ metadata: { team: 'a' } })).toBe(1);
    const selected = await stack.client.crons.search({ assistantId: 'echo', select: ['cron_id', 'schedule'], sortBy: 'created_at', sortOrder: 'asc', limit: 100 });
    expect(selected.map((c) => c.cron_id)).toEqual(expect.arrayContaining([cron.cron_id, stateless.cron_id]));
    expect(Object.keys(selected[0] ?? {}).sort()).toEqual(['cron_id', 'schedule']);

    const patched = await stack.client.crons.update(cron.cron_id, { schedule: '0 12 * * *', enabled: false, metadata: { extra: 1 } });
    expect(patched).toMatchObject({ schedule: '0 12 * * *', enabled: false, next_run_date: null, metadata: { team: 'a', extra: 1 } });
    expect(await stack.client.crons.search({ threadId, enabled: false })).toHaveLength(1);

    await stack.client.crons.delete(cron.cron_id);
    await stack.client.crons.delete(stateless.cron_id);
    expect(await stack.client.crons.count({ threadId })).toBe(0);
    expect((await post(`/runs/crons/${cron.cron_id}`, {}, 'DELETE')).status).toBe(404);
    expect((await post(`/runs/crons/${cron.cron_id}`, { enabled: true }, 'PATCH')).status).toBe(404);
  });

  it('refuses bad input with a 4xx naming the field', async () => {
    const { thread_id: threadId } = await stack.client.threads.create();
    const cases: Array<[string, unknown, number, RegExp]> = [
      ['/runs/crons', { assistant_id: 'echo', schedule: 'every day' }, 422, /schedule/],
      ['/runs/crons', { assistant_id: 'echo', schedule: '61 * * * *' }, 422, /schedule/],
      ['/runs/crons', { assistant_id: 'echo', schedule: YEARLY, timezone: 'Mars/Olympus' }, 422, /timezone/],
      ['/runs/crons', { assistant_id: 'echo', schedule: YEARLY, surprise: 1 }, 422, /surprise/],
      ['/runs/crons', { assistant_id: 'echo', schedule: YEARLY, durability: 'exit' }, 422, /durability/],
      ['/runs/crons', { assistant_id: 'nobody', schedule: YEARLY }, 404, /nobody/],
      ['/threads/no-such-thread/runs/crons', { assistant_id: 'echo', schedule: YEARLY }, 404, /no-such-thread/],
      [`/threads/${threadId}/runs/crons`, { assistant_id: 'echo', schedule: YEARLY, on_run_completed: 'keep' }, 422, /on_run_completed/],
    ];
    for (const [path, body, status, detail] of cases) {
      const response = await post(path, body);
      expect(response.status, `${path} ${JSON.stringify(body)}`).toBe(status);
      expect(((await response.json()) as { detail: string }).detail).toMatch(detail);
    }
    expect(await stack.client.crons.count({ threadId })).toBe(0);
  });

  it('deletes a thread’s crons with the thread', async () => {
    const { thread_id: threadId } = await stack.client.threads.create();
    const cron = await stack.client.crons.createForThread(threadId, 'echo', { schedule: YEARLY });
    await stack.client.threads.delete(threadId);
    expect(await stack.client.crons.count({ threadId })).toBe(0);
    expect((await post(`/runs/crons/${cron.cron_id}`, { enabled: false }, 'PATCH')).status).toBe(404);
  });
});

describe('cron runs', () => {
  it('start with recursion_limit 100 unless the cron’s config sets one, and carry the cron id', async () => {
    const { thread_id: threadId } = await stack.client.threads.create();
    const defaulted = await stack.client.crons.createForThread(threadId, 'echo', { schedule: EVERY_SECOND, input: userInput('tick') });
    const [run] = await cronRuns(threadId, defaulted.cron_id, 1);
    await stack.client.crons.delete(defaulted.cron_id);
    expect((run as WireRun).kwargs).toMatchObject({ config: { recursion_limit: 100 } });
    expect((run as WireRun).metadata).toMatchObject({ cron_id: defaulted.cron_id, cron_tick: expect.any(String) });

    const own = await stack.client.crons.createForThread(threadId, 'echo', { schedule: EVERY_SECOND, input: userInput('tick'), config: { recursion_limit: 7 } });
    const [ownRun] = await cronRuns(threadId, own.cron_id, 1);
    await stack.client.crons.delete(own.cron_id);
    expect((ownRun as WireRun).kwargs).toMatchObject({ config: { recursion_limit: 7 } });
    const done = await stack.client.runs.join(threadId, (ownRun as WireRun).run_id);
    expect(JSON.stringify(done)).toContain('echo: tick');
  });

  it('stateless: each tick runs on a new thread, deleted after its run by default, kept with on_run_completed keep', async () => {
    for (const onRunCompleted of ['delete', 'keep'] as const) {
      const marker = `stateless-${onRunCompleted}`;
      const cron = (await stack.client.crons.create('echo', { schedule: EVERY_SECOND, input: userInput(marker), onRunCompleted })) as CreatedCron;
      expect(cron.on_run_completed).toBe(onRunCompleted);
      // Ticks fall on whole seconds, and name their run and thread: look for the first that ran.
      const firstTick = Math.ceil(Date.parse(cron.created_at) / 1000) * 1000;
      const ticks = Array.from({ length: 30 }, (_, i) => firstTick + i * 1000);
      const finished = await waitFor(async () => {
        for (const tick of ticks) {
          const stream = await fetch(`${stack.apiUrl}/runs/${tickRunId(cron.cron_id, tick)}/stream`);
          const text = stream.ok ? await stream.text() : '';
          if (text.includes(`echo: ${marker}`)) return { tick, threadId: tickThreadId(cron.cron_id, tick) };
        }
        return null;
      }, `a finished run of the ${onRunCompleted} cron`);
      await stack.client.crons.delete(cron.cron_id);
      const thread = await fetch(`${stack.apiUrl}/threads/${finished.threadId}`);
      if (onRunCompleted === 'keep') {
        expect(thread.status).toBe(200);
        expect(JSON.stringify(await thread.json())).toContain(`echo: ${marker}`);
        await stack.client.threads.delete(finished.threadId);
      } else {
        await waitFor(async () => (await fetch(`${stack.apiUrl}/threads/${finished.threadId}`)).status === 404, 'the run’s thread to be deleted');
      }
    }
  });

  it('a later tick taken before the first one has fired still starts the runs of every tick since the cron was made', async () => {
    // Three ticks next January, none due during the test: the test hands the worker its ticks.
    const schedule = '0 0 1-3 1 *';
    const { thread_id: threadId } = await stack.client.threads.create();
    const cron = await stack.client.crons.createForThread(threadId, 'echo', { schedule, input: userInput('tick') });
    const expression = CronExpressionParser.parse(schedule, { currentDate: new Date(cron.created_at), tz: 'UTC' });
    const [first, second, third] = [1, 2, 3].map(() => expression.next().getTime()) as [number, number, number];
    const bull = testBullmq(inject('redisUrl'));
    const queueName = cronQueueName(stack.env.queueName);
    const queue = new Queue(queueName, { connection: bull.connection, prefix: bull.prefix(queueName) });
    /** The ticks the cron's runs on the thread stand for, checked against their run ids. */
    const ranTicks = async () => {
      const listed = (await stack.client.runs.list(threadId, { limit: 100 })) as unknown as { runs: Run[] };
      const runs = listed.runs.filter((r) => r.metadata?.cron_id === cron.cron_id);
      const ticks = runs.map((r) => Date.parse(String(r.metadata?.cron_tick)));
      runs.forEach((r, i) => expect(r.run_id).toBe(tickRunId(cron.cron_id, ticks[i] as number)));
      return ticks.sort((a, b) => a - b);
    };
    try {
      // BullMQ takes its first job late and schedules the next from then, past the second tick;
      // that next job is taken before the first one has fired (as two workers may).
      await queue.add(CRON_TICK_JOB_NAME, { cron_id: cron.cron_id }, { jobId: `repeat:${cron.cron_id}:${third}` });
      await waitFor(async () => (await ranTicks()).includes(third), 'the run of the third tick');
      // Then the first tick: the scheduler's own job (still delayed until January), or one like it.
      const firstId = `repeat:${cron.cron_id}:${first}`;
      const firstJob = (await queue.getJob(firstId)) ?? (await queue.add(CRON_TICK_JOB_NAME, { cron_id: cron.cron_id }, { jobId: firstId }));
      if (await firstJob.isDelayed()) await firstJob.promote();
      await waitFor(async () => (await queue.getJob(firstId))?.finishedOn !== undefined, 'the first tick to be taken');
      // Both ticks are done: the one in between has its run too, and each tick has one.
      expect(await ranTicks()).toEqual([first, second, third]);
    } finally {
      await stack.client.crons.delete(cron.cron_id);
      await queue.close();
      bull.close();
    }
  });
});
