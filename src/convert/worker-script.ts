// Where the conversion worker's script is: the compiled JavaScript in dist/, or, when running
// from source (vitest), the TypeScript file behind a small loader bootstrap.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConversionError } from '../errors.js';

// Under vitest (or any run from source) only the .ts files exist. Node strips types natively
// but does not map the `.js` import specifiers to `.ts`, and cannot strip every construct, so
// the worker is started through a tiny bootstrap that installs hooks doing both.
export function sourceBootstrap(entry: string): string {
  return `
import { registerHooks, stripTypeScriptTypes } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
registerHooks({
  resolve(specifier, context, nextResolve) {
    if (/^\\.\\.?\\//.test(specifier) && specifier.endsWith('.js') && context.parentURL?.endsWith('.ts')) {
      const url = new URL(specifier.slice(0, -3) + '.ts', context.parentURL);
      if (existsSync(fileURLToPath(url))) return { url: url.href, shortCircuit: true };
    }
    return nextResolve(specifier, context);
  },
  load(url, context, nextLoad) {
    if (url.startsWith('file:') && url.endsWith('.ts')) {
      const code = readFileSync(fileURLToPath(url), 'utf8');
      const source = stripTypeScriptTypes(code, { mode: 'transform', sourceUrl: url });
      return { format: 'module', source, shortCircuit: true };
    }
    return nextLoad(url, context);
  },
});
await import(${JSON.stringify(entry)});
`;
}

/**
 * A worker thread's script: `compiled` (the JavaScript in dist/) when it exists, else `source`
 * (the TypeScript file) behind the bootstrap; null when neither is there.
 */
export function workerScript(compiled: URL, source: URL): URL | null {
  if (existsSync(fileURLToPath(compiled))) return compiled;
  if (existsSync(fileURLToPath(source))) return new URL(`data:text/javascript,${encodeURIComponent(sourceBootstrap(source.href))}`);
  return null;
}

let cachedEntry: URL | null = null;

/** The worker script: compiled JavaScript next to this file, else the TypeScript source. */
export function workerEntry(): URL {
  cachedEntry ??= workerScript(new URL('./convert-worker.js', import.meta.url), new URL('./convert-worker.ts', import.meta.url));
  if (!cachedEntry) throw new ConversionError('The document converter is not installed correctly: its worker script is missing.');
  return cachedEntry;
}
