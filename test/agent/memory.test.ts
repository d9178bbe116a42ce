// Memory end to end through /api/langgraph with the scripted model: a turn queues a memory
// update that runs after the debounce as its own job, the model's revision lands in the store,
// and the next conversation's system prompt carries it. Quick turns make one update; an answer
// that is not a revision changes nothing.
import { Queue, type JobType } from 'bullmq';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { memoryQueueName } from '../../src/memory/memory-queue.js';
import { keys } from '../../src/store/keys.js';
import { testBullmq } from '../support/test-redis.js';
import { isMemoryUpdateRequest } from '../support/agent-script.js';
import { startAgentStack, type AgentStack } from '../support/agent-stack.js';
import { waitFor } from '../support/wait-for.js';

let agent: AgentStack;
let memoryJobs: Queue;
let bull: ReturnType<typeof testBullmq> | undefined;
beforeAll(async () => {
  // Two workers: turns finish on either, and still make one update per window.
  agent = await startAgentStack({ workers: 2, config: { memory: { debounce_seconds: 3, fact_confidence_threshold: 0.7 } } });
  bull = testBullmq(inject('redisUrl'));
  memoryJobs = new Queue(memoryQueueName(agent.stack.env.queueName), { connection: bull.connection, prefix: bull.prefix(memoryQueueName(agent.stack.env.queueName)) });
});
afterAll(async () => {
  await memoryJobs?.close();
  bull?.close();
  await agent?.close();
});
beforeEach(async () => {
  agent.reset();
  await fetch(`${agent.stack.url}/api/memory`, { method: 'DELETE' });
});

const memory = async () => (await (await fetch(`${agent.stack.url}/api/memory`)).json()) as { user: Record<string, { summary: string }>; facts: { content: string; source: string; confidence: number }[] };
const memoryRequests = () => agent.llm.requests.filter(isMemoryUpdateRequest);
const newThread = async () => (await agent.stack.client.threads.create()).thread_id;
/** The memory queue's count of each state asked for. BullMQ types the answer as an open record,
 * though it holds every state asked for; one call keeps the counts one snapshot. */
const jobCounts = async <T extends JobType>(...types: T[]) => (await memoryJobs.getJobCounts(...types)) as Record<T, number>;
/** Waits until `n` memory updates have finished and none is queued. */
const updatesFinished = (n: number) =>
  waitFor(async () => {
    const counts = await jobCounts('completed', 'failed', 'delayed', 'waiting', 'active');
    return counts.completed + counts.failed === n && counts.delayed + counts.waiting + counts.active === 0;
  }, `${n} memory updates`);

describe('memory', () => {
  it('learns a fact in one conversation and tells the next one', async () => {
    const before = (await jobCounts('completed')).completed;
    agent.script.memory.push({
      content: JSON.stringify({
        user: { workContext: { summary: 'Maintains a Redis-backed agent service.', shouldUpdate: true }, topOfMind: { summary: 'ignored', shouldUpdate: false } },
        newFacts: [
          { content: 'The user keeps bees on their roof', category: 'context', confidence: 0.95 },
          { content: 'A guess below the threshold', category: 'context', confidence: 0.3 },
        ],
      }),
    });
    const first = await newThread();
    await agent.run(first, 'I keep bees on my roof, by the way.');
    const learnt = await waitFor(async () => {
      const m = await memory();
      return m.facts.length > 0 && m;
    }, 'the learnt fact');
    expect(learnt.facts).toEqual([expect.objectContaining({ content: 'The user keeps bees on their roof', confidence: 0.95, source: first })]);
    expect(learnt.user.workContext?.summary).toBe('Maintains a Redis-backed agent service.');
    expect(learnt.user.topOfMind?.summary).toBe('');
    await updatesFinished(before + 1);
    const [update] = memoryRequests();
    expect(memoryRequests()).toHaveLength(1);
    expect(String(update?.messages[1]?.content)).toContain('I keep bees on my roof, by the way.');
    expect(String(update?.messages[1]?.content)).toContain(`thread="${first}"`);

    await agent.run(await newThread(), 'What should I plant?');
    const leads = agent.script.leadRequests(agent.llm.requests);
    const system = String(leads.at(-1)?.messages[0]?.content);
    expect(system).toContain('## Memory');
    expect(system).toContain('- [context] The user keeps bees on their roof');
    expect(system).toContain('Maintains a Redis-backed agent service.');
    // The first conversation's prompt had no memory yet.
    expect(String(leads[0]?.messages[0]?.content)).not.toContain('## Memory');
    // The second conversation's own update (an empty revision) runs before the next test.
    await updatesFinished(before + 2);
    expect((await memory()).facts).toHaveLength(1);
  });

  it('makes one update of several quick turns', async () => {
    const before = (await jobCounts('completed')).completed;
    agent.script.memory.push({ content: JSON.stringify({ newFacts: [{ content: 'Speaks French, German and Dutch', category: 'knowledge', confidence: 0.9 }] }) });
    const threads = await Promise.all([newThread(), newThread(), newThread()]);
    await Promise.all(threads.map((id, i) => agent.run(id, `Quick turn number ${i}`)));
    await waitFor(async () => (await memory()).facts.length === 1, 'the fact of the coalesced update');
    await updatesFinished(before + 1);
    expect(memoryRequests()).toHaveLength(1);
    const input = String(memoryRequests()[0]?.messages[1]?.content);
    for (const [i, id] of threads.entries()) {
      expect(input).toContain(`Quick turn number ${i}`);
      expect(input).toContain(`thread="${id}"`);
    }
  });

  it('ignores an answer that is not a revision, leaving the memory as it was', async () => {
    const before = (await jobCounts('completed')).completed;
    const kept = await fetch(`${agent.stack.url}/api/memory/facts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'Added by hand', confidence: 0.8 }),
    });
    expect(kept.status).toBe(200);
    const expected = await memory();
    agent.script.memory.push({ content: 'Sure! Here is what I learnt: {not json' });
    await agent.run(await newThread(), 'Remember this please.');
    await updatesFinished(before + 1);
    expect(memoryRequests()).toHaveLength(1);
    expect(await memory()).toEqual(expected);
  });
});
