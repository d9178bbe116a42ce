// Graph output to wire JSON: messages in their dict form wherever they sit, everything else as
// JSON.stringify would write it, and never a throw.
import { AIMessageChunk, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { messageTupleJson, toWire, toWireJson } from '../../graphs/serialize.js';

describe('toWireJson', () => {
  it('writes a messages-tuple chunk as the message dict with its role, and the metadata as is', () => {
    const chunk = new AIMessageChunk({ content: 'tok', id: 'c1' });
    const wire = toWire<[Record<string, unknown>, Record<string, unknown>]>([chunk, { langgraph_node: 'chat', tags: [] }]);
    expect(wire[0]).toMatchObject({ type: 'ai', role: 'assistant', content: 'tok', id: 'c1', tool_call_chunks: [] });
    expect(wire[0]).not.toHaveProperty('lc');
    expect(wire[1]).toEqual({ langgraph_node: 'chat', tags: [] });
  });

  it('finds messages at any depth: in arrays, objects, class instances and toJSON results', () => {
    class Holder {
      inner = { list: [new HumanMessage({ content: 'hi', id: 'h' })] };
    }
    const viaToJSON = { toJSON: () => ({ message: new ToolMessage({ content: 'ok', tool_call_id: 't1', id: 'tm' }) }) };
    const wire = toWire<{ a: { inner: { list: { type: string; role: string }[] } }; b: { message: { type: string; role: string } } }>({
      a: new Holder(),
      b: viaToJSON,
    });
    expect(wire.a.inner.list[0]).toMatchObject({ type: 'human', role: 'user', content: 'hi' });
    expect(wire.b.message).toMatchObject({ type: 'tool', role: 'tool', tool_call_id: 't1' });
  });

  it('writes bigints as strings, dates as ISO strings, and drops undefined like JSON.stringify', () => {
    const date = new Date('2026-01-02T03:04:05.000Z');
    expect(toWireJson({ n: 12n, d: date, u: undefined, list: [undefined, 1] })).toBe(
      '{"n":"12","d":"2026-01-02T03:04:05.000Z","list":[null,1]}',
    );
    expect(toWireJson(undefined)).toBe('null');
  });

  it('leaves the input untouched', () => {
    const message = new HumanMessage({ content: 'hi', id: 'h' });
    const input = { messages: [message], plain: { x: 1 } };
    toWireJson(input);
    expect(input.messages[0]).toBe(message);
    expect(input.plain).toEqual({ x: 1 });
  });

  it('turns a cycle into a serialisation error instead of throwing or looping', () => {
    const a: Record<string, unknown> = { name: 'a' };
    a.self = a;
    a.again = a;
    expect(JSON.parse(toWireJson(a))).toMatchObject({ error: 'SerializationError' });
  });

  it('keeps shared (non-cyclic) references, as JSON.stringify does', () => {
    const shared = { v: 1 };
    expect(toWireJson({ a: shared, b: [shared, shared] })).toBe('{"a":{"v":1},"b":[{"v":1},{"v":1}]}');
  });

  it('walks an object whose toJSON returns itself like any other object', () => {
    const selfish = { n: 5n, message: new HumanMessage({ content: 'hi', id: 'h' }), toJSON() { return this; } };
    const wire = toWire<{ selfish: { n: string; message: { type: string } } }>({ selfish });
    expect(wire.selfish.n).toBe('5');
    expect(wire.selfish.message.type).toBe('human');
  });
});

describe('messageTupleJson (#34)', () => {
  it('writes a messages chunk as toWireJson does, token after token with the same metadata object', () => {
    const metadata = { langgraph_node: 'chat', tags: ['a'], n: 5n, ls_temperature: undefined };
    for (const content of ['one', ' two', ' three']) {
      const tuple = [new AIMessageChunk({ content, id: 'c1' }), metadata];
      expect(messageTupleJson(tuple)).toBe(toWireJson(tuple));
    }
  });

  it('falls back to toWireJson for anything but a pair with an object, and never throws', () => {
    for (const odd of [null, 'text', [1], [1, 2, 3], [new HumanMessage('hi'), null], [new HumanMessage('hi'), 'meta']]) {
      expect(messageTupleJson(odd)).toBe(toWireJson(odd));
    }
    const looped: Record<string, unknown> = {};
    looped.self = looped;
    expect(JSON.parse(messageTupleJson([new HumanMessage('hi'), looped]))).toMatchObject({ error: 'SerializationError' });
    expect(JSON.parse(messageTupleJson([looped, { ok: true }]))).toMatchObject({ error: 'SerializationError' });
  });
});
