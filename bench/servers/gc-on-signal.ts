// Loaded into each server process by the bench only (GC_HOOK_ARGS in ../lib/gc.ts): on SIGUSR2
// the process runs V8's last-resort garbage collection (full, repeated, and giving free pages
// back: a plain gc() left the freed memory in RSS), or writes a heap snapshot when
// BENCH_HEAP_SNAPSHOT_DIR is set (a snapshot collects garbage first). Then it writes one line on
// stderr with what V8 held before and what is still live after, so RSS can be told apart from
// live memory and from garbage not yet collected.
import path from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import { GC_DONE_LINE } from '../lib/gc.ts';

const gc = (globalThis as { gc?: (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void }).gc;
const snapshotDir = process.env.BENCH_HEAP_SNAPSHOT_DIR;
let snapshots = 0;

process.on('SIGUSR2', () => {
  const before = process.memoryUsage();
  if (snapshotDir) {
    snapshots += 1;
    writeHeapSnapshot(path.join(snapshotDir, `${process.pid}-${snapshots}.heapsnapshot`));
  } else {
    gc?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  }
  const { heapUsed, external } = process.memoryUsage();
  const line = { heapTotalBefore: before.heapTotal, externalBefore: before.external, heapUsed, external };
  process.stderr.write(`\n${GC_DONE_LINE} ${JSON.stringify(line)}\n`);
});
