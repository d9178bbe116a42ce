// Graph output to wire JSON, as the LangGraph API spells it. LangChain messages serialise to
// their dict form (`{type, content, id, tool_calls, ...}`) rather than their `lc` constructor
// form, plus `role`, which the spec's `messages` event shows.
const ROLE_BY_TYPE: Record<string, string> = {
  human: 'user',
  ai: 'assistant',
  AIMessageChunk: 'assistant',
  system: 'system',
  tool: 'tool',
  function: 'function',
  generic: 'user',
};

interface DictMessage {
  toDict(): { type: string; data: Record<string, unknown> };
}

const isDictMessage = (v: unknown): v is DictMessage =>
  typeof v === 'object' && v !== null && typeof (v as { toDict?: unknown }).toDict === 'function';

function messageToWire(message: DictMessage): Record<string, unknown> {
  const { type, data } = message.toDict();
  const wire: Record<string, unknown> = { ...data, type };
  const role = ROLE_BY_TYPE[type] ?? (typeof data.role === 'string' ? data.role : undefined);
  if (role !== undefined) wire.role = role;
  return wire;
}

/** One line of JSON. Never throws: what cannot be serialised becomes an error object. */
export function toWireJson(value: unknown): string {
  try {
    const json = JSON.stringify(value, function (this: Record<string, unknown>, key: string, replaced: unknown) {
      // `replaced` has already been through toJSON(); the raw value still has toDict().
      const raw = this[key];
      if (isDictMessage(raw)) return messageToWire(raw);
      if (typeof replaced === 'bigint') return replaced.toString();
      return replaced;
    });
    return json ?? 'null';
  } catch (err) {
    return JSON.stringify({ error: 'SerializationError', message: (err as Error).message });
  }
}

/** The same conversion, to a plain object (for JSON responses built by Fastify). */
export function toWire<T = unknown>(value: unknown): T {
  return JSON.parse(toWireJson(value)) as T;
}
