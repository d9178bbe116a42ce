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
