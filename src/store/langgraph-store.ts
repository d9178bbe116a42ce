// The store as graphs see it: LangGraph.js's `BaseStore` over the same Redis items as the HTTP
// API, so a node's `config.store` / `runtime.store` and /store/items read and write one thing.
import {
  BaseStore,
  type Item,
  type ListNamespacesOperation,
  type Operation,
  type OperationResults,
  type PutOperation,
  type SearchItem,
  type SearchOperation,
} from '@langchain/langgraph-checkpoint';
import type { ItemStore, StoreItem } from './store-items.js';

const toItem = (item: StoreItem): SearchItem => ({
  namespace: item.namespace,
  key: item.key,
  value: item.value,
  createdAt: new Date(item.created_at),
  updatedAt: new Date(item.updated_at),
  ...(item.score === undefined ? {} : { score: item.score }),
});

export class RedisStore extends BaseStore {
  constructor(private readonly items: ItemStore) {
    super();
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const results = await Promise.all(operations.map((op) => this.run(op)));
    return results as OperationResults<Op>;
  }

  private async run(op: Operation): Promise<Item | SearchItem[] | string[][] | null | void> {
    if ('namespacePrefix' in op) return this.runSearch(op);
    if ('value' in op) return this.runPut(op);
    if ('key' in op) {
      const found = await this.items.get(op.namespace, op.key);
      return found ? toItem(found) : null;
    }
    return this.runList(op);
  }

  private async runSearch(op: SearchOperation): Promise<SearchItem[]> {
    const found = await this.items.search(op.namespacePrefix, {
      ...(op.filter ? { filter: op.filter } : {}),
      ...(op.limit === undefined ? {} : { limit: op.limit }),
      ...(op.offset === undefined ? {} : { offset: op.offset }),
      ...(op.query ? { query: op.query } : {}),
    });
    return found.map(toItem);
  }

  private async runPut(op: PutOperation): Promise<void> {
    if (op.value === null) return this.items.delete(op.namespace, op.key);
    return this.items.put(op.namespace, op.key, op.value, op.index === undefined ? {} : { index: op.index });
  }

  private runList(op: ListNamespacesOperation): Promise<string[][]> {
    const conditions = op.matchConditions ?? [];
    const prefix = conditions.find((c) => c.matchType === 'prefix')?.path;
    const suffix = conditions.find((c) => c.matchType === 'suffix')?.path;
    return this.items.listNamespaces({
      ...(prefix ? { prefix } : {}),
      ...(suffix ? { suffix } : {}),
      ...(op.maxDepth === undefined ? {} : { maxDepth: op.maxDepth }),
      limit: op.limit,
      offset: op.offset,
    });
  }
}
