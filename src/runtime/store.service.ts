// The long-term store over HTTP: checks what the schemas cannot say (labels, filters, whether
// semantic search is configured) and hands the rest to the item store that graphs also use.
import { ValidationError } from '../errors.js';
import { checkStoreFilter } from '../store/store-filter.js';
import type { ItemStore, StoreItem } from '../store/store-items.js';
import type { StoreDelete, StoreGetQuery, StoreNamespaces, StorePut, StoreSearch } from './store.schemas.js';

/** Labels as LangGraph allows them: not empty, no `.` (the GET query joins them with it). */
function checkNamespace(field: string, namespace: readonly string[], options: { empty?: boolean; wildcard?: boolean } = {}): void {
  if (namespace.length === 0 && !options.empty) throw new ValidationError(`${field}: a namespace needs at least one label.`);
  for (const label of namespace) {
    if (label === '' || label.includes('.')) {
      throw new ValidationError(`${field}: namespace labels cannot be empty or contain periods (got ${JSON.stringify(namespace)}).`);
    }
    if (label === '*' && !options.wildcard) throw new ValidationError(`${field}: "*" matches labels only when listing namespaces.`);
  }
}

export function createStoreService(items: ItemStore) {
  return {
    async put(body: StorePut): Promise<void> {
      checkNamespace('namespace', body.namespace);
      await items.put(body.namespace, body.key, body.value, {
        ...(body.index === undefined ? {} : { index: body.index }),
        ...(body.ttl === undefined ? {} : { ttlMinutes: body.ttl }),
      });
    },

    async get(query: StoreGetQuery): Promise<StoreItem | null> {
      const namespace = query.namespace ? query.namespace.split('.') : [];
      checkNamespace('namespace', namespace);
      return items.get(namespace, query.key, { refreshTtl: query.refresh_ttl ?? null });
    },

    async remove(body: StoreDelete): Promise<void> {
      const namespace = body.namespace ?? [];
      checkNamespace('namespace', namespace);
      await items.delete(namespace, body.key);
    },

    async search(body: StoreSearch): Promise<{ items: StoreItem[] }> {
      const prefix = body.namespace_prefix ?? [];
      checkNamespace('namespace_prefix', prefix, { empty: true });
      if (body.filter) checkStoreFilter(body.filter);
      if (body.query && !items.settings.index) {
        throw new ValidationError('query: semantic search needs an embedding model; configure store.index (embed, dims) in config.yaml or langgraph.json.');
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

    async namespaces(body: StoreNamespaces): Promise<{ namespaces: string[][] }> {
      if (body.prefix) checkNamespace('prefix', body.prefix, { wildcard: true });
      if (body.suffix) checkNamespace('suffix', body.suffix, { wildcard: true });
      const found = await items.listNamespaces({
        limit: body.limit,
        offset: body.offset,
        ...(body.prefix ? { prefix: body.prefix } : {}),
        ...(body.suffix ? { suffix: body.suffix } : {}),
        ...(body.max_depth === undefined ? {} : { maxDepth: body.max_depth }),
      });
      return { namespaces: found };
    },
  };
}

export type StoreService = ReturnType<typeof createStoreService>;
