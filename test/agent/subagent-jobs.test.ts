// Sub-agents of one run execute as their own queued jobs, spread over the workers.
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { taskJobId, taskQueueName } from '../../src/queue/task-queue.js';
import { keys } from '../../src/store/keys.js';
import { testBullmq } from '../support/test-redis.js';
import type { AgentScript } from '../support/agent-script.js';
import { startAgentStack, type AgentStack } from '../support/agent-stack.js';
import { collect, userInput } from '../support/sse.js';
import type { Stack } from '../support/stack.js';

let agent: AgentStack;
let stack: Stack;
let script: AgentScript;
beforeAll(async () => {
  agent = await startAgentStack({ workers: 3, workerConcurrency: 1, config: { title: { enabled: false } } });
  ({ stack, script } = agent);
});
afterAll(async () => agent?.close());

describe('sub-agent jobs', () => {
  it('runs a turn’s three sub-agents as three jobs on different workers', async () => {
    script.lead.push(
      { tool_calls: [1, 2, 3].map((i) => ({ name: 'task', args: { description: `part ${i}`, prompt: `do ${i}` }, id: `call_part_${i}` })) },
      { content: 'Combined.' },
    );
    script.sub.push(...[1, 2, 3].map((i) => ({ content: `done ${i} with some words`, delayMs: 150 })));
    const { thread_id: id } = await stack.client.threads.create();
    const events = await collect(
      stack.client.runs.stream(id, 'lead_agent', {
        input: userInput('split it'),
        streamMode: ['custom'],
        config: { configurable: { model_name: 'scripted', subagent_enabled: true } },
      }),
    );
    const runId = (events[0]?.data as { run_id: string }).run_id;
    const types = events.filter((e) => e.event === 'custom').map((e) => (e.data as { type: string }).type);
    expect(types.filter((t) => t === 'task_completed')).toHaveLength(3);
    expect(types).toContain('task_running');

    const bull = testBullmq(inject('redisUrl'));
    const queue = new Queue(taskQueueName(stack.env.queueName), { connection: bull.connection, prefix: bull.prefix(taskQueueName(stack.env.queueName)) });
    try {
      const jobs = await Promise.all([1, 2, 3].map((i) => queue.getJob(taskJobId(runId, `call_part_${i}`))));
      // The scripted model hands out answers in request order, so which job got which is open.
      expect(jobs.map((j) => j?.returnvalue).sort()).toEqual(['done 1 with some words', 'done 2 with some words', 'done 3 with some words']);
      const workers = new Set(jobs.map((j) => j?.processedBy));
      expect(workers.size).toBe(3);
      console.log(`[subagents] 3 tasks ran on ${[...workers].join(', ')}`);
    } finally {
      await queue.close();
      bull.close();
    }
  });
});
