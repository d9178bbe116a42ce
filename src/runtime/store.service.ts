// The long-term store over HTTP: checks what the schemas cannot say (labels, filters, whether
// semantic search is configured) and hands the rest to the item store that graphs also use.
import { OPEN_ACCESS, type AccessAction, type AccessPolicy } from '../auth/access.js';
import { isAdmin, type Identity } from '../auth/identity.js';
import { AuthModuleInvalidError } from '../auth/auth.errors.js';
import { checkStoreFilter } from '../store/store-filter.js';
import type { ItemStore, StoreItem } from '../store/store-items.js';
import { NamespaceInvalidError, NamespaceNotFoundError, SemanticSearchUnconfiguredError } from './runtime.errors.js';
import type { StoreDelete, StoreGetQuery, StoreNamespaces, StorePut, StoreSearch } from './store.schemas.js';

/** Labels as LangGraph allows them: not empty, no `.` (the GET query joins them with it). */
function checkNamespace(field: string, namespace: readonly string[], options: { empty?: boolean; wildcard?: boolean } = {}): void {
  if (namespace.length === 0 && !options.empty) throw new NamespaceInvalidError(`${field}: a namespace needs at least one label.`);
  for (const label of namespace) {
    if (label === '' || label.includes('.')) {
      throw new NamespaceInvalidError(`${field}: namespace labels cannot be empty or contain periods (got ${JSON.stringify(namespace)}).`);
    }
    if (label === '*' && !options.wildcard) throw new NamespaceInvalidError(`${field}: "*" matches labels only when listing namespaces.`);
  }
}

/**
 * A user's namespaces are those whose first label is their user id (LangGraph's own advice for
 * per-user stores); an admin reaches every namespace. Null: the caller may read everything.
 */
const ownRoot = (caller: Identity): string | null => (isAdmin(caller) ? null : caller.user);

/** Whether the caller reaches the namespace: an admin any, a user those under their user id. */
const reaches = (caller: Identity, namespace: readonly string[]): boolean => {
  const root = ownRoot(caller);
  return root === null || namespace[0] === root;
};

/** Another user's namespace answers as one that does not exist. */
function requireOwn(caller: Identity, namespace: readonly string[]): void {
  if (!reaches(caller, namespace)) {
    throw new NamespaceNotFoundError(`Namespace ${JSON.stringify(namespace)} not found: your namespaces start with your user id ("${caller.user}").`);
  }
}

/** The prefix a search or listing really reads: the caller's own root at least; null when it names another user's. */
function ownPrefix(caller: Identity, prefix: readonly string[]): string[] | null {
  const root = ownRoot(caller);
  if (root === null) return [...prefix];
  if (prefix.length === 0) return [root];
  if (prefix[0] === root || prefix[0] === '*') return [root, ...prefix.slice(1)];
  return null;
}

/**
 * Asks the custom handlers about a store call (a refusal throws). LangGraph lets a store handler
 * rewrite the namespace (to put it under the user, say): the namespace the call goes on with.
 */
async function namespaceAfterHandlers(access: AccessPolicy, caller: Identity, action: AccessAction, value: Record<string, unknown> & { namespace: string[] }): Promise<string[]> {
  const asked = { ...value, namespace: [...value.namespace] };
  await access.check({ identity: caller, resource: 'store', action, value: asked });
  if (!Array.isArray(asked.namespace) || asked.namespace.some((label) => typeof label !== 'string')) {
    throw new AuthModuleInvalidError(`The auth handler for store:${action} left a namespace that is not a list of strings.`);
  }
  return asked.namespace;
}

export function createStoreService(items: ItemStore, access: AccessPolicy = OPEN_ACCESS) {
  return {
    async put(body: StorePut, caller: Identity): Promise<void> {
      const namespace = await namespaceAfterHandlers(access, caller, 'put', { ...body });
      checkNamespace('namespace', namespace);
      requireOwn(caller, namespace);
      await items.put(namespace, body.key, body.value, {
        ...(body.index === undefined ? {} : { index: body.index }),
        ...(body.ttl === undefined ? {} : { ttlMinutes: body.ttl }),
      });
    },

    async get(query: StoreGetQuery, caller: Identity): Promise<StoreItem | null> {
      const namespace = await namespaceAfterHandlers(access, caller, 'get', { namespace: query.namespace ? query.namespace.split('.') : [], key: query.key });
      checkNamespace('namespace', namespace);
      // Absent, as LangGraph answers a missing item.
      if (!reaches(caller, namespace)) return null;
      return items.get(namespace, query.key, { refreshTtl: query.refresh_ttl ?? null });
    },

    async remove(body: StoreDelete, caller: Identity): Promise<void> {
      const namespace = await namespaceAfterHandlers(access, caller, 'delete', { namespace: body.namespace ?? [], key: body.key });
      checkNamespace('namespace', namespace);
      requireOwn(caller, namespace);
      await items.delete(namespace, body.key);
    },

    async search(body: StoreSearch, caller: Identity): Promise<{ items: StoreItem[] }> {
      const asked = await namespaceAfterHandlers(access, caller, 'search', { ...body, namespace: body.namespace_prefix ?? [] });
      checkNamespace('namespace_prefix', asked, { empty: true });
      const prefix = ownPrefix(caller, asked);
      if (prefix === null) return { items: [] };
      if (body.filter) checkStoreFilter(body.filter);
      if (body.query && !items.settings.index) {
        throw new SemanticSearchUnconfiguredError('query: semantic search needs an embedding model; configure store.index (embed, dims) in config.yaml or langgraph.json.');
      }
      const found = await items.search(prefix, {
        limit: body.limit,
        offset: body.offset,
        ...(body.filter ? { filter: body.filter } : {}),
        ...(body.query ? { query: body.query } : {}),
        refreshTtl: body.refresh_ttl ?? null,
      });
      return { items: found };
    },

    async namespaces(body: StoreNamespaces, caller: Identity): Promise<{ namespaces: string[][] }> {
      if (body.prefix) checkNamespace('prefix', body.prefix, { wildcard: true });
      if (body.suffix) checkNamespace('suffix', body.suffix, { wildcard: true });
      const prefix = ownPrefix(caller, await namespaceAfterHandlers(access, caller, 'list_namespaces', { ...body, namespace: body.prefix ?? [] }));
      if (prefix === null) return { namespaces: [] };
      const found = await items.listNamespaces({
        limit: body.limit,
        offset: body.offset,
        ...(prefix.length > 0 ? { prefix } : {}),
        ...(body.suffix ? { suffix: body.suffix } : {}),
        ...(body.max_depth === undefined ? {} : { maxDepth: body.max_depth }),
      });
      return { namespaces: found };
    },
  };
}

export type StoreService = ReturnType<typeof createStoreService>;
