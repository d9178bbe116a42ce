// Loads TypeScript graph modules (`.ts`, `.mts`, `.cts`) as LangGraph.js projects write them.
// Node's own type stripping only erases annotations: an `import { State } from './types.js'`
// whose `State` is a type (written without `import type`) then fails to link, and TypeScript's
// `./x.js` → `x.ts` import convention does not resolve. TypeScript's transpiler removes
// type-only imports and emits plain JS, and the resolve hook maps the conventional `.js`
// (or extensionless) specifiers onto the `.ts` file that exists, as `tsc` does.
// Installed once per process, only when a configured graph is TypeScript.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire, registerHooks, type ResolveFnOutput } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

type TypeScript = typeof import('typescript');

const TS_FILE = /\.(?:ts|mts|cts)$/;
const TS_FALLBACKS: Readonly<Record<string, readonly string[]>> = {
  '.js': ['.ts'],
  '.mjs': ['.mts'],
  '.cjs': ['.cts'],
  '': ['.ts', '.mts', '/index.ts', '/index.mts'],
};

let installed = false;

export const isTypeScriptModule = (file: string): boolean => TS_FILE.test(file);

const inNodeModules = (file: string) => file.split(path.sep).includes('node_modules');

/** `"type"` of the nearest package.json, as Node decides a `.ts` file's module system. */
function packageType(dir: string, cache: Map<string, string | undefined>): string | undefined {
  if (cache.has(dir)) return cache.get(dir);
  const manifest = path.join(dir, 'package.json');
  let type: string | undefined;
  if (existsSync(manifest)) {
    try {
      const parsed = JSON.parse(readFileSync(manifest, 'utf8')) as { type?: unknown };
      type = typeof parsed.type === 'string' ? parsed.type : 'commonjs';
    } catch {
      // An unreadable package.json says nothing about the type: Node's default, CommonJS, holds.
      type = 'commonjs';
    }
  } else {
    const parent = path.dirname(dir);
    type = parent === dir ? undefined : packageType(parent, cache);
  }
  cache.set(dir, type);
  return type;
}

// Without a package type, Node looks at the syntax: ES module syntax makes an ES module.
const ESM_SYNTAX = /^\s*(?:import\s*[\w{*'"]|export\s)/m;

function isEsm(file: string, source: string, cache: Map<string, string | undefined>): boolean {
  if (file.endsWith('.mts')) return true;
  if (file.endsWith('.cts')) return false;
  const type = packageType(path.dirname(file), cache);
  if (type === 'module') return true;
  if (type === 'commonjs') return false;
  return ESM_SYNTAX.test(source);
}

/** A relative specifier from a TypeScript module that missed, tried as TypeScript names it. */
function tsCandidates(specifier: string, parentURL: string | undefined): string[] {
  if (!parentURL?.startsWith('file:') || !(specifier.startsWith('./') || specifier.startsWith('../'))) return [];
  if (!isTypeScriptModule(fileURLToPath(parentURL))) return [];
  const ext = path.extname(specifier);
  const fallbacks = TS_FALLBACKS[ext] ?? TS_FALLBACKS[''] ?? [];
  const base = ext in TS_FALLBACKS && ext !== '' ? specifier.slice(0, -ext.length) : specifier;
  return fallbacks.map((suffix) => base + suffix);
}

export function installTypeScriptLoader(): void {
  if (installed) return;
  installed = true;
  // Loaded here, not at the top: only a deployment with TypeScript graphs pays for it.
  const ts = createRequire(import.meta.url)('typescript') as TypeScript;
  const packageTypes = new Map<string, string | undefined>();

  registerHooks({
    resolve(specifier, context, nextResolve): ResolveFnOutput {
      try {
        return nextResolve(specifier, context);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw err;
        for (const candidate of tsCandidates(specifier, context.parentURL)) {
          const url = new URL(candidate, context.parentURL);
          if (existsSync(fileURLToPath(url))) return nextResolve(url.href, context);
        }
        throw err;
      }
    },
    load(url, context, nextLoad) {
      if (!url.startsWith('file:')) return nextLoad(url, context);
      const file = fileURLToPath(url);
      // Node refuses to strip types under node_modules; packages ship JavaScript.
      if (!isTypeScriptModule(file) || inNodeModules(file)) return nextLoad(url, context);
      const source = readFileSync(file, 'utf8');
      const esm = isEsm(file, source, packageTypes);
      const output = ts.transpileModule(source, {
        fileName: file,
        compilerOptions: {
          module: esm ? ts.ModuleKind.ESNext : ts.ModuleKind.CommonJS,
          target: ts.ScriptTarget.ES2023,
          esModuleInterop: true,
          isolatedModules: true,
          verbatimModuleSyntax: false,
          inlineSourceMap: true,
        },
      });
      return { format: esm ? 'module' : 'commonjs', source: output.outputText, shortCircuit: true };
    },
  });
}
