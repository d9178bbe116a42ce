// Graph output to wire JSON, as the LangGraph API spells it. LangChain messages serialise to
// their dict form (`{type, content, id, tool_calls, ...}`) rather than their `lc` constructor
// form, plus `role`, which the spec's `messages` event shows.
import { messageDict, type SerializableMessage } from './message-dict.js';

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

/** LangChain's own messages have `getType()`, and their dict form can skip the generic toJSON(). */
const isSerializableMessage = (v: DictMessage): v is DictMessage & SerializableMessage => typeof (v as { getType?: unknown }).getType === 'function';

function messageToWire(message: DictMessage): Record<string, unknown> {
  const { type, data } = isSerializableMessage(message) ? messageDict(message) : message.toDict();
  const wire: Record<string, unknown> = { ...data, type };
  const role = ROLE_BY_TYPE[type] ?? (typeof data.role === 'string' ? data.role : undefined);
  if (role !== undefined) wire.role = role;
  return wire;
}

/**
 * Copies the parts of `value` that hold messages, turning each message into its dict form, so
 * JSON.stringify can then run without a replacer. A replacer is called for every key of every
 * event, and JSON.stringify calls a message's costly toJSON() before a replacer sees it, only
 * for the replacer to throw that away and build the dict (which calls toJSON() again).
 * `path` holds the objects being walked: a cycle is left for JSON.stringify to refuse.
 */
function toPlain(value: unknown, key: string, path: Set<object>): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object' || value === null || path.has(value)) return value;
  if (isDictMessage(value)) return toPlain(messageToWire(value), key, path);
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') {
    const json: unknown = (toJSON as (key: string) => unknown).call(value, key);
    // A toJSON() that returns its own object is walked like any other object.
    if (json !== value) return toPlain(json, key, path);
  }
  path.add(value);
  try {
    if (Array.isArray(value)) {
      let copy: unknown[] | null = null;
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        const plain = toPlain(item, String(i), path);
        if (plain !== item) (copy ??= value.slice())[i] = plain;
      }
      return copy ?? value;
    }
    // Class instances without toJSON (errors, Maps...) serialise as their own enumerable fields,
    // as JSON.stringify does; walking those fields is what finds messages inside them.
    let copy: Record<string, unknown> | null = null;
    for (const field of Object.keys(value)) {
      const item = (value as Record<string, unknown>)[field];
      const plain = toPlain(item, field, path);
      if (plain !== item) (copy ??= { ...(value as Record<string, unknown>) })[field] = plain;
    }
    return copy ?? value;
  } finally {
    path.delete(value);
  }
}

/** One line of JSON, or the error that stopped it. */
function wireJsonOrError(value: unknown): string | Error {
  try {
    return JSON.stringify(toPlain(value, '', new Set())) ?? 'null';
  } catch (err) {
    return err as Error;
  }
}

const serialisationError = (err: Error): string => JSON.stringify({ error: 'SerializationError', message: err.message });

/** One line of JSON. Never throws: what cannot be serialised becomes an error object. */
export function toWireJson(value: unknown): string {
  const json = wireJsonOrError(value);
  return typeof json === 'string' ? json : serialisationError(json);
}

/**
 * A cache of the metadata half of `messages` chunks, as JSON, keyed by the metadata object:
 * LangGraph hands every token of one model call the same object, so it is serialised once per
 * call rather than once per token (#34). Entries go with their objects.
 */
const tupleMetadataJson = new WeakMap<object, string>();

/** A `messages` chunk, `[message, metadata]`, as toWireJson writes it. */
export function messageTupleJson(tuple: unknown): string {
  const metadata: unknown = Array.isArray(tuple) && tuple.length === 2 ? tuple[1] : null;
  if (typeof metadata !== 'object' || metadata === null) return toWireJson(tuple);
  let tail = tupleMetadataJson.get(metadata);
  if (tail === undefined) {
    const json = wireJsonOrError(metadata);
    // A metadata object that cannot be serialised fails the whole chunk, as it would have.
    if (typeof json !== 'string') return serialisationError(json);
    tail = json;
    tupleMetadataJson.set(metadata, tail);
  }
  const head = wireJsonOrError((tuple as unknown[])[0]);
  return typeof head === 'string' ? `[${head},${tail}]` : serialisationError(head);
}

/** The same conversion, to a plain object (for JSON responses built by Fastify). */
export function toWire<T = unknown>(value: unknown): T {
  return JSON.parse(toWireJson(value)) as T;
}
