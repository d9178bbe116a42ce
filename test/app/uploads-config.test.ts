// Upload limits come from config.yaml, and conversions show up in /metrics.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../support/stack.js';

const DOCX = path.resolve('test/fixtures/documents/sample.docx');

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ config: { uploads: { max_files: 1, max_file_mb: 1 } } });
});
afterAll(async () => stack?.close());

const uploadForm = (...files: [string, Buffer][]) => {
  const form = new FormData();
  for (const [name, bytes] of files) form.append('files', new Blob([bytes]), name);
  return form;
};

describe('uploads configured in config.yaml', () => {
  it('applies max_files and max_file_mb', async () => {
    const { thread_id: id } = await stack.client.threads.create();
    const two = await fetch(`${stack.url}/api/threads/${id}/uploads`, { method: 'POST', body: uploadForm(['a.txt', Buffer.from('a')], ['b.txt', Buffer.from('b')]) });
    expect(two.status).toBe(413);
    const big = await fetch(`${stack.url}/api/threads/${id}/uploads`, { method: 'POST', body: uploadForm(['big.txt', Buffer.alloc(2 * 1024 * 1024, 'x')]) });
    expect(big.status).toBe(413);
    const list = (await (await fetch(`${stack.url}/api/threads/${id}/uploads/list`)).json()) as { count: number };
    expect(list.count).toBe(0);
  });

  it('counts conversion durations by format in /metrics', async () => {
    const { thread_id: id } = await stack.client.threads.create();
    const res = await fetch(`${stack.url}/api/threads/${id}/uploads`, { method: 'POST', body: uploadForm(['test.docx', readFileSync(DOCX)]) });
    expect(res.status).toBe(200);
    const metrics = await (await fetch(`${stack.url}/metrics`)).text();
    expect(metrics).toMatch(/^warren_conversion_duration_seconds_count\{format="\.docx"\} 1$/m);
  });
});
