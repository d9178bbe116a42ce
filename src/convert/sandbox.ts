// Runs convertDocument in a worker thread with a heap cap, a cap on its buffers and a wall-clock
// limit, so a hostile or pathological document can crash, exhaust or hang only its worker. Every
// failure becomes a ConversionError; the caller's process and event loop carry on.
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ConversionError } from '../errors.js';
import { displayName, formatDuration } from './messages.js';
import type { ConvertOptions } from './options.js';
import { isSofficeWorkDir, killGroup } from './soffice.js';
import { parseWorkerMessage } from './worker-protocol.js';
import type { WorkerInput } from './worker-protocol.js';

export interface SandboxLimits extends ConvertOptions {
  /** Heap cap of the worker (V8 old generation). Default 512 MB. */
  maxOldGenerationSizeMb?: number;
  /**
   * Cap on the worker's buffers (ArrayBuffers live outside the V8 heap, so the heap cap does not
   * see them: a 1 MB PDF whose stream inflates to 1 GiB allocates exactly that). Default: the
   * heap cap.
   */
  maxExternalMemoryMb?: number;
  /** How often the buffers are measured. Default 50 ms. */
  memoryCheckMs?: number;
  /** Wall-clock limit for the whole conversion. Default 60 s. */
  timeoutMs?: number;
}

export const DEFAULT_SANDBOX_MEMORY_MB = 512;
export const DEFAULT_SANDBOX_TIMEOUT_MS = 60_000;
const DEFAULT_MEMORY_CHECK_MS = 50;
const MB = 1024 * 1024;

// Under vitest (or any run from source) only the .ts files exist. Node strips types natively
// but does not map the `.js` import specifiers to `.ts`, and cannot strip every construct, so
// the worker is started through a tiny bootstrap that installs hooks doing both.
function sourceBootstrap(entry: string): string {
  return `
import { registerHooks, stripTypeScriptTypes } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
registerHooks({
  resolve(specifier, context, nextResolve) {
    if (/^\\.\\.?\\//.test(specifier) && specifier.endsWith('.js') && context.parentURL?.endsWith('.ts')) {
      const url = new URL(specifier.slice(0, -3) + '.ts', context.parentURL);
      if (existsSync(fileURLToPath(url))) return { url: url.href, shortCircuit: true };
    }
    return nextResolve(specifier, context);
  },
  load(url, context, nextLoad) {
    if (url.startsWith('file:') && url.endsWith('.ts')) {
      const code = readFileSync(fileURLToPath(url), 'utf8');
      const source = stripTypeScriptTypes(code, { mode: 'transform', sourceUrl: url });
      return { format: 'module', source, shortCircuit: true };
    }
    return nextLoad(url, context);
  },
});
await import(${JSON.stringify(entry)});
`;
}

let cachedEntry: URL | null = null;

/** The worker script: compiled JavaScript next to this file, else the TypeScript source. */
function workerEntry(): URL {
  if (cachedEntry) return cachedEntry;
  const compiled = new URL('./convert-worker.js', import.meta.url);
  const source = new URL('./convert-worker.ts', import.meta.url);
  if (existsSync(fileURLToPath(compiled))) {
    cachedEntry = compiled;
  } else if (existsSync(fileURLToPath(source))) {
    cachedEntry = new URL(`data:text/javascript,${encodeURIComponent(sourceBootstrap(source.href))}`);
  } else {
    throw new ConversionError('The document converter is not installed correctly: its worker script is missing.');
  }
  return cachedEntry;
}

