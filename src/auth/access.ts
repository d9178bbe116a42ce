// Access handlers: a hook that a custom auth module (LangGraph's `auth.on(...)`) fills, and that
// services call before they act on a resource. A handler may refuse (it throws a WarrenError) or
// answer extra metadata filters that the service applies on top of the owner filter.
import type { Identity } from './identity.js';
import { matchesMetadataFilter, type MetadataFilter } from '../store/metadata-filter.js';

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
export type AccessFilter = MetadataFilter;

export interface AccessPolicy {
  check(request: AccessRequest): Promise<AccessFilter>;
}

/** No handlers: owner checks alone decide. */
export const OPEN_ACCESS: AccessPolicy = { check: async () => null };

// The store applies the same filter when it lists records; one matcher serves both.
export { matchesMetadataFilter as matchesAccessFilter };

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
