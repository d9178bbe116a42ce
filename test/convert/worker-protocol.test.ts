// What a conversion worker posts is parsed, never trusted: a message the parent cannot place
// is null (and ends the worker), and an outcome that does not say it is clean is taken as not.
import { describe, expect, it } from 'vitest';
import { parseWorkerJob, parseWorkerMessage } from '../../src/convert/worker-protocol.js';

describe('worker messages', () => {
  it('reads every message the worker sends', () => {
    expect(parseWorkerMessage({ type: 'spawned', job: 3, pid: 42, workDir: '/tmp/warren-soffice-x' })).toEqual({
      type: 'spawned',
      job: 3,
      pid: 42,
      workDir: '/tmp/warren-soffice-x',
    });
    expect(parseWorkerMessage({ type: 'exited', job: 3, pid: 42 })).toEqual({ type: 'exited', job: 3, pid: 42 });
    expect(parseWorkerMessage({ type: 'output', job: 0, text: 'warning' })).toEqual({ type: 'output', job: 0, text: 'warning' });
    expect(parseWorkerMessage({ type: 'done', job: 3, markdown: '# x', clean: true })).toEqual({
      type: 'done',
      job: 3,
      markdown: '# x',
      clean: true,
    });
  });

  it('takes an outcome that does not say it is clean as not clean', () => {
    expect(parseWorkerMessage({ type: 'done', job: 1, markdown: 'x' })).toMatchObject({ clean: false });
    expect(parseWorkerMessage({ type: 'failed', job: 1, message: 'no', conversion: true, clean: 'yes' })).toMatchObject({
      conversion: true,
      clean: false,
    });
  });

  it.each([
    ['no job', { type: 'done', markdown: 'x', clean: true }],
    ['a fractional job', { type: 'done', job: 1.5, markdown: 'x', clean: true }],
    ['a negative job', { type: 'exited', job: -1, pid: 1 }],
    ['a job given as text', { type: 'exited', job: '1', pid: 1 }],
    ['an unknown type', { type: 'ready', job: 1 }],
    ['a missing field', { type: 'spawned', job: 1, pid: 1 }],
    ['not an object', 'done'],
  ])('refuses %s', (_what, message) => {
    expect(parseWorkerMessage(message)).toBeNull();
  });
});

describe('worker jobs', () => {
  it('needs a positive job id, the bytes and a file name', () => {
    const bytes = new Uint8Array([1, 2, 3]);
    expect(parseWorkerJob({ id: 1, bytes, filename: 'a.pdf', options: { maxZipEntries: 5 } })).toEqual({
      id: 1,
      bytes,
      filename: 'a.pdf',
      options: { maxZipEntries: 5 },
    });
    expect(parseWorkerJob({ id: 0, bytes, filename: 'a.pdf' })).toBeNull();
    expect(parseWorkerJob({ id: 1, bytes: [1, 2, 3], filename: 'a.pdf' })).toBeNull();
    expect(parseWorkerJob({ id: 1, bytes })).toBeNull();
  });
});
