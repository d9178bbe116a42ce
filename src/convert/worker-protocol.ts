// What the sandbox and its conversion worker say to each other.
import type { ConvertOptions } from './options.js';

/** Handed to the worker as workerData. */
export interface WorkerInput {
  bytes: Uint8Array;
  filename: string;
  options: ConvertOptions;
}

/** Posted by the worker: LibreOffice process groups it started and ended, then one outcome. */
export type WorkerMessage =
  | { type: 'spawned'; pid: number; workDir: string }
  | { type: 'exited'; pid: number }
  | { type: 'done'; markdown: string }
  | { type: 'failed'; message: string; conversion: boolean };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

export function parseWorkerMessage(value: unknown): WorkerMessage | null {
  if (!isRecord(value)) return null;
  switch (value.type) {
    case 'spawned':
      return typeof value.pid === 'number' && typeof value.workDir === 'string'
        ? { type: 'spawned', pid: value.pid, workDir: value.workDir }
        : null;
    case 'exited':
      return typeof value.pid === 'number' ? { type: 'exited', pid: value.pid } : null;
    case 'done':
      return typeof value.markdown === 'string' ? { type: 'done', markdown: value.markdown } : null;
    case 'failed':
      return typeof value.message === 'string'
        ? { type: 'failed', message: value.message, conversion: value.conversion === true }
        : null;
    default:
      return null;
  }
}

export function parseWorkerInput(value: unknown): WorkerInput | null {
  if (!isRecord(value) || !(value.bytes instanceof Uint8Array) || typeof value.filename !== 'string') return null;
  const options = isRecord(value.options) ? (value.options as ConvertOptions) : {};
  return { bytes: value.bytes, filename: value.filename, options };
}
