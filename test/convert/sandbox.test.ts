// createSandbox's convert: same output as in-process, and every way a conversion can go wrong (parser
// error, memory cap, time limit, hung LibreOffice) ends in a ConversionError while the caller's
// process and event loop carry on. Outcomes are asserted, never durations.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertDocument } from '../../src/convert/convert.js';
import type { ConversionPool } from '../../src/convert/pool.js';
import { createSandbox } from '../../src/convert/sandbox.js';
import { ConversionError } from '../../src/errors.js';
import { bigWorkbook as makeBigWorkbook, eventually, readOwn, rejection } from './support.js';

let scratch: string;
let bigWorkbook: Buffer;

/** A fake soffice that records its pid and then hangs, like LibreOffice on a pathological file. */
function hangingSoffice(name: string): { command: string; pidFile: string; argsFile: string } {
  const pidFile = path.join(scratch, `${name}.pid`);
  const argsFile = path.join(scratch, `${name}.args`);
  const command = path.join(scratch, `${name}.sh`);
  const hang = `'${process.execPath}' -e 'setTimeout(() => {}, 120000)'`;
  writeFileSync(command, `#!/bin/sh\necho "$@" > '${argsFile}'\necho $$ > '${pidFile}'\nexec ${hang}\n`);
  chmodSync(command, 0o755);
  return { command, pidFile, argsFile };
}

/** The temp directory the converter gave LibreOffice, read from the arguments it passed. */
function workDirOf(argsFile: string): string {
  const outDir = /--outdir (\S+)/.exec(readFileSync(argsFile, 'utf8'))?.[1];
  if (!outDir) throw new Error('no --outdir in the soffice arguments');
  return path.dirname(outDir);
}

/** Alive means present in /proc and not a zombie (a killed child may wait to be reaped). */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

// This file's own sandbox, with the defaults the API uses; closed when the file ends.
let sandbox: ConversionPool;

beforeAll(() => {
  sandbox = createSandbox();
  scratch = mkdtempSync(path.join(tmpdir(), 'warren-sandbox-test-'));
  bigWorkbook = makeBigWorkbook();
});

afterAll(async () => {
  rmSync(scratch, { recursive: true, force: true });
  await sandbox.close();
});

describe('the conversion sandbox', () => {
  it('returns what convertDocument returns, and leaves the caller buffer intact', async () => {
    const bytes = readOwn('sample.docx');
    const copy = Buffer.from(bytes);
    expect(await sandbox.convert(bytes, 'sample.docx')).toBe(await convertDocument(bytes, 'sample.docx'));
    expect(bytes.equals(copy)).toBe(true);
  });

  it('runs several conversions side by side', async () => {
    const results = await Promise.all([
      sandbox.convert(readOwn('sample.pdf'), 'a.pdf'),
      sandbox.convert(readOwn('sample.xlsx'), 'b.xlsx'),
      sandbox.convert(readOwn('sample.pptx'), 'c.pptx'),
    ]);
    expect(results[0]).toContain('5f2c8e71-warren-docx');
    expect(results[1]).toContain('c41d2a9e-warren-xlsx');
    expect(results[2]).toContain('9d41b6e0-warren-ppt');
  });

  it('passes a parser failure back as the same ConversionError', async () => {
    const bytes = readOwn('sample.docx').subarray(0, 3000);
    const inSandbox = await rejection(sandbox.convert(bytes, 'cut.docx'));
    const inProcess = await rejection(convertDocument(bytes, 'cut.docx'));
    expect(inSandbox.message).toBe(inProcess.message);
  });

  it('applies the zip caps it is given', async () => {
    const err = await rejection(sandbox.convert(readOwn('sample.docx'), 'small.docx', { maxZipEntries: 3 }));
    expect(err.message).toMatch(/more than the limit of 3/);
  });

  it('stops a conversion that exceeds the memory cap, and the caller carries on', async () => {
    // The heap cap is fixed when a worker starts: a sandbox of its own with a small one.
    const small = createSandbox({ maxOldGenerationSizeMb: 32 });
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    try {
      const err = await rejection(small.convert(bigWorkbook, 'big.xlsx'));
      expect(err.message).toBe('big.xlsx was not converted: it needed more than 32 MB of memory, so the conversion was stopped.');
    } finally {
      clearInterval(timer);
      await small.close();
    }
    // The event loop kept turning while the worker churned.
    expect(ticks).toBeGreaterThan(0);
    expect(await sandbox.convert(bigWorkbook, 'big.xlsx')).toContain('| cell 39999-5 text |');
  });

  it('stops a conversion that runs out of time, killing the LibreOffice it started', async () => {
    const soffice = hangingSoffice('sandbox-timeout');
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    try {
      const err = await rejection(
        sandbox.convert(readOwn('sample.doc'), 'slow.doc', {
          soffice: soffice.command,
          sofficeTimeoutMs: 600_000,
          // Long enough for the worker to start LibreOffice even on a loaded 2-core machine.
          timeoutMs: 8000,
        }),
      );
      expect(err.message).toBe('slow.doc was not converted: it took longer than 8 s, so the conversion was stopped.');
    } finally {
      clearInterval(timer);
    }
    expect(ticks).toBeGreaterThan(0);
    const pid = Number(readFileSync(soffice.pidFile, 'utf8'));
    expect(pid).toBeGreaterThan(0);
    expect(await eventually(() => !isAlive(pid))).toBe(true);
    // The worker died before its own cleanup could run; the sandbox removed the temp dir.
    const workDir = workDirOf(soffice.argsFile);
    expect(workDir).toMatch(/warren-soffice-/);
    expect(await eventually(() => !existsSync(workDir))).toBe(true);
  });

  it('times out and kills a hung LibreOffice in-process too', async () => {
    const soffice = hangingSoffice('inprocess-timeout');
    const err = await rejection(
      convertDocument(readOwn('sample.ppt'), 'slow.ppt', { soffice: soffice.command, sofficeTimeoutMs: 500 }),
    );
    expect(err.message).toMatch(/^slow\.ppt was not converted: LibreOffice took longer than/);
    const pid = Number(readFileSync(soffice.pidFile, 'utf8'));
    expect(await eventually(() => !isAlive(pid))).toBe(true);
    expect(existsSync(workDirOf(soffice.argsFile))).toBe(false);
  });

  it('reports a missing LibreOffice binary clearly', async () => {
    const err = await rejection(
      convertDocument(readOwn('sample.ppt'), 'x.ppt', { soffice: path.join(scratch, 'no-such-soffice') }),
    );
    expect(err.message).toMatch(/LibreOffice could not be started/);
  });
});
