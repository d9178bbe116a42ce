// A full garbage collection in a server process, on the bench's request: RSS read after it is
// memory the process still holds, not garbage it has yet to collect. Only the bench loads the
// hook (../servers/gc-on-signal.ts); Warren itself exposes nothing of the kind.
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';

/** What the hook writes on stderr once the collection (or snapshot) is done, then its figures. */
export const GC_DONE_LINE = 'bench: gc done';

/** Node flags that load the hook into a server process. */
export const GC_HOOK_ARGS = ['--expose-gc', '--import', path.join(import.meta.dirname, '..', 'servers', 'gc-on-signal.ts')];

/** A forced collection: the V8 heap (live and garbage) and the memory outside it (buffers) before it, and what was live after. */
export interface GcReport {
  heap_total_before_mib: number;
  external_before_mib: number;
  heap_used_mib: number;
  external_mib: number;
}

const DONE = new RegExp(`${GC_DONE_LINE} (\\{[^\\n]*\\})\\n`);
const mib = (bytes: number) => Number((bytes / 1048576).toFixed(1));

/** Asks a process started with GC_HOOK_ARGS for a full GC; resolves once it has run. */
export function collectGarbage(child: ChildProcess, timeoutMs = 180_000): Promise<GcReport> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const done = (result: GcReport | Error) => {
      clearTimeout(timer);
      child.stderr?.off('data', onData);
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    const onData = (chunk: Buffer) => {
      seen = (seen + chunk.toString('utf8')).slice(-500);
      const match = DONE.exec(seen);
      if (!match) return;
      const line = JSON.parse(match[1] as string) as { heapTotalBefore: number; externalBefore: number; heapUsed: number; external: number };
      done({
        heap_total_before_mib: mib(line.heapTotalBefore),
        external_before_mib: mib(line.externalBefore),
        heap_used_mib: mib(line.heapUsed),
        external_mib: mib(line.external),
      });
    };
    const timer = setTimeout(() => done(new Error(`no forced GC within ${timeoutMs} ms`)), timeoutMs);
    child.stderr?.on('data', onData);
    child.kill('SIGUSR2');
  });
}