function errorCode(err: unknown): string | undefined {
  if (typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string') return err.code;
  return undefined;
}

function convertOptions(limits: SandboxLimits): ConvertOptions {
  const { maxUncompressedBytes, maxZipEntries, soffice, sofficeTimeoutMs } = limits;
  return { maxUncompressedBytes, maxZipEntries, soffice, sofficeTimeoutMs };
}

/**
 * Converts a document to Markdown like convertDocument, but in a worker thread with a memory cap
 * and a time limit. A crash, out-of-memory, timeout or parser exception rejects with a
 * ConversionError; on timeout the worker (and any LibreOffice it started) is killed.
 */
export function convertInSandbox(bytes: Buffer, filename: string, limits: SandboxLimits = {}): Promise<string> {
  const label = displayName(filename);
  const timeoutMs = limits.timeoutMs ?? DEFAULT_SANDBOX_TIMEOUT_MS;
  const memoryMb = limits.maxOldGenerationSizeMb ?? DEFAULT_SANDBOX_MEMORY_MB;
  const externalMb = limits.maxExternalMemoryMb ?? memoryMb;
  // A private copy is transferred, so the caller's buffer stays usable and nothing is cloned twice.
  const copy = new Uint8Array(bytes);
  const input: WorkerInput = { bytes: copy, filename, options: convertOptions(limits) };

  return new Promise<string>((resolve, reject) => {
    let worker: Worker;
    try {
      worker = new Worker(workerEntry(), {
        workerData: input,
        transferList: [copy.buffer],
        resourceLimits: { maxOldGenerationSizeMb: memoryMb },
        // Parsers log to the console; keep that out of the service's output.
        stdout: true,
        stderr: true,
      });
    } catch (err) {
      const message = `${label} was not converted: the converter could not start.`;
      reject(err instanceof ConversionError ? err : new ConversionError(message, { cause: err }));
      return;
    }
    worker.stdout.resume();
    let stderr = '';
    worker.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-4000);
    });

    // LibreOffice runs in flight: pid → temp dir, cleaned up here if the worker cannot.
    const processGroups = new Map<number, string>();
    let timer: NodeJS.Timeout | undefined;
    let watchdog: NodeJS.Timeout | undefined;
    let settled = false;
    const settle = (error: ConversionError | null, markdown = ''): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearInterval(watchdog);
      for (const [pid, workDir] of processGroups) {
        killGroup(pid);
        if (isSofficeWorkDir(workDir)) void rm(workDir, { recursive: true, force: true }).catch(() => {});
      }
      void worker.terminate().catch(() => {});
      if (error) reject(error);
      else resolve(markdown);
    };
    const fail = (message: string, cause?: unknown): void => {
      // The worker's last console output, if any, helps whoever reads the logs.
      const detail = cause ?? (stderr.trim() ? new Error(stderr.trim()) : undefined);
      settle(new ConversionError(`${label} was not converted: ${message}`, detail ? { cause: detail } : undefined));
    };

    timer = setTimeout(() => {
      fail(`it took longer than ${formatDuration(timeoutMs)}, so the conversion was stopped.`);
    }, timeoutMs);

    // The heap statistics come through an interrupt, so they arrive even while a parser is in a
    // long synchronous loop. Between two checks a buffer can at most double, which bounds the
    // overshoot to about twice the cap.
    watchdog = setInterval(() => {
      worker.getHeapStatistics().then(
        (stats) => {
          if (stats.external_memory > externalMb * MB) {
            fail(`it needed more than ${externalMb} MB of memory, so the conversion was stopped.`);
          }
        },
        // The worker has just exited: its own exit or error event settles the conversion.
        () => undefined,
      );
    }, limits.memoryCheckMs ?? DEFAULT_MEMORY_CHECK_MS);
    watchdog.unref();

    worker.on('message', (raw: unknown) => {
      const message = parseWorkerMessage(raw);
      if (!message) return;
      switch (message.type) {
        case 'spawned':
          processGroups.set(message.pid, message.workDir);
          break;
        case 'exited':
          processGroups.delete(message.pid);
          break;
        case 'done':
          settle(null, message.markdown);
          break;
        case 'failed':
          if (message.conversion) settle(new ConversionError(message.message));
          else fail(`the converter failed: ${message.message}`);
          break;
      }
    });
    worker.on('error', (err: unknown) => {
      if (errorCode(err) === 'ERR_WORKER_OUT_OF_MEMORY') {
        fail(`it needed more than ${memoryMb} MB of memory, so the conversion was stopped.`, err);
      } else {
        fail(`the converter crashed (${err instanceof Error ? err.message : String(err)}).`, err);
      }
    });
    worker.on('messageerror', (err: unknown) => fail('the converter sent back an unreadable result.', err));
    worker.on('exit', (code) => fail(`the converter stopped unexpectedly (exit code ${code}).`));
  });
}
