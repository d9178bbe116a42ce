// A metadata filter as LangGraph's access handlers answer it, applied by stores that list records
// (threads) and by services that check one record.

/** Metadata a record must match (`{key: value}`, equality), or null for no filter. */
export type MetadataFilter = Record<string, unknown> | null;

/**
 * Whether `metadata` satisfies `filter` as LangGraph reads a handler's filter: `{key: value}` and
 * `{key: {$eq: value}}` are equality; `{key: {$contains: v}}` needs a list holding `v` (or every
 * item of `v`, when `v` is a list).
 */
export function matchesMetadataFilter(metadata: Readonly<Record<string, unknown>> | undefined, filter: MetadataFilter): boolean {
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
