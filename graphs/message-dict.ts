// A LangChain message's dict form (`message.toDict().data`) without going through its generic
// `toJSON()`, which the worker ran for every streamed token (#34: 4 % of its CPU at c = 50).
// `toJSON()` walks the class chain for aliases, secrets and extra attributes on every call,
// copies every value while escaping it, and turns every key into snake_case with regexes. For
// LangChain's own message classes those tables never change, so they are read once per class;
// the values are escaped as LangChain escapes them, copying only what escaping changes.
// Anything else (another class, secrets or extra attributes) takes `toDict()` itself.

/** LangChain's message classes (their JS names), whose alias, secret and attribute tables are fixed. */
const CORE_MESSAGE_CLASSES = new Set(
  ['Human', 'AI', 'System', 'Tool', 'Function', 'Chat', 'Base']
    .flatMap((kind) => [`${kind}Message`, `${kind}MessageChunk`])
    .concat(['RemoveMessage', 'Serializable']),
);

const ESCAPED_KEY = '__lc_escaped__';

export interface SerializableMessage {
  lc_serializable?: unknown;
  lc_kwargs?: unknown;
  getType(): string;
  toDict(): { type: string; data: object };
}

type MessageDict = { type: string; data: Record<string, unknown> };

/** What toJSON() reads from a class chain: null when the class's tables must be read per call. */
type KeyTable = { aliases: Record<string, string> } | null;

const tables = new WeakMap<object, KeyTable>();

function keyTable(message: object): KeyTable {
  const proto = Object.getPrototypeOf(message) as object | null;
  if (proto === null) return null;
  let table = tables.get(proto);
  if (table !== undefined) return table;
  table = readKeyTable(message, proto);
  tables.set(proto, table);
  return table;
}

function readKeyTable(message: object, proto: object): KeyTable {
  const aliases: Record<string, string> = {};
  for (let current: object | null = proto; current && current !== Object.prototype; current = Object.getPrototypeOf(current) as object | null) {
    const name = (current as { constructor?: { name?: unknown } }).constructor?.name;
    if (typeof name !== 'string' || !CORE_MESSAGE_CLASSES.has(name)) return null;
    const secrets = Reflect.get(current, 'lc_secrets', message) as object | undefined;
    const attributes = Reflect.get(current, 'lc_attributes', message) as object | undefined;
    if ((secrets && Object.keys(secrets).length > 0) || (attributes && Object.keys(attributes).length > 0)) return null;
    Object.assign(aliases, Reflect.get(current, 'lc_aliases', message) as object | undefined);
  }
  return { aliases };
}

/** LangChain's snake_case for a constructor argument's name (load/map_keys.js), remembered per name. */
const jsonKeys = new Map<string, string>();
const MAX_JSON_KEYS = 1024;

function jsonKey(key: string): string {
  let out = jsonKeys.get(key);
  if (out !== undefined) return out;
  out = key
    .replace(/([A-Z]+)([A-Z][a-z0-9]+)/g, '$1_$2')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[-_\s]+/g, '_')
    .toLowerCase();
  if (jsonKeys.size < MAX_JSON_KEYS) jsonKeys.set(key, out);
  return out;
}

const isSerializableLike = (value: object): boolean => 'lc_serializable' in value && typeof (value as { toJSON?: unknown }).toJSON === 'function';

/**
 * LangChain's escaping of a constructor argument (load/validation.js `escapeIfNeeded`), giving the
 * same JSON: an object with an `lc` key (or only `__lc_escaped__`) is wrapped, a serializable is
 * left for its toJSON(), a class instance becomes its own enumerable fields, and a cycle becomes
 * LangChain's "not_implemented" stand-in. Plain objects and arrays are copied only when a part changes.
 */
function escaped(value: unknown, path: Set<object>): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const out = escaped(item, path);
      if (out !== item) (copy ??= value.slice())[i] = out;
    }
    return copy ?? value;
  }
  if (path.has(value)) return notImplemented(value);
  if (isSerializableLike(value)) return value;
  const record = value as Record<string, unknown>;
  if ('lc' in record || (ESCAPED_KEY in record && Object.keys(record).length === 1)) return { [ESCAPED_KEY]: record };
  const proto = Object.getPrototypeOf(record) as object | null;
  // LangChain copies every object into a plain one: the same JSON for a plain object, not for a
  // class instance (a Date's toJSON() is lost, as LangChain loses it).
  let copy: Record<string, unknown> | null = proto === Object.prototype || proto === null ? null : {};
  path.add(record);
  for (const key of Object.keys(record)) {
    const item = record[key];
    const out = escaped(item, path);
    if (copy === null && out !== item) copy = { ...record };
    if (copy !== null) copy[key] = out;
  }
  path.delete(record);
  return copy ?? record;
}

function notImplemented(value: object): Record<string, unknown> {
  const lcId = (value as { lc_id?: unknown }).lc_id;
  const id = 'lc_id' in value && Array.isArray(lcId) ? lcId : [(value as { constructor?: { name?: string } }).constructor?.name ?? 'Object'];
  return { lc: 1, type: 'not_implemented', id };
}

/** The message's `{type, data}` as its `toDict()` gives them. */
export function messageDict(message: SerializableMessage): MessageDict {
  const table = keyTable(message);
  const kwargs = message.lc_kwargs;
  if (table === null || message.lc_serializable !== true || typeof kwargs !== 'object' || kwargs === null || Array.isArray(kwargs) || isSerializableLike(kwargs)) return message.toDict() as MessageDict;
  const fields = kwargs as Record<string, unknown>;
  const self = message as unknown as Record<string, unknown>;
  const data: Record<string, unknown> = {};
  // toJSON() marks the message itself as on the path: a field holding the message is a cycle.
  const path = new Set<object>([message]);
  for (const key of Object.keys(fields)) {
    data[table.aliases[key] || jsonKey(key)] = escaped(key in self ? self[key] : fields[key], path);
  }
  return { type: message.getType(), data };
}
