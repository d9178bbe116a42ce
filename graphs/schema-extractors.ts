// LangGraph's schema extractors (`@langchain/langgraph/zod/schema`) from the copy of LangGraph a
// graph itself imports. Zod metadata (`.register(registry, {...})`, `jsonSchemaExtra`) lives in a
// registry held by that copy's module: a project with its own node_modules registers into its
// own, which Warren's copy never sees. So a graph's schemas are read with the extractors its own
// module resolves to, the ESM build as the graph imported it.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as warrenExtractors from '@langchain/langgraph/zod/schema';

export interface SchemaExtractors {
  getInputTypeSchema(graph: unknown): unknown;
  getOutputTypeSchema(graph: unknown): unknown;
  getStateTypeSchema(graph: unknown): unknown;
  getConfigTypeSchema(graph: unknown): unknown;
}

/** Warren's own copy: for built-in graphs, and for modules that resolve LangGraph to it. */
export const WARREN_EXTRACTORS: SchemaExtractors = warrenExtractors as unknown as SchemaExtractors;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The ESM file a package's `exports` maps `subpath` to under the `import` condition, if any. */
function importTarget(packageDir: string, subpath: string): string | null {
  const manifest = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { exports?: unknown };
  let target: unknown = isRecord(manifest.exports) ? manifest.exports[subpath] : undefined;
  // Conditions nest (`import: {types, default}`): follow `import`, then `default`.
  for (let depth = 0; isRecord(target) && depth < 4; depth++) target = target.import ?? target.default;
  return typeof target === 'string' ? path.join(packageDir, target) : null;
}

/** The directory of the @langchain/langgraph a module at `moduleUrl` imports, or null if none resolves. */
function langGraphDirFor(moduleUrl: string): string | null {
  try {
    return path.dirname(createRequire(fileURLToPath(moduleUrl)).resolve('@langchain/langgraph/package.json'));
  } catch {
    // The module does not resolve LangGraph from where it lives: Warren's copy is the one it gets.
    return null;
  }
}

/**
 * Extractors per LangGraph copy, by its directory: a cache of a handful of modules, never evicted.
 * `importModule` is the registry's own import (the one place graphs/ imports a computed path).
 */
export function createSchemaExtractorsCache(importModule: (url: string) => Promise<unknown>): (moduleUrl: string) => Promise<SchemaExtractors> {
  const warrenDir = langGraphDirFor(import.meta.url);
  const byDir = new Map<string, Promise<SchemaExtractors>>();
  return async (moduleUrl) => {
    const dir = langGraphDirFor(moduleUrl);
    if (dir === null || dir === warrenDir) return WARREN_EXTRACTORS;
    let found = byDir.get(dir);
    if (!found) {
      const file = importTarget(dir, './zod/schema');
      // A LangGraph too old to have the extractors: the schemas come from Warren's copy, without extras.
      found = file === null ? Promise.resolve(WARREN_EXTRACTORS) : (importModule(pathToFileURL(file).href) as Promise<SchemaExtractors>);
      byDir.set(dir, found);
      found.catch(() => byDir.delete(dir));
    }
    return found;
  };
}
