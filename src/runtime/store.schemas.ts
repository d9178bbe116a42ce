// Bodies and answers of /api/langgraph/store, as the LangGraph SDK's StoreClient sends and reads them.
import { Type, type Static } from 'typebox';
import { JsonObjectSchema, OffsetSchema } from './common.schemas.js';

/** Labels are checked one by one in store.service.ts, so a bad one is named in the answer. */
/** A field Warren does not know is refused by name, never dropped. */
const CLOSED = { additionalProperties: false } as const;

const Label = Type.String({ maxLength: 256 });
const Namespace = Type.Array(Label, { maxItems: 32 });
const Key = Type.String({ minLength: 1, maxLength: 1024 });
/** LangGraph counts TTLs in minutes. */
const Ttl = Type.Union([Type.Number({ exclusiveMinimum: 0, maximum: 525_600_000 }), Type.Null()]);

export const StorePutSchema = Type.Object({
  namespace: Namespace,
  key: Key,
  value: JsonObjectSchema,
  /** false: not embedded; a list of JSON paths: embed these instead of `store.index.fields`. */
  index: Type.Optional(Type.Union([Type.Literal(false), Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { maxItems: 64 }), Type.Null()])),
  /** Minutes until the item expires; null for never; left out, `store.ttl.default_ttl`. */
  ttl: Type.Optional(Ttl),
}, CLOSED);
export type StorePut = Static<typeof StorePutSchema>;

export const StoreGetQuerySchema = Type.Object({
  /** The labels joined with `.` (labels cannot hold one). */
  namespace: Type.Optional(Type.String({ maxLength: 8192 })),
  key: Key,
  refresh_ttl: Type.Optional(Type.Boolean()),
}, CLOSED);
export type StoreGetQuery = Static<typeof StoreGetQuerySchema>;

export const StoreDeleteSchema = Type.Object({ namespace: Type.Optional(Namespace), key: Key }, CLOSED);
export type StoreDelete = Static<typeof StoreDeleteSchema>;

export const StoreSearchSchema = Type.Object({
  namespace_prefix: Type.Optional(Namespace),
  /** Top-level fields of the value: a value to equal, or `{$eq|$ne|$gt|$gte|$lt|$lte|$in|$nin: …}`. */
  filter: Type.Optional(Type.Union([JsonObjectSchema, Type.Null()])),
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 10 }),
  offset: OffsetSchema,
  /** Ranks by similarity when `store.index` configures an embedding model. */
  query: Type.Optional(Type.Union([Type.String({ maxLength: 16_384 }), Type.Null()])),
  refresh_ttl: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
}, CLOSED);
export type StoreSearch = Static<typeof StoreSearchSchema>;

export const StoreNamespacesSchema = Type.Object({
  /** `*` matches any one label. */
  prefix: Type.Optional(Namespace),
  suffix: Type.Optional(Namespace),
  max_depth: Type.Optional(Type.Integer({ minimum: 1, maximum: 32 })),
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
  offset: OffsetSchema,
}, CLOSED);
export type StoreNamespaces = Static<typeof StoreNamespacesSchema>;

export const StoreItemSchema = Type.Object({
  namespace: Type.Array(Type.String()),
  key: Type.String(),
  value: JsonObjectSchema,
  created_at: Type.String(),
  updated_at: Type.String(),
  score: Type.Optional(Type.Number()),
});

export const StoreSearchResultSchema = Type.Object({ items: Type.Array(StoreItemSchema) });
export const StoreNamespacesResultSchema = Type.Object({ namespaces: Type.Array(Type.Array(Type.String())) });
