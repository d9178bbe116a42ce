// A pool of warm conversion threads. Starting a worker and loading the converters (mammoth,
// pdf-parse, SheetJS, officeparser) costs far more than converting a small document, so threads
// are kept and reused, one document at a time each. Documents beyond the pool's size wait in line,
// first come first served. A thread that failed in a way that could leave it in a bad state ends
// (converter-thread.ts) and is replaced when a document next needs one; a healthy thread is still
// replaced after a number of documents, to bound slow leaks, and ends when it has been idle a while.
import { ConversionError } from '../errors.js';
import { startConverterThread } from './converter-thread.js';
import type { ConverterThread, JobLimits } from './converter-thread.js';
import { displayName } from './messages.js';

export interface PoolOptions {
  /** Heap cap of each thread (V8 old generation), fixed when the thread starts. @defaultValue 512 */
  maxOldGenerationSizeMb?: number;
  /** Threads alive at once; more documents wait for one. @defaultValue 2 */
  maxWorkers?: number;
  /** Documents a thread converts before it is replaced. @defaultValue 100 */
  maxJobsPerWorker?: number;
  /** An idle thread ends after this long. @defaultValue 30 s */
  idleTimeoutMs?: number;
  /**
   * Threads kept ready ahead of demand: started with the pool and when one is replaced, each
   * warming its converters up (warm-up.ts), and never ended for being idle. @defaultValue 0
   */
  warmThreads?: number;
}

export const DEFAULT_POOL_MEMORY_MB = 512;
export const DEFAULT_POOL_MAX_WORKERS = 2;
const DEFAULT_MAX_JOBS_PER_WORKER = 100;
const DEFAULT_IDLE_TIMEOUT_MS = 30_000;

export interface PoolStats {
  /** Threads started since the pool was made. */
  workersStarted: number;
  /** Threads alive now, busy or idle; one being ended counts until it has exited. */
  workersAlive: number;
  /** Documents waiting for a thread. */
  queued: number;
  /** Documents finished, converted or not. */
  jobsDone: number;
}

export interface ConversionPool {
  /** Converts a document in one of the pool's threads; every failure is a ConversionError. */
  convert(bytes: Buffer, filename: string, limits?: JobLimits): Promise<string>;
  stats(): PoolStats;
  /** Ends every thread; waiting and running conversions fail. Resolves once all have exited. */
  close(): Promise<void>;
}

