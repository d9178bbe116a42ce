// fast-check arbitraries for hostile HTTP input, guided by the JSON schemas of the OpenAPI
// document: values that mostly have the declared shape (so they get past the first check and
// reach the services), mixed with type confusion, prototype keys and strings built to break
// paths, encodings and parsers.
import fc, { type Arbitrary } from 'fast-check';

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
}

/** Strings that have broken path, encoding or parser code elsewhere. */
export const HOSTILE_STRINGS = [
  '',
  ' ',
  '.',
  '..',
  '../../etc/passwd',
  '..\\..\\windows',
  '/etc/passwd',
  'C:\\Windows',
  'a\u0000b',
  '\u0000',
  '%00',
  '%2e%2e%2f',
  '%252e%252e',
  '%c0%ae',
  '\uff0e\uff0e\uff0f',
  '\u2024\u2024',
  '\u202e',
  '\ud800',
  '\r\nX-Injected: 1',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '$ref',
  '${PATH}',
  '$OPENAI_API_KEY',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '{"a":',
  'x'.repeat(5000),
  '-1',
  '0',
  '1e309',
  'NaN',
  'null',
  'true',
  '*',
  '?',
  '#',
  '; rm -rf /',
] as const;

export const hostileString: Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
);

const anyJson: Arbitrary<unknown> = fc.jsonValue({ maxDepth: 3 });

const hostileNumber: Arbitrary<number> = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(-1, 0, 1, 2 ** 31, 2 ** 53 + 2, 1e308, -1e308, 0.5),
);

function schemaTypes(schema: JsonSchema): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  return schema.type ? [schema.type] : [];
}

function stringFor(schema: JsonSchema): Arbitrary<string> {
  const shaped: Arbitrary<string>[] = [];
  if (schema.pattern) {
    try {
      shaped.push(fc.stringMatching(new RegExp(schema.pattern), { size: 'small' }));
    } catch {
      // A pattern fast-check cannot generate from: hostile strings only.
    }
  }
  if (schema.format === 'uuid') shaped.push(fc.uuid());
  if (shaped.length === 0) shaped.push(fc.string({ maxLength: schema.maxLength ?? 40 }));
  return fc.oneof({ weight: 2, arbitrary: fc.oneof(...shaped) }, { weight: 1, arbitrary: hostileString });
}

/**
 * Values for `schema`: mostly of its shape, sometimes anything at all. The odds of a wrong type
 * are low at each level, so that most bodies pass validation and reach the code behind it.
 */
export function arbitraryFor(schema: JsonSchema | undefined, depth = 0): Arbitrary<unknown> {
  if (!schema || depth > 4) return anyJson;
  const shaped = shapedFor(schema, depth);
  return fc.oneof({ weight: depth === 0 ? 6 : 15, arbitrary: shaped }, { weight: 1, arbitrary: anyJson });
}

function shapedFor(schema: JsonSchema, depth: number): Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives && alternatives.length > 0) return fc.oneof(...alternatives.map((s) => arbitraryFor(s, depth + 1)));
  const types = schemaTypes(schema);
  if (types.length > 1) return fc.oneof(...types.map((type) => shapedFor({ ...schema, type }, depth)));
  switch (types[0]) {
    case 'object':
      return objectFor(schema, depth);
    case 'array':
      return fc.array(arbitraryFor(schema.items, depth + 1), { maxLength: 4 });
    case 'string':
      return stringFor(schema);
    case 'integer':
    case 'number':
      return fc.oneof(
        { weight: 3, arbitrary: types[0] === 'integer' ? fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1000 }) : fc.double({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1000, noNaN: true }) },
        { weight: 1, arbitrary: hostileNumber },
      );
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return anyJson;
  }
}

function objectFor(schema: JsonSchema, depth: number): Arbitrary<unknown> {
  const properties = Object.entries(schema.properties ?? {});
  const known = fc.record(Object.fromEntries(properties.map(([key, sub]) => [key, arbitraryFor(sub, depth + 1)])), { requiredKeys: [] });
  const extra = fc.dictionary(hostileString, anyJson, { maxKeys: 3 });
  return fc.tuple(known, extra).map(([k, e]) => ({ ...e, ...k }));
}

/** A JSON text for `value`, sometimes with a prototype-pollution key spliced into an object. */
export const pollutedJson = (value: unknown): Arbitrary<string> => {
  const text = JSON.stringify(value) ?? 'null';
  if (!text.startsWith('{')) return fc.constant(text);
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant(text) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('"__proto__":{"polluted":true}', '"constructor":{"prototype":{"polluted":true}}')
        .map((poison) => (text === '{}' ? `{${poison}}` : `{${poison},${text.slice(1)}`)),
    },
  );
};

/** Body text for a JSON body schema: shaped values, any JSON, or text that is not JSON. */
export function bodyFor(schema: JsonSchema | undefined): Arbitrary<string> {
  return fc.oneof(
    { weight: 5, arbitrary: arbitraryFor(schema).chain(pollutedJson) },
    { weight: 1, arbitrary: anyJson.map((v) => JSON.stringify(v) ?? 'null') },
    { weight: 1, arbitrary: fc.oneof(hostileString, fc.constantFrom('{', '[1,', '{"a":1}}', '\u0000', 'nul')) },
  );
}
