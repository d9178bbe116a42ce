// Hostile uploads (issue 7): decompression bombs, XML entity bombs, corrupt, truncated and
// polyglot files for every conversion format, all uploaded at once. Every upload is stored and
// answered (converted, or with a message saying why not), the API keeps answering /ok
// throughout, and this process's RSS (the API's: it runs here) stays under a set cap.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SANDBOX_MEMORY_MB } from '../../src/convert/sandbox.js';
import { multipart, startGatewayApp, type GatewayApp } from '../gateway/gateway-app.js';
import { hostileDocuments, pdfWithStream, type HostileDocument } from '../gateway/hostile-documents.js';
import { deflatedZeros } from '../gateway/zip-writer.js';

const MiB = 1024 * 1024;
const CONCURRENT_CONVERSIONS = 2;
/**
 * The cap on this process's RSS growth while the bombs convert: each of the conversions that run
 * at once may hold up to its memory cap in buffers (the watchdog stops it past that), plus room
 * for the uploads themselves in flight. Without the buffer cap, one 1 MB PDF below added 1.5 GiB.
 */
const RSS_CAP = CONCURRENT_CONVERSIONS * DEFAULT_SANDBOX_MEMORY_MB * MiB + 128 * MiB;

let gw: GatewayApp;
let url: string;
let documents: HostileDocument[];

beforeAll(async () => {
  // The real defaults (512 MB per conversion, LibreOffice when installed), but 20 s rather than
  // 60 s per conversion, so a hang shows within the test's time.
  gw = await startGatewayApp({ gateway: { conversion: { timeoutMs: 20_000 }, maxConcurrentConversions: CONCURRENT_CONVERSIONS } });
  url = await gw.listen();
  const gib = await deflatedZeros(1024 * MiB, { fill: 0x20, zlib: true });
  documents = [
    ...(await hostileDocuments()),
    { name: 'gib-bomb.pdf', what: 'a 1 MB PDF whose page stream inflates to 1 GiB', bytes: pdfWithStream(gib.body, 'FlateDecode') },
  ];
});
// Generous: a close waits for conversions still running, and a loaded machine runs them slowly.
afterAll(async () => gw?.close(), 180_000);

interface UploadedFile {
  filename: string;
  markdown_file?: string;
  message?: string;
}

async function upload(doc: HostileDocument): Promise<{ status: number; file: UploadedFile | undefined; threadId: string }> {
  const threadId = randomUUID();
  const body = await multipart([{ field: 'files', name: doc.name, data: doc.bytes }]);
  const res = await fetch(`${url}/api/threads/${threadId}/uploads`, { method: 'POST', headers: body.headers, body: body.payload });
  const json = (await res.json()) as { files?: UploadedFile[] };
  return { status: res.status, file: json.files?.[0], threadId };
}

describe('hostile documents', () => {
  it('has a bomb, a corrupt file and a polyglot for each format', () => {
    const names = documents.map((d) => d.name);
    for (const ext of ['pdf', 'docx', 'xlsx', 'pptx', 'doc', 'xls', 'ppt']) {
      expect(names.filter((n) => n.endsWith(`.${ext}`)).length, ext).toBeGreaterThanOrEqual(2);
    }
  });

  it('stores and answers every one, keeps /ok answering, and keeps RSS under the cap', async () => {
    const startRss = process.memoryUsage().rss;
    let peakRss = startRss;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 10);

    // /ok is polled over HTTP the whole time: each answer must come (how fast is printed, not
    // asserted: a loaded machine is slow, not wrong).
    let polling = true;
    const okLatencies: number[] = [];
    const okStatuses: number[] = [];
    const poller = (async () => {
      while (polling) {
        const started = performance.now();
        const res = await fetch(`${url}/ok`);
        okStatuses.push(res.status);
        okLatencies.push(performance.now() - started);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();

    const started = performance.now();
    const results = await Promise.all(documents.map(async (doc) => ({ doc, ...(await upload(doc)) })));
    const elapsed = performance.now() - started;
    polling = false;
    await poller;
    clearInterval(sampler);
    peakRss = Math.max(peakRss, process.memoryUsage().rss);

    for (const { doc, status, file, threadId } of results) {
      expect(status, doc.name).toBe(200);
      expect(file?.filename, doc.name).toBe(doc.name);
      expect(existsSync(path.join(gw.home, 'threads', threadId, 'user-data', 'uploads', doc.name)), doc.name).toBe(true);
      // Converted, or a message that says why not: never silence.
      expect(Boolean(file?.markdown_file) || Boolean(file?.message), doc.name).toBe(true);
    }
    const outcome = (name: string) => results.find((r) => r.doc.name === name)?.file;
    for (const bomb of ['bomb.docx', 'liar.docx', 'liar.pptx', 'gib-bomb.pdf']) {
      expect(outcome(bomb)?.markdown_file, bomb).toBeUndefined();
      expect(outcome(bomb)?.message, bomb).toMatch(/refused|corrupt|more than \d+ MB of memory|zip bomb/);
    }
    expect(outcome('gib-bomb.pdf')?.message).toMatch(/needed more than 512 MB of memory/);

    expect(okStatuses.length).toBeGreaterThan(0);
    expect(okStatuses.every((s) => s === 200)).toBe(true);
    expect(peakRss - startRss).toBeLessThan(RSS_CAP);
    // Recorded for the numbers: visible with --reporter=verbose.
    process.stdout.write(
      `hostile uploads: ${documents.length} files in ${Math.round(elapsed)} ms; RSS ${Math.round(startRss / MiB)} → peak ${Math.round(peakRss / MiB)} MiB ` +
        `(+${Math.round((peakRss - startRss) / MiB)}, cap +${Math.round(RSS_CAP / MiB)}); /ok answered ${okStatuses.length} times, slowest ${Math.round(Math.max(...okLatencies))} ms\n`,
    );
  }, 300_000);
});
