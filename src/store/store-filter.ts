// The `filter` of a store search, as LangGraph's stores read it: each key names a top-level
// field of the item's value, and its condition is a value (deep equality) or an object of
// operators. Checked once when a search arrives, so a bad operator is a 422, not a silent miss.
import { deepEqual } from './json.js';
import { StoreFilterInvalidError } from './store.errors.js';

const OPERATORS = new Set(['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin']);

const isOperatorObject = (condition: unknown): condition is Record<string, unknown> =>
  typeof condition === 'object' && condition !== null && !Array.isArray(condition) && Object.keys(condition).some((k) => k.startsWith('$'));

/** Refuses an operator LangGraph does not define, or `$in`/`$nin` without a list. */
export function checkStoreFilter(filter: Record<string, unknown>): void {
  for (const [field, condition] of Object.entries(filter)) {
    if (!isOperatorObject(condition)) continue;
    for (const [op, operand] of Object.entries(condition)) {
      if (!OPERATORS.has(op)) throw new StoreFilterInvalidError(`filter.${field}: unknown operator ${op} (use ${[...OPERATORS].join(', ')})`);
      if ((op === '$in' || op === '$nin') && !Array.isArray(operand)) throw new StoreFilterInvalidError(`filter.${field}.${op} must be a list`);
    }
  }
}

/** Orders numbers as numbers and everything else as strings; null when the two do not compare. */
function order(a: unknown, b: unknown): number | null {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  return null;
}

function holds(value: unknown, op: string, operand: unknown): boolean {
  const cmp = () => order(value, operand);
  switch (op) {
    case '$eq':
      return deepEqual(value, operand);
    case '$ne':
      return !deepEqual(value, operand);
    case '$gt':
      return (cmp() ?? Number.NaN) > 0;
    case '$gte':
      return (cmp() ?? Number.NaN) >= 0;
    case '$lt':
      return (cmp() ?? Number.NaN) < 0;
    case '$lte':
      return (cmp() ?? Number.NaN) <= 0;
    case '$in':
      return (operand as unknown[]).some((o) => deepEqual(value, o));
    default:
      return !(operand as unknown[]).some((o) => deepEqual(value, o));
  }
}

export function matchesStoreFilter(value: Record<string, unknown>, filter: Record<string, unknown> | undefined): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(([field, condition]) =>
    isOperatorObject(condition)
      ? Object.entries(condition).every(([op, operand]) => holds(value[field], op, operand))
      : deepEqual(value[field], condition),
  );
}
