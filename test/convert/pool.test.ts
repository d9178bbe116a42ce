// The pool of warm conversion threads: documents reuse a thread, a thread that failed in a way
// that could leave it broken is replaced, the pool never runs more threads than it may, and
// closing it (or leaving it idle) ends them. Real worker threads throughout; the pool's own
// counters are asserted, never durations.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { convertDocument } from '../../src/convert/convert.js';
import { createConversionPool } from '../../src/convert/pool.js';
import { createSandbox } from '../../src/convert/sandbox.js';
import type { ConversionPool, PoolOptions } from '../../src/convert/pool.js';
import { sourceBootstrap } from '../../src/convert/worker-script.js';
import { ConversionError } from '../../src/errors.js';
import { bigWorkbook, eventually, HAS_SOFFICE, OWN_FIXTURES, readOwn, rejection } from './support.js';

let big: Buffer;
const pools: ConversionPool[] = [];

function pool(options: PoolOptions = {}): ConversionPool {
  const made = createConversionPool(options);
  pools.push(made);
  return made;
}

beforeAll(() => {
  big = bigWorkbook();
});

afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

describe('a warm conversion pool', () => {
  it('converts one document after another in the same thread', async () => {
    const p = pool();
    const docx = readOwn('sample.docx');
    expect(await p.convert(docx, 'sample.docx')).toBe(await convertDocument(docx, 'sample.docx'));
    expect(await p.convert(readOwn('sample.xlsx'), 'b.xlsx')).toContain('c41d2a9e-warren-xlsx');
    expect(await p.convert(readOwn('sample.pdf'), 'a.pdf')).toContain('5f2c8e71-warren-docx');
    expect(await p.convert(readOwn('sample.pptx'), 'c.pptx')).toContain('9d41b6e0-warren-ppt');
    // The same document again, in a thread that has now loaded every converter.
    expect(await p.convert(docx, 'sample.docx')).toBe(await convertDocument(docx, 'sample.docx'));
    expect(p.stats()).toEqual({ workersStarted: 1, workersAlive: 1, queued: 0, jobsDone: 5 });
  });

  it("keeps the thread after a parser's ConversionError", async () => {
    const p = pool();
    const cut = readOwn('sample.docx').subarray(0, 3000);
    const err = await rejection(p.convert(cut, 'cut.docx'));
    expect(err.message).toBe((await rejection(convertDocument(cut, 'cut.docx'))).message);
    expect(await p.convert(readOwn('sample.docx'), 'whole.docx')).toContain('5f2c8e71-warren-docx');
    expect(p.stats()).toMatchObject({ workersStarted: 1, jobsDone: 2 });
  });

  it.runIf(HAS_SOFFICE)('keeps the thread across LibreOffice runs it reported in turn', async () => {
    const p = pool();
    for (const file of ['sample.doc', 'sample.ppt', 'sample.doc']) {
      expect(await p.convert(readOwn(file), file)).toContain('-warren-');
    }
    expect(p.stats()).toMatchObject({ workersStarted: 1, workersAlive: 1, jobsDone: 3 });
  });

  it('replaces a thread stopped for taking too long, and the next document converts', async () => {
    const p = pool();
    const err = await rejection(p.convert(big, 'big.xlsx', { timeoutMs: 200 }));
    expect(err.message).toBe('big.xlsx was not converted: it took longer than 200 ms, so the conversion was stopped.');
    expect(await p.convert(readOwn('sample.xlsx'), 'b.xlsx')).toContain('c41d2a9e-warren-xlsx');
    expect(p.stats()).toMatchObject({ workersStarted: 2, workersAlive: 1, jobsDone: 2 });
  });

  it('replaces a thread stopped for its buffers, and the next document converts', async () => {
    const p = pool();
    const err = await rejection(p.convert(big, 'big.xlsx', { maxExternalMemoryMb: 1 }));
    expect(err.message).toBe('big.xlsx was not converted: it needed more than 1 MB of memory, so the conversion was stopped.');
    expect(await p.convert(readOwn('sample.docx'), 'a.docx')).toContain('5f2c8e71-warren-docx');
    expect(p.stats()).toMatchObject({ workersStarted: 2, workersAlive: 1, jobsDone: 2 });
  });

  it('replaces a thread that ran out of heap, and the next document converts', async () => {
    const p = pool({ maxOldGenerationSizeMb: 32 });
    const err = await rejection(p.convert(big, 'big.xlsx'));
    expect(err.message).toBe('big.xlsx was not converted: it needed more than 32 MB of memory, so the conversion was stopped.');
    expect(await p.convert(readOwn('sample.docx'), 'a.docx')).toContain('5f2c8e71-warren-docx');
    expect(p.stats()).toMatchObject({ workersStarted: 2, workersAlive: 1, jobsDone: 2 });
  });

  it('runs more documents than threads, never more threads than allowed, in arrival order', async () => {
    const p = pool({ maxWorkers: 2 });
    const files = ['sample.pdf', 'sample.xlsx', 'sample.pptx', 'sample.docx', 'sample.pdf', 'sample.xlsx'];
    const all = Promise.all(files.map((name, i) => p.convert(readOwn(name), `${i}-${name}`)));
    expect(p.stats()).toMatchObject({ workersAlive: 2, queued: 4 });
    const results = await all;
    expect(results.every((markdown) => markdown.includes('-warren-'))).toBe(true);
    // Never more than two were started, so never more than two were alive.
    expect(p.stats()).toEqual({ workersStarted: 2, workersAlive: 2, queued: 0, jobsDone: 6 });

    const single = pool({ maxWorkers: 1 });
    const order: number[] = [];
    await Promise.all(files.map((name, i) => single.convert(readOwn(name), name).then(() => order.push(i))));
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
    expect(single.stats().workersStarted).toBe(1);
  });

  it('replaces a thread after its quota of documents', async () => {
    const p = pool({ maxJobsPerWorker: 2 });
    for (let i = 0; i < 5; i++) await p.convert(readOwn('sample.xlsx'), 'b.xlsx');
    expect(p.stats()).toMatchObject({ workersStarted: 3, jobsDone: 5 });
  });

  it('ends a thread left idle', async () => {
    const p = pool({ idleTimeoutMs: 100 });
    await p.convert(readOwn('sample.xlsx'), 'b.xlsx');
    expect(await eventually(() => p.stats().workersAlive === 0)).toBe(true);
    // The next document simply starts a new one.
    expect(await p.convert(readOwn('sample.xlsx'), 'b.xlsx')).toContain('c41d2a9e-warren-xlsx');
    expect(p.stats()).toMatchObject({ workersStarted: 2, workersAlive: 1 });
  });

  it('keeps warm threads started ahead of demand, through idle time and replacements', async () => {
    const p = pool({ warmThreads: 1, maxJobsPerWorker: 1, idleTimeoutMs: 20 });
    // Started with the pool, before any document.
    expect(p.stats()).toEqual({ workersStarted: 1, workersAlive: 1, queued: 0, jobsDone: 0 });
    const pdf = readOwn('sample.pdf');
    const converted = await p.convert(pdf, 'a.pdf');
    // The warm thread took it: no other was started for it.
    expect(p.stats()).toMatchObject({ workersStarted: 1, jobsDone: 1 });
    expect(converted).toBe(await convertDocument(pdf, 'a.pdf'));
    // Its quota spent, the thread is replaced at once, not when the next document comes.
    expect(await eventually(() => p.stats().workersStarted === 2 && p.stats().workersAlive === 1)).toBe(true);
    expect(await p.convert(readOwn('sample.docx'), 'b.docx')).toContain('5f2c8e71-warren-docx');
    expect(p.stats()).toMatchObject({ workersStarted: 2, jobsDone: 2 });
    await p.close();
    expect(p.stats()).toMatchObject({ workersAlive: 0 });
  });

  it('ends every thread on close, failing what was running or waiting', async () => {
    const p = pool({ maxWorkers: 1 });
    await p.convert(readOwn('sample.xlsx'), 'b.xlsx');
    const running = rejection(p.convert(big, 'big.xlsx'));
    const waiting = rejection(p.convert(readOwn('sample.docx'), 'a.docx'));
    expect(p.stats()).toMatchObject({ workersAlive: 1, queued: 1 });
    await p.close();
    expect(p.stats()).toMatchObject({ workersAlive: 0, queued: 0 });
    expect((await running).message).toBe('big.xlsx was not converted: the converter was shut down.');
    expect((await waiting).message).toBe('a.docx was not converted: the converter was shut down.');
    expect((await rejection(p.convert(readOwn('sample.xlsx'), 'late.xlsx'))).message).toBe(
      'late.xlsx was not converted: the converter was shut down.',
    );
  });

  it('gives each createSandbox its own pool, which its creator closes', async () => {
    const sandbox = createSandbox({ maxWorkers: 3 });
    const other = createSandbox({ maxWorkers: 3 });
    try {
      await sandbox.convert(readOwn('sample.xlsx'), 'b.xlsx');
      await sandbox.convert(readOwn('sample.docx'), 'a.docx', { timeoutMs: 30_000 });
      expect(sandbox.stats()).toEqual({ workersStarted: 1, workersAlive: 1, queued: 0, jobsDone: 2 });
      // No pool is shared behind the callers' backs.
      expect(other.stats()).toEqual({ workersStarted: 0, workersAlive: 0, queued: 0, jobsDone: 0 });
      await sandbox.close();
      expect(sandbox.stats()).toMatchObject({ workersAlive: 0 });
      expect((await rejection(sandbox.convert(readOwn('sample.xlsx'), 'late.xlsx'))).message).toBe(
        'late.xlsx was not converted: the converter was shut down.',
      );
    } finally {
      await Promise.all([sandbox.close(), other.close()]);
    }
  });

  it('never keeps the process alive with an idle thread', async () => {
    // A separate Node process converts a document and then has nothing left to do. Its idle
    // thread would keep it alive for ten minutes unless unreferenced; it must exit on its own.
    const pool = pathToFileURL(path.resolve(import.meta.dirname, '../../src/convert/pool.ts')).href;
    const fixture = path.join(OWN_FIXTURES, 'sample.docx');
    const script = `${sourceBootstrap(pool)}
const { createConversionPool } = await import(${JSON.stringify(pool)});
const fs = await import('node:fs');
const pool = createConversionPool({ idleTimeoutMs: 600000 });
const markdown = await pool.convert(fs.readFileSync(${JSON.stringify(fixture)}), 'sample.docx');
console.log(JSON.stringify({ converted: markdown.includes('5f2c8e71-warren-docx'), ...pool.stats() }));
`;
    const stdout = await new Promise<string>((resolve, reject) => {
      // The bound only stops a regression from leaving the child behind; it is not a measurement.
      execFile(process.execPath, ['--input-type=module', '--no-warnings', '-e', script], { timeout: 45_000 }, (err, out) =>
        err ? reject(err) : resolve(out),
      );
    });
    expect(JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}')).toMatchObject({ converted: true, workersAlive: 1 });
  });
});
