// One conversion worker thread, kept for many documents. It converts one document at a time
// under that job's limits: a wall-clock timer, and a watchdog on the thread's buffers (which live
// outside the V8 heap, so the heap cap fixed at start-up does not see them). Anything that could
// leave the thread in a bad state (a timeout, a cap, a crash, a message it should not send)
// ends the thread, kills the LibreOffice process groups it started and removes their work dirs,
// and so does a document that changed a guarded built-in prototype (see convert-worker.ts). A
// parser's ConversionError leaves it usable: the converter caught it and cleaned up.
import { rm } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { ConversionError, errnoCode } from '../errors.js';
import { displayName, formatDuration } from './messages.js';
import type { ConvertOptions } from './options.js';
import { isConverterWorkDir, killGroup } from './child-process.js';
import { ConvertThreadBusyError } from './convert.errors.js';
import { parseWorkerMessage } from './worker-protocol.js';
import type { WorkerJob } from './worker-protocol.js';
import { workerEntry } from './worker-script.js';

/** The limits of one conversion; the heap cap belongs to the thread (see ConversionPool). */
export interface JobLimits extends ConvertOptions {
  /**
   * Cap on the worker's buffers (ArrayBuffers live outside the V8 heap, so the heap cap does not
   * see them: a 1 MB PDF whose stream inflates to 1 GiB allocates exactly that). Default: the
   * heap cap.
   */
  maxExternalMemoryMb?: number;
  /** How often the buffers are measured. Default 50 ms. */
  memoryCheckMs?: number;
  /**
   * Wall-clock limit for the conversion, from the moment a worker takes it (waiting for a free
   * worker does not count). Default 60 s.
   */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MEMORY_CHECK_MS = 50;
const MB = 1024 * 1024;

export interface ConverterThread {
  /** Documents this thread has been given. */
  readonly jobs: number;
  /** False once the thread is ending: it takes no more documents. */
  readonly usable: boolean;
  /**
   * True when the last document's heap or buffers came past half their cap. That memory is
   * garbage now, but the thread would keep it (and a buffer counts against the next document's
   * cap until V8 collects it), so such a thread is better replaced than reused.
   */
  readonly bloated: boolean;
  /** Converts one document. `bytes` is transferred to the thread, so the caller loses it. */
  convert(bytes: Uint8Array<ArrayBuffer>, filename: string, limits: JobLimits): Promise<string>;
  /** Idle: lets the process exit although this thread is alive. */
  park(): void;
  /** Ends the thread; a conversion in flight fails. Resolves once it has exited. */
  terminate(): Promise<void>;
}

interface ActiveJob {
  id: number;
  label: string;
  externalMb: number;
  /** Most heap and buffer memory seen during this job. */
  peakHeap: number;
  peakExternal: number;
  timer?: NodeJS.Timeout;
  watchdog?: NodeJS.Timeout;
  resolve(markdown: string): void;
  reject(err: ConversionError): void;
}

function convertOptions(limits: JobLimits): ConvertOptions {
  const { maxUncompressedBytes, maxZipEntries, soffice, sofficeTimeoutMs, ocr } = limits;
  return { maxUncompressedBytes, maxZipEntries, soffice, sofficeTimeoutMs, ocr };
}

function removeWorkDir(workDir: string): void {
  // Best effort: a work dir left behind sits in the temp folder, under a name we recognise.
  if (isConverterWorkDir(workDir)) void rm(workDir, { recursive: true, force: true }).catch(() => {}); // left behind, it is recognisable by name (see above)
}

/**
 * Starts a worker thread with the given heap cap. `onExit` is called once, when the thread has
 * exited for whatever reason. With `warm`, the thread loads its converters and converts a tiny
 * PDF before its first document (see warm-up.ts). Throws if the thread cannot be created at all.
 */
export function startConverterThread(heapMb: number, onExit: () => void, warm = false): ConverterThread {
  const worker = new Worker(workerEntry(), {
    resourceLimits: { maxOldGenerationSizeMb: heapMb },
    workerData: { warm },
    // Parsers log to the console; keep that out of the service's output. The worker sends its
    // console as messages (see convert-worker.ts), and these streams are never read: reading
    // them would keep the thread referenced even when idle.
    stdout: true,
    stderr: true,
  });
  /** The current job's error output, for the cause of a failure. */
  let stderr = '';

  // LibreOffice runs in flight: pid → temp dir, cleaned up here if the worker cannot.
  const processGroups = new Map<number, string>();
  let active: ActiveJob | null = null;
  let jobs = 0;
  let ending = false;
  let bloated = false;
  let markExited!: () => void;
  const exited = new Promise<void>((resolve) => (markExited = resolve));

  const killProcessGroups = (): void => {
    for (const [pid, workDir] of processGroups) {
      killGroup(pid);
      removeWorkDir(workDir);
    }
    processGroups.clear();
  };

  /** Settles the job in flight. LibreOffice never outlives the job that started it. */
  const finish = (job: ActiveJob, outcome: string | ConversionError): void => {
    if (active !== job) return;
    active = null;
    clearTimeout(job.timer);
    clearInterval(job.watchdog);
    bloated = job.peakHeap > (heapMb * MB) / 2 || job.peakExternal > (job.externalMb * MB) / 2;
    killProcessGroups();
    if (typeof outcome === 'string') job.resolve(outcome);
    else job.reject(outcome);
  };

  /** Ends the thread for good. */
  const retire = (): void => {
    ending = true;
    killProcessGroups();
    // The thread is being dropped; a thread that fails to terminate has already stopped.
    void worker.terminate().catch(() => {}); // it has stopped either way
  };

  /** Fails the job in flight (if any) with `message`, and ends the thread. */
  const fail = (message: string, cause?: unknown): void => {
    const job = active;
    retire();
    if (!job) return;
    // The worker's last console output, if any, helps whoever reads the logs.
    const detail = cause ?? (stderr.trim() ? new Error(stderr.trim()) : undefined);
    finish(job, new ConversionError(`${job.label} was not converted: ${message}`, detail ? { cause: detail } : undefined));
  };

  worker.on('message', (raw: unknown) => {
    const message = parseWorkerMessage(raw);
    if (ending) {
      // A message still in flight from a thread being ended: only a new LibreOffice matters.
      if (message?.type === 'spawned') {
        killGroup(message.pid);
        removeWorkDir(message.workDir);
      }
      return;
    }
    if (!message) return fail('the converter sent back an unreadable result.');
    if (message.type === 'output') {
      // Output between jobs (a parser's late warning) is harmless and belongs to no job.
      if (active && message.job === active.id) stderr = (stderr + message.text).slice(-4000);
      return;
    }
    // Recorded before anything else, so even a process reported out of turn is killed.
    if (message.type === 'spawned') processGroups.set(message.pid, message.workDir);
    const job = active;
    if (!job || message.job !== job.id) return fail('the converter sent a message out of turn.');
    switch (message.type) {
      case 'spawned':
        break;
      case 'exited':
        processGroups.delete(message.pid);
        break;
      case 'done':
        if (!message.clean) retire();
        finish(job, message.markdown);
        break;
      case 'failed':
        if (!message.conversion) return fail(`the converter failed: ${message.message}`);
        if (!message.clean) retire();
        finish(job, new ConversionError(message.message));
        break;
    }
  });
  worker.on('error', (err: unknown) => {
    if (errnoCode(err) === 'ERR_WORKER_OUT_OF_MEMORY') {
      fail(`it needed more than ${heapMb} MB of memory, so the conversion was stopped.`, err);
    } else {
      fail(`the converter crashed (${err instanceof Error ? err.message : String(err)}).`, err);
    }
  });
  worker.on('messageerror', (err: unknown) => fail('the converter sent back an unreadable result.', err));
  worker.on('exit', (code) => {
    fail(`the converter stopped unexpectedly (exit code ${code}).`);
    onExit();
    markExited();
  });

  const startJob = (job: ActiveJob, limits: JobLimits): void => {
    const timeoutMs = limits.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    job.timer = setTimeout(() => {
      if (active === job) fail(`it took longer than ${formatDuration(timeoutMs)}, so the conversion was stopped.`);
    }, timeoutMs);
    // The heap statistics come through an interrupt, so they arrive even while a parser is in a
    // long synchronous loop. Between two checks a buffer can at most double, which bounds the
    // overshoot to about twice the cap.
    job.watchdog = setInterval(() => {
      worker.getHeapStatistics().then(
        (stats) => {
          if (active !== job) return;
          job.peakHeap = Math.max(job.peakHeap, stats.used_heap_size);
          job.peakExternal = Math.max(job.peakExternal, stats.external_memory);
          if (stats.external_memory > job.externalMb * MB) {
            fail(`it needed more than ${job.externalMb} MB of memory, so the conversion was stopped.`);
          }
        },
        // The worker has just exited: its own exit or error event settles the conversion.
        () => undefined,
      );
    }, limits.memoryCheckMs ?? DEFAULT_MEMORY_CHECK_MS);
    job.watchdog.unref();
  };

  return {
    get jobs() {
      return jobs;
    },
    get usable() {
      return !ending;
    },
    get bloated() {
      return bloated;
    },
    convert(bytes, filename, limits) {
      // The pool never does either; a bug there must not reach a document.
      if (ending || active) throw new ConvertThreadBusyError('This conversion thread cannot take a document now.');
      jobs++;
      stderr = '';
      worker.ref();
      return new Promise<string>((resolve, reject) => {
        const job: ActiveJob = {
          id: jobs,
          label: displayName(filename),
          externalMb: limits.maxExternalMemoryMb ?? heapMb,
          peakHeap: 0,
          peakExternal: 0,
          resolve,
          reject,
        };
        active = job;
        startJob(job, limits);
        const message: WorkerJob = { id: job.id, bytes, filename, options: convertOptions(limits) };
        try {
          worker.postMessage(message, [bytes.buffer]);
        } catch (err) {
          fail('the converter could not be given the document.', err);
        }
      });
    },
    park() {
      worker.unref();
    },
    terminate() {
      fail('the converter was shut down.');
      return exited;
    },
  };
}
