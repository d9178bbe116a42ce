// config.yaml's faults as an operator reads them: an unknown key by its full path with the
// closest known key, and every other fault as a sentence naming the key, what it must be and
// what it is, never a validator's wording ("must NOT have additional properties").
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';

/** At most this many faults are listed; the rest are counted. */
const MAX_LISTED = 5;

/** Edit distance (insertions, deletions, substitutions) between two keys. */
export function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
    }
    previous = current;
  }
  return previous[b.length] as number;
}

/** The known key closest to `key`, if one is close enough to be what was meant. */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  let best: { key: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = levenshtein(key.toLowerCase(), candidate.toLowerCase());
    if (!best || distance < best.distance) best = { key: candidate, distance };
  }
  // A third of the key's length, at least 2: `supports_visoin` → `supports_vision`, not `zzz` → `web`.
  return best && best.distance <= Math.max(2, Math.floor(key.length / 3)) ? best.key : undefined;
}

interface SchemaNode {
  type?: string;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: boolean | SchemaNode;
  patternProperties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
  const?: unknown;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const child = (at: string, key: string) => (at ? `${at}.${key}` : key);

/** Every key of `value` that its place in `schema` does not know, as a sentence each. */
export function unknownKeys(schema: TSchema, value: unknown): string[] {
  const found: string[] = [];
  const walk = (node: SchemaNode, v: unknown, at: string) => {
    if (node.type === 'array' && node.items && Array.isArray(v)) {
      v.forEach((item, i) => walk(node.items as SchemaNode, item, `${at}[${i}]`));
      return;
    }
    if (!isPlainObject(v)) return;
    if (node.patternProperties) {
      const [inner] = Object.values(node.patternProperties);
      if (inner) for (const [key, item] of Object.entries(v)) walk(inner, item, child(at, key));
      return;
    }
    if (node.type !== 'object' || !node.properties) return;
    const known = Object.keys(node.properties);
    for (const [key, item] of Object.entries(v)) {
      const inner = node.properties[key];
      if (inner) {
        walk(inner, item, child(at, key));
      } else if (node.additionalProperties !== true) {
        const near = closestKey(key, known);
        found.push(`unknown key "${child(at, key)}"${near ? `; did you mean "${child(at, near)}"?` : ` (known keys here: ${known.join(', ')})`}`);
      }
    }
  };
  walk(schema as SchemaNode, value, '');
  return found;
}

/** `/models/0/name` → `models[0].name`. */
function keyPath(instancePath: string): string {
  const out = instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), '');
  return out || 'the top level';
}

function pointer(value: unknown, instancePath: string): unknown {
  let v = value;
  for (const part of instancePath.split('/').slice(1)) v = isPlainObject(v) || Array.isArray(v) ? (v as Record<string, unknown>)[part] : undefined;
  return v;
}

function given(v: unknown, hidden = false): string {
  if (v === undefined) return 'missing';
  if (v === null) return 'empty (null)';
  if (hidden) return `${Array.isArray(v) ? 'a list' : isPlainObject(v) ? 'a mapping of keys' : `a ${typeof v}`} (not shown: it may be a secret)`;
  if (Array.isArray(v)) return `a list (${JSON.stringify(v).slice(0, 60)})`;
  if (isPlainObject(v)) return 'a mapping of keys';
  return `${JSON.stringify(v)} (${typeof v === 'number' ? (Number.isInteger(v) ? 'an integer' : 'a number') : `a ${typeof v}`})`;
}

const TYPE_NAMES: Record<string, string> = {
  string: 'text',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  array: 'a list',
  object: 'a mapping of keys',
  null: 'empty',
};

interface SchemaError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message: string;
}

function expectation(error: SchemaError, allowed: unknown[]): string {
  const p = error.params;
  switch (error.keyword) {
    case 'type':
      return `be ${TYPE_NAMES[String(p.type)] ?? String(p.type)}`;
    case 'minimum':
    case 'exclusiveMinimum':
      return p.comparison === '>' ? `be greater than ${String(p.limit)}` : `be at least ${String(p.limit)}`;
    case 'maximum':
    case 'exclusiveMaximum':
      return p.comparison === '<' ? `be less than ${String(p.limit)}` : `be at most ${String(p.limit)}`;
    case 'minLength':
      return `be at least ${String(p.limit)} character(s) long`;
    case 'maxLength':
      return `be at most ${String(p.limit)} characters long`;
    case 'minItems':
      return `have at least ${String(p.limit)} item(s)`;
    case 'maxItems':
      return `have at most ${String(p.limit)} items`;
    case 'pattern':
      return `match the pattern ${String(p.pattern)}`;
    case 'const':
    case 'anyOf':
      return allowed.length > 0 ? `be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}` : 'be one of the allowed forms';
    default:
      return error.message.replace(/^must /, 'be ');
  }
}

/**
 * Each fault of `value` against `schema` as a sentence: the key, what it must be, what it is
 * (only its type where `hidden` says the key may hold a secret).
 */
export function schemaProblems(schema: TSchema, value: unknown, hidden: (key: string) => boolean = () => false): string[] {
  const errors = [...Value.Errors(schema, value)] as unknown as SchemaError[];
  const byPath = new Map<string, SchemaError[]>();
  for (const e of errors) byPath.set(e.instancePath, [...(byPath.get(e.instancePath) ?? []), e]);
  const sentences: string[] = [];
  for (const [instancePath, group] of byPath) {
    const required = group.find((e) => e.keyword === 'required');
    if (required) {
      const missing = (required.params.requiredProperties ?? required.params.missingProperty ?? []) as string[] | string;
      for (const key of [missing].flat()) sentences.push(`"${child(instancePath === '' ? '' : keyPath(instancePath), key)}" is required but missing.`);
      continue;
    }
    // A union's branches each report their own `const`; together they are the allowed values.
    const allowed = group.filter((e) => e.keyword === 'const').map((e) => e.params.allowedValue);
    const first = group.find((e) => e.keyword !== 'const' && e.keyword !== 'anyOf') ?? group[0];
    if (!first) continue;
    const fault = allowed.length > 0 ? { ...first, keyword: 'const' } : first;
    const key = keyPath(instancePath);
    sentences.push(`"${key}" must ${expectation(fault, allowed)}, but it is ${given(pointer(value, instancePath), hidden(key))}.`);
  }
  return sentences;
}

/** The faults as one message: `source` has N problem(s): each on its own line. */
export function problemsMessage(source: string, problems: string[]): string {
  const listed = problems.slice(0, MAX_LISTED).map((p) => `  - ${p}`);
  const more = problems.length > MAX_LISTED ? [`  (and ${problems.length - MAX_LISTED} more)`] : [];
  return [`${source} has ${problems.length === 1 ? 'a problem' : `${problems.length} problems`}:`, ...listed, ...more].join('\n');
}
