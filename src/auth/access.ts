// Access handlers: a hook that a custom auth module (LangGraph's `auth.on(...)`) fills, and that
// services call before they act on a resource. A handler may refuse (it throws a WarrenError) or
// answer extra metadata filters that the service applies on top of the owner filter.
import type { Identity } from './identity.js';

/** The resources access handlers are asked about, in LangGraph's names. */
export type AccessResource = 'threads' | 'assistants' | 'crons' | 'store';

/** LangGraph's actions (`threads:create_run` included); `store` uses put, get, search, delete, list_namespaces. */
export type AccessAction =
  | 'create'
  | 'read'
  | 'update'
  | 'delete'
  | 'search'
  | 'create_run'
  | 'put'
  | 'get'
  | 'list_namespaces';

export interface AccessRequest {
  identity: Identity;
  resource: AccessResource;
  action: AccessAction;
  /** What the caller is about to act with (the body, or the id and its record); a handler may change `metadata` on create. */
  value: Record<string, unknown>;
}

/** Metadata a record must match (`{key: value}`, equality), or null for no extra filter. */
export type AccessFilter = Record<string, unknown> | null;

export interface AccessPolicy {
  check(request: AccessRequest): Promise<AccessFilter>;
}

/** No handlers: owner checks alone decide. */
export const OPEN_ACCESS: AccessPolicy = { check: async () => null };

/**
 * Whether `metadata` satisfies `filter` as LangGraph reads a handler's filter: `{key: value}` and
 * `{key: {$eq: value}}` are equality; `{key: {$contains: v}}` needs a list holding `v` (or every
 * item of `v`, when `v` is a list).
 */
export function matchesAccessFilter(metadata: Readonly<Record<string, unknown>> | undefined, filter: AccessFilter): boolean {
  if (filter === null) return true;
  for (const [key, wanted] of Object.entries(filter)) {
    const actual = metadata?.[key];
    if (wanted !== null && typeof wanted === 'object' && !Array.isArray(wanted) && ('$eq' in wanted || '$contains' in wanted)) {
      const operator = wanted as { $eq?: unknown; $contains?: unknown };
      if ('$eq' in operator) {
        if (actual !== operator.$eq) return false;
        continue;
      }
      if (!Array.isArray(actual)) return false;
      const needed = Array.isArray(operator.$contains) ? operator.$contains : [operator.$contains];
      if (!needed.every((item) => actual.includes(item))) return false;
      continue;
    }
    if (actual !== wanted) return false;
  }
  return true;
}

/**
 * Asks the handlers about creating a record: a refusal throws; the answer is the metadata as the
 * handlers left it (LangGraph lets a `create` handler stamp its own keys on the record).
 */
export async function checkCreate(
  policy: AccessPolicy,
  identity: Identity,
  resource: AccessResource,
  value: Record<string, unknown> & { metadata?: Record<string, unknown> | null },
): Promise<Record<string, unknown>> {
  const asked = { ...value, metadata: { ...(value.metadata ?? {}) } };
  await policy.check({ identity, resource, action: 'create', value: asked });
  return asked.metadata;
}
