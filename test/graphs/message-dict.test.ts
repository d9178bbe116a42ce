// A message's dict form without its generic toJSON() (#34): the same JSON as `toDict()` for every
// kind of message LangChain streams, tricky values included, and toDict() itself for anything else.
import {
  AIMessage,
  AIMessageChunk,
  ChatMessage,
  FunctionMessage,
  HumanMessage,
  HumanMessageChunk,
  RemoveMessage,
  SystemMessage,
  ToolMessage,
  ToolMessageChunk,
} from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { messageDict } from '../../graphs/message-dict.js';

const same = (message: Parameters<typeof messageDict>[0]) => expect(JSON.stringify(messageDict(message))).toBe(JSON.stringify(message.toDict()));

describe('messageDict', () => {
  it('gives the JSON toDict() gives for every kind of message', () => {
    const messages = [
      new HumanMessage({ content: 'hi', id: 'h1', name: 'ann', additional_kwargs: { x: 1 } }),
      new HumanMessageChunk({ content: [{ type: 'text', text: 'part' }], id: 'h2' }),
      new SystemMessage('be brief'),
      new AIMessage({
        content: 'answer',
        id: 'a1',
        tool_calls: [{ id: 't1', name: 'search', args: { q: 'x' }, type: 'tool_call' }],
        usage_metadata: { input_tokens: 3, output_tokens: 4, total_tokens: 7 },
        response_metadata: { model_name: 'm', finish_reason: 'stop' },
      }),
      new AIMessageChunk({ content: 'tok', id: 'c1', tool_call_chunks: [{ id: 't1', name: 'search', args: '{"q":', index: 0, type: 'tool_call_chunk' }] }),
      new AIMessageChunk({ content: 'tok', id: 'c2' }).concat(new AIMessageChunk({ content: 'en', usage_metadata: { input_tokens: 1, output_tokens: 2, total_tokens: 3 } })),
      new ToolMessage({ content: 'ok', tool_call_id: 't1', id: 'tm', status: 'error', artifact: { rows: [1, 2] } }),
      new ToolMessageChunk({ content: 'o', tool_call_id: 't2' }),
      new ChatMessage({ content: 'c', role: 'critic' }),
      new FunctionMessage({ content: '{}', name: 'f' }),
      new RemoveMessage({ id: 'gone' }),
    ];
    for (const message of messages) same(message);
  });

  it('escapes values as LangChain does: lc keys, the escape key alone, class instances, nested messages, cycles', () => {
    const looped: Record<string, unknown> = { name: 'loop' };
    const message = new AIMessage({
      content: 'x',
      additional_kwargs: {
        lookalike: { lc: 1, type: 'constructor', id: ['x'] },
        escapeOnly: { __lc_escaped__: { a: 1 } },
        when: new Date('2026-01-02T03:04:05.000Z'),
        nested: new HumanMessage({ content: 'inner', id: 'in' }),
        deep: [{ list: [{ lc: 2 }] }, 'plain'],
      },
      response_metadata: { camelCaseKey: 1 },
    });
    same(message);
    (message.additional_kwargs as Record<string, unknown>).self = message;
    same(message);
    looped.self = looped;
    same(new HumanMessage({ content: 'y', additional_kwargs: { looped } }));
  });

  it('leaves the message untouched', () => {
    const kwargs = { lookalike: { lc: 1 } };
    const message = new AIMessage({ content: 'x', additional_kwargs: kwargs });
    messageDict(message);
    expect(message.additional_kwargs).toEqual({ lookalike: { lc: 1 } });
    expect(message.additional_kwargs.lookalike).toBe(kwargs.lookalike);
  });

  it('hands a message class of its own (extra attributes) to toDict()', () => {
    class Tagged extends HumanMessage {
      override get lc_attributes() {
        return { tag: 'mine' };
      }
    }
    const message = new Tagged({ content: 'hi', id: 't' });
    expect(messageDict(message).data).toHaveProperty('tag', 'mine');
    same(message);
  });
});
