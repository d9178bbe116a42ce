// What the sandbox and its conversion workers say to each other. A worker lives for many jobs,
// so every message names the job it belongs to; the parent checks that against the job it sent.
import type { ConvertOptions } from './options.js';

/** Posted to a worker, one at a time: convert these bytes (transferred, not copied). */
export interface WorkerJob {
  /** A positive integer, unique per worker; echoed in every message about this job. */
  id: number;
  bytes: Uint8Array;
  filename: string;
  options: ConvertOptions;
}

/**
 * Posted by a worker: LibreOffice process groups it started and ended, its console's error
 * output (kept for diagnosis), then one outcome. Job 0 means between jobs. An outcome is `clean`
 * when the job left the guarded built-in prototypes as they were; anything else, a missing flag
 * included, means the thread must not convert another document.
 */
export type WorkerMessage =
  | { type: 'output'; job: number; text: string }
  | { type: 'spawned'; job: number; pid: number; workDir: string }
  | { type: 'exited'; job: number; pid: number }
  | { type: 'done'; job: number; markdown: string; clean: boolean }
  | { type: 'failed'; job: number; message: string; conversion: boolean; clean: boolean };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function isJobId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** A message from a worker, or null when it is not one the protocol knows. */
export function parseWorkerMessage(value: unknown): WorkerMessage | null {
  if (!isRecord(value) || !isJobId(value.job)) return null;
  const job = value.job;
  switch (value.type) {
    case 'output':
      return typeof value.text === 'string' ? { type: 'output', job, text: value.text } : null;
    case 'spawned':
      return typeof value.pid === 'number' && typeof value.workDir === 'string'
        ? { type: 'spawned', job, pid: value.pid, workDir: value.workDir }
        : null;
    case 'exited':
      return typeof value.pid === 'number' ? { type: 'exited', job, pid: value.pid } : null;
    case 'done':
      return typeof value.markdown === 'string'
        ? { type: 'done', job, markdown: value.markdown, clean: value.clean === true }
        : null;
    case 'failed':
      return typeof value.message === 'string'
        ? { type: 'failed', job, message: value.message, conversion: value.conversion === true, clean: value.clean === true }
        : null;
    default:
      return null;
  }
}

export function parseWorkerJob(value: unknown): WorkerJob | null {
  if (!isRecord(value) || !isJobId(value.id) || value.id === 0) return null;
  if (!(value.bytes instanceof Uint8Array) || typeof value.filename !== 'string') return null;
  const options = isRecord(value.options) ? (value.options as ConvertOptions) : {};
  return { id: value.id, bytes: value.bytes, filename: value.filename, options };
}