interface Waiting {
  bytes: Uint8Array<ArrayBuffer>;
  filename: string;
  limits: JobLimits;
  resolve(markdown: string): void;
  reject(err: unknown): void;
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, not ${value}.`);
  return value;
}

const shutDown = (filename: string) =>
  new ConversionError(`${displayName(filename)} was not converted: the converter was shut down.`);

export function createConversionPool(options: PoolOptions = {}): ConversionPool {
  const heapMb = positiveInteger('maxOldGenerationSizeMb', options.maxOldGenerationSizeMb ?? DEFAULT_POOL_MEMORY_MB);
  const maxWorkers = positiveInteger('maxWorkers', options.maxWorkers ?? DEFAULT_POOL_MAX_WORKERS);
  const maxJobs = positiveInteger('maxJobsPerWorker', options.maxJobsPerWorker ?? DEFAULT_MAX_JOBS_PER_WORKER);
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const warmThreads = Math.min(maxWorkers, options.warmThreads ?? 0);
  if (!Number.isSafeInteger(warmThreads) || warmThreads < 0) throw new RangeError(`warmThreads must be 0 or more, not ${warmThreads}.`);

  const threads = new Set<ConverterThread>();
  /** Idle threads with their timers, the most recently used last: it is taken first, so the others can time out. */
  const idleTimers = new Map<ConverterThread, NodeJS.Timeout>();
  const lastIdle = (): ConverterThread | undefined => [...idleTimers.keys()].at(-1);
  const queue: Waiting[] = [];
  let workersStarted = 0;
  let jobsDone = 0;
  let closing: Promise<void> | null = null;

  const unpark = (thread: ConverterThread): void => {
    clearTimeout(idleTimers.get(thread));
    idleTimers.delete(thread);
  };

  const park = (thread: ConverterThread): void => {
    thread.park();
    const timer = setTimeout(() => {
      // The warm threads stay; the pool shrinks to them, not below.
      if (threads.size <= warmThreads) return;
      unpark(thread);
      void thread.terminate();
    }, idleTimeoutMs);
    timer.unref();
    idleTimers.set(thread, timer);
  };

  const start = (warm: boolean): ConverterThread => {
    const thread: ConverterThread = startConverterThread(
      heapMb,
      () => {
        // The slot frees only once the thread has really exited, so the pool never holds more.
        threads.delete(thread);
        unpark(thread);
        // A thread that ended before its first document (its warm-up crashed) is not replaced
        // ahead of demand: that would loop.
        if (thread.jobs > 0) warmUp();
        pump();
      },
      warm,
    );
    threads.add(thread);
    workersStarted++;
    return thread;
  };

  /** Starts threads ahead of demand until `warmThreads` are alive; they idle until needed. */
  function warmUp(): void {
    while (!closing && threads.size < warmThreads && queue.length === 0) {
      let thread: ConverterThread;
      try {
        thread = start(true);
      } catch {
        return; // a thread that cannot start now is started, and its failure reported, on demand
      }
      park(thread);
    }
  }

  /** An idle thread, else a new one if there is room, else null. Throws if a thread cannot start. */
  const take = (): ConverterThread | null => {
    for (let thread = lastIdle(); thread; thread = lastIdle()) {
      unpark(thread);
      if (thread.usable) return thread;
    }
    if (threads.size >= maxWorkers) return null;
    return start(false);
  };

  const release = (thread: ConverterThread): void => {
    jobsDone++;
    if (!thread.usable) return; // Ending: its exit frees the slot and serves the queue.
    if (closing || thread.jobs >= maxJobs || thread.bloated) void thread.terminate();
    else park(thread);
    pump();
  };

  function pump(): void {
    while (queue.length > 0 && !closing) {
      let thread: ConverterThread | null;
      try {
        thread = take();
      } catch (err) {
        const next = queue.shift();
        jobsDone++;
        next?.reject(
          err instanceof ConversionError
            ? err
            : new ConversionError(`${displayName(next.filename)} was not converted: the converter could not start.`, { cause: err }),
        );
        continue;
      }
      if (!thread) return;
      const next = queue.shift();
      if (!next) return;
      const running = thread;
      // The thread is released before the caller hears back, so what the caller sees next
      // (stats, another conversion) already reflects it.
      running.convert(next.bytes, next.filename, next.limits).then(
        (markdown) => {
          release(running);
          next.resolve(markdown);
        },
        (err: unknown) => {
          release(running);
          next.reject(err);
        },
      );
    }
  }

  warmUp();

  return {
    convert(bytes, filename, limits = {}) {
      if (closing) return Promise.reject(shutDown(filename));
      // A private copy is transferred, so the caller's buffer stays usable and nothing is cloned twice.
      const copy = new Uint8Array(bytes);
      return new Promise<string>((resolve, reject) => {
        queue.push({ bytes: copy, filename, limits, resolve, reject });
        pump();
      });
    },
    stats() {
      return { workersStarted, workersAlive: threads.size, queued: queue.length, jobsDone };
    },
    close() {
      closing ??= (async () => {
        for (const waiting of queue.splice(0)) {
          jobsDone++;
          waiting.reject(shutDown(waiting.filename));
        }
        for (const thread of [...idleTimers.keys()]) unpark(thread);
        await Promise.all([...threads].map((thread) => thread.terminate()));
      })();
      return closing;
    },
  };
}
