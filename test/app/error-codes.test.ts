// Errors by cause (#29): every code Warren declares is unique, and README's error table lists
// each one with the status the code maps to, and nothing else.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defineError, WarrenError } from '../../src/errors.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function* sources(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) yield* sources(full);
    else if (name.endsWith('.ts')) yield full;
  }
}

/** code → [status, file] for every `defineError('WARREN_…', status)` in the tree. */
function declaredCodes(): { codes: Map<string, [number, string]>; duplicates: string[] } {
  const codes = new Map<string, [number, string]>();
  const duplicates: string[] = [];
  for (const top of ['src', 'workers', 'graphs']) {
    for (const file of sources(path.join(ROOT, top))) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/defineError\('(WARREN_[A-Z0-9_]+)', (\d{3})\)/g)) {
        const rel = path.relative(ROOT, file);
        if (codes.has(m[1] as string)) duplicates.push(`${m[1]} in ${rel} and ${codes.get(m[1] as string)?.[1]}`);
        codes.set(m[1] as string, [Number(m[2]), rel]);
      }
    }
  }
  return { codes, duplicates };
}

/** code → [status, file] from README's error table. */
function documentedCodes(): Map<string, [number, string]> {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const rows = new Map<string, [number, string]>();
  for (const m of readme.matchAll(/^\| `(WARREN_[A-Z0-9_]+)` \| (\d{3}) \| .* \| `([^`]+)` \|$/gm)) rows.set(m[1] as string, [Number(m[2]), m[3] as string]);
  return rows;
}

describe('error codes', () => {
  it('are unique across the tree', () => {
    const { codes, duplicates } = declaredCodes();
    expect(duplicates).toEqual([]);
    expect(codes.size).toBeGreaterThan(50);
  });

  it("are README's error table, row for row, with the status each code maps to", () => {
    const { codes } = declaredCodes();
    expect(Object.fromEntries(documentedCodes())).toEqual(Object.fromEntries(codes));
  });

  it('name their cause in the class: code, status, name and instanceof', () => {
    const ThreadGoneError = defineError('WARREN_TEST_THREAD_GONE', 404);
    const err = new ThreadGoneError('Thread t not found', { cause: new Error('inner') });
    expect(err).toBeInstanceOf(WarrenError);
    expect(err).toBeInstanceOf(ThreadGoneError);
    expect([err.code, err.statusCode, err.name, err.message]).toEqual(['WARREN_TEST_THREAD_GONE', 404, 'TestThreadGoneError', 'Thread t not found']);
    expect([ThreadGoneError.code, ThreadGoneError.statusCode]).toEqual(['WARREN_TEST_THREAD_GONE', 404]);
    expect(String(err.stack)).toContain('TestThreadGoneError: Thread t not found');
  });
});
