// Workload 5b: does conversion starve the API? p50/p99 of GET /api/models, first on an idle
// API, then while 4 large PDFs are uploaded at once (each to its own thread) and converted by
// the API's conversion sandbox. One request in flight at a time, 5 ms apart.
import { randomUUID } from 'node:crypto';
import { summarize, type Summary } from '../lib/stats.ts';
import { sleep } from '../lib/wait.ts';

export interface ModelsUnderLoad {
  pdf_mib: number;
  uploads: number;
  idle_ms: Summary;
  under_load_ms: Summary;
  upload_ms: Summary;
  /** Uploads whose response carried a markdown_file (the conversion succeeded). */
  converted: number;
  upload_messages: string[];
}

async function sampleModels(baseUrl: string, until: () => boolean, into: number[]): Promise<void> {
  while (!until()) {
    const t0 = performance.now();
    const res = await fetch(`${baseUrl}/api/models`);
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`GET /api/models answered ${res.status}`);
    into.push(performance.now() - t0);
    await sleep(5);
  }
}

async function upload(baseUrl: string, name: string, pdf: Buffer): Promise<{ ms: number; converted: boolean; message?: string }> {
  const form = new FormData();
  form.append('files', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), name);
  const t0 = performance.now();
  const res = await fetch(`${baseUrl}/api/threads/${randomUUID()}/uploads`, { method: 'POST', body: form });
  const body = (await res.json()) as { files?: { markdown_file?: string; message?: string }[]; detail?: string };
  const file = body.files?.[0];
  return { ms: performance.now() - t0, converted: Boolean(file?.markdown_file), message: file?.message ?? body.detail };
}

export async function measureModelsUnderLoad(baseUrl: string, pdf: Buffer, uploads: number, idleMs: number): Promise<ModelsUnderLoad> {
  const idle: number[] = [];
  const idleUntil = performance.now() + idleMs;
  await sampleModels(baseUrl, () => performance.now() > idleUntil, idle);

  const busy: number[] = [];
  let done = false;
  const uploading = Promise.all(Array.from({ length: uploads }, (_, i) => upload(baseUrl, `large-${i + 1}.pdf`, pdf))).finally(() => {
    done = true;
  });
  const [results] = await Promise.all([uploading, sampleModels(baseUrl, () => done, busy)]);
  return {
    pdf_mib: Number((pdf.length / 1024 / 1024).toFixed(1)),
    uploads,
    idle_ms: summarize(idle),
    under_load_ms: summarize(busy),
    upload_ms: summarize(results.map((r) => r.ms)),
    converted: results.filter((r) => r.converted).length,
    upload_messages: [...new Set(results.map((r) => r.message).filter((m): m is string => Boolean(m)))],
  };
}
