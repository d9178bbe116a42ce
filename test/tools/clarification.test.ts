// ask_clarification interrupts a graph run (checkpointed in Redis) and the resumed run turns the
// answer into the tool's result.
import { randomUUID } from 'node:crypto';
import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { Command, END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import type { RedisClient } from '../../src/store/redis.js';
import { connectTestRedis } from '../support/test-redis.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RedisCheckpointSaver } from '../../src/store/checkpointer.js';
import { answerText, createClarificationTool } from '../../workers/tools/clarification.js';

let redis: RedisClient;
let saver: RedisCheckpointSaver;
const threads: string[] = [];

beforeAll(() => {
  redis = connectTestRedis(inject('redisUrl'));
  saver = new RedisCheckpointSaver(redis);
});

afterAll(async () => {
  for (const threadId of threads) await saver.deleteThread(threadId);
  await redis.quit();
});

function buildGraph() {
  return new StateGraph(MessagesAnnotation)
    .addNode('tools', new ToolNode([createClarificationTool()]))
    .addEdge(START, 'tools')
    .addEdge('tools', END)
    .compile({ checkpointer: saver });
}

function askingMessage(args: Record<string, unknown>) {
  return new AIMessage({ content: '', tool_calls: [{ id: 'call_q', name: 'ask_clarification', args, type: 'tool_call' }] });
}

describe('ask_clarification', () => {
  it('interrupts with the question, and the resume value becomes the tool result', async () => {
    const threadId = `clarify-${randomUUID()}`;
    threads.push(threadId);
    const config = { configurable: { thread_id: threadId } };
    const graph = buildGraph();

    const first = await graph.invoke(
      { messages: [askingMessage({ question: 'Which colour?', options: ['red', 'blue'], context: 'The brief names none.', clarification_type: 'approach_choice' })] },
      config,
    );
    const interrupts = (first as { __interrupt__?: Array<{ value: unknown }> }).__interrupt__;
    expect(interrupts).toHaveLength(1);
    expect(interrupts?.[0]?.value).toEqual({
      type: 'clarification',
      question: 'Which colour?',
      options: ['red', 'blue'],
      context: 'The brief names none.',
      clarification_type: 'approach_choice',
    });
    const paused = await graph.getState(config);
    expect(paused.next).toEqual(['tools']);

    const resumed = await graph.invoke(new Command({ resume: 'blue' }), config);
    const last = resumed.messages.at(-1);
    expect(last).toBeInstanceOf(ToolMessage);
    expect(last).toMatchObject({ content: 'blue', tool_call_id: 'call_q' });
    expect((await graph.getState(config)).next).toEqual([]);
  });

  it('defaults options to an empty list', async () => {
    const threadId = `clarify-${randomUUID()}`;
    threads.push(threadId);
    const result = await buildGraph().invoke({ messages: [askingMessage({ question: 'Deadline?' })] }, { configurable: { thread_id: threadId } });
    expect((result as { __interrupt__?: Array<{ value: unknown }> }).__interrupt__?.[0]?.value).toEqual({ type: 'clarification', question: 'Deadline?', options: [] });
  });

  it("takes DeerFlow's form fields and nulls for what is not given", async () => {
    const threadId = `clarify-${randomUUID()}`;
    threads.push(threadId);
    const fields = [
      { name: 'deadline', label: 'Deadline', type: 'date', required: true },
      { name: 'format', type: 'select', options: ['pdf', 'docx'], placeholder: null },
    ];
    const result = await buildGraph().invoke(
      { messages: [askingMessage({ question: 'A few details?', options: null, context: null, clarification_type: 'missing_info', fields })] },
      { configurable: { thread_id: threadId } },
    );
    expect((result as { __interrupt__?: Array<{ value: unknown }> }).__interrupt__?.[0]?.value).toEqual({
      type: 'clarification',
      question: 'A few details?',
      options: [],
      clarification_type: 'missing_info',
      fields,
    });
    await expect(createClarificationTool().invoke({ question: 'Pick', fields: [{ label: 'no name' }] })).rejects.toThrow(/did not match/);
  });

  it('turns any resume value into text', () => {
    expect(answerText('yes')).toBe('yes');
    expect(answerText({ answer: 'Friday' })).toBe('Friday');
    expect(answerText({ choice: 2 })).toBe('{"choice":2}');
    expect(answerText(null)).toBe('(the user gave no answer)');
  });

  it('refuses an empty question', async () => {
    await expect(createClarificationTool().invoke({ question: '' })).rejects.toThrow(/did not match/);
  });
});
