// Workload 5a: conversion cost per document format, through a conversion sandbox (the worker-thread
// pool every upload goes through) from Warren's built dist/. Each conversion is timed alone,
// so the figure is latency, not throughput. The sandbox keeps its worker threads warm, so only a
// format's first document pays for loading its parser; ms per document is reported next to ms/MiB
// because small files are dominated by fixed costs.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { summarize, type Summary } from '../lib/stats.ts';

/**
 * The part of a sandbox (createSandbox in src/convert/sandbox.ts) the bench calls. It is loaded
 * from dist/ at run time; the bench does not type-check Warren's sources, which type stripping
 * cannot run.
 */
export interface Sandbox {
  convert(bytes: Buffer, filename: string, limits?: { timeoutMs?: number; ocr?: { languages?: string[]; maxPages?: number } }): Promise<string>;
  close(): Promise<void>;
}

export interface FormatPoint {
  /** The extension, or a label such as `pdf (generated 16 MiB)` for a document of our own. */
  format: string;
  documents: number;
  conversions: number;
  failures: number;
  /** Mean size of the documents converted. */
  mean_doc_mib: number;
  ms_per_mib: Summary;
  ms_per_document: Summary;
  /** All bytes over all time: what a stream of such uploads would sustain, one at a time. */
  mib_per_s: number;
}

export interface Document {
  name: string;
  bytes: Buffer;
  /** Row label; the extension when left out. */
  format?: string;
  /** Read scanned pages by OCR (Tesseract), as uploads do when it is installed. */
  ocr?: boolean;
}

const FORMATS = ['.pdf', '.docx', '.xlsx', '.xls', '.pptx', '.doc', '.ppt'];

export function fixtureDocuments(dirs: readonly string[]): Document[] {
  const docs: Document[] = [];
  for (const dir of dirs) {
    for (const name of readdirSync(dir).sort()) {
      if (FORMATS.includes(path.extname(name).toLowerCase())) docs.push({ name, bytes: readFileSync(path.join(dir, name)) });
    }
  }
  return docs;
}

/** A sandbox with the API's default heap cap and size; the caller closes it. */
export async function loadSandbox(projectRoot: string): Promise<Sandbox> {
  const url = pathToFileURL(path.join(projectRoot, 'dist', 'src', 'convert', 'sandbox.js')).href;
  const mod = (await import(url)) as { createSandbox: () => Sandbox };
  return mod.createSandbox();
}

export async function measureConversions(sandbox: Sandbox, docs: readonly Document[], repeats: number): Promise<FormatPoint[]> {
  const byFormat = new Map<string, { docs: Set<string>; perMiB: number[]; perDoc: number[]; bytes: number; failures: number; ms: number }>();
  for (const doc of docs) {
    const format = doc.format ?? path.extname(doc.name).toLowerCase().slice(1);
    const entry = byFormat.get(format) ?? { docs: new Set<string>(), perMiB: [], perDoc: [], bytes: 0, failures: 0, ms: 0 };
    byFormat.set(format, entry);
    entry.docs.add(doc.name);
    for (let i = 0; i < repeats; i++) {
      const t0 = performance.now();
      try {
        await sandbox.convert(doc.bytes, doc.name, { timeoutMs: 120_000, ...(doc.ocr ? { ocr: { languages: ['eng'], maxPages: 50 } } : {}) });
      } catch {
        // A document the converter rejects still took time, but it is not a conversion rate.
        entry.failures++;
        continue;
      }
      const ms = performance.now() - t0;
      entry.perDoc.push(ms);
      entry.perMiB.push(ms / (doc.bytes.length / 1024 / 1024));
      entry.bytes += doc.bytes.length;
      entry.ms += ms;
    }
  }
  return [...byFormat].map(([format, e]) => ({
    format,
    documents: e.docs.size,
    conversions: e.perDoc.length,
    failures: e.failures,
    mean_doc_mib: Number((e.bytes / Math.max(1, e.perDoc.length) / 1024 / 1024).toFixed(3)),
    ms_per_mib: summarize(e.perMiB),
    ms_per_document: summarize(e.perDoc),
    mib_per_s: e.ms > 0 ? Number((e.bytes / 1024 / 1024 / (e.ms / 1000)).toFixed(3)) : 0,
  }));
}
