// Worker-thread entry for the conversion pool (pool.ts): converts the jobs posted to it, one at
// a time, and posts each outcome. The thread lives for many jobs, so each converter module is
// loaded once (convert.ts imports them on first use) and every later document skips that cost.
// Started by converter-thread.ts; not meant to be imported.
import { Buffer } from 'node:buffer';
import { parentPort, workerData } from 'node:worker_threads';
import { ConversionError } from '../errors.js';
import { convertDocument } from './convert.js';
import { setProcessListener } from './child-process.js';
import { ConvertWorkerMisusedError } from './convert.errors.js';
import { warmUp } from './warm-up.js';
import { parseWorkerJob } from './worker-protocol.js';
import type { WorkerMessage } from './worker-protocol.js';

const port = parentPort;
if (!port) throw new ConvertWorkerMisusedError('convert-worker.ts runs only as a worker thread.');

function post(message: WorkerMessage): void {
  port?.postMessage(message);
}

/** The job being converted; 0 between jobs, which the parent treats as a protocol breach. */
let current = 0;

/**
 * Console output never goes through this thread's stdio streams: once anything has passed
 * through them, Node keeps the thread referenced for good (even after worker.unref()), so an
 * idle thread would keep the process alive. Error output is posted as messages instead (the
 * parent keeps its tail to explain a failure); the rest is dropped, as the parent always did.
 */
function redirect(stream: NodeJS.WriteStream, forward: boolean): void {
  const write = (chunk: unknown, encodingOrCallback?: unknown, callback?: unknown): boolean => {
    if (forward) {
      const text = chunk instanceof Uint8Array ? Buffer.from(chunk).toString('utf8') : String(chunk);
      post({ type: 'output', job: current, text: text.slice(-4000) });
    }
    const done = typeof encodingOrCallback === 'function' ? encodingOrCallback : callback;
    if (typeof done === 'function') process.nextTick(() => done());
    return true;
  };
  stream.write = write as typeof stream.write;
}
redirect(process.stdout, false);
redirect(process.stderr, true);

// The parent kills these if it has to tear this worker down mid-conversion.
setProcessListener({
  spawned: (pid, workDir) => post({ type: 'spawned', job: current, pid, workDir }),
  exited: (pid) => post({ type: 'exited', job: current, pid }),
});

/**
 * Documents from different uploads share this thread, so one that pollutes a built-in prototype
 * (the classic parser bug: a `__proto__` key in the input) must not reach the next. These
 * prototypes are fingerprinted before any converter loads and checked after each job; a change
 * makes the parent replace the thread. Other built-ins cannot be checked this way: pdf.js
 * polyfills some of them the first time it loads.
 */
const GUARDED = [Object.prototype, Array.prototype];

function fingerprint(): unknown[] {
  return GUARDED.flatMap((proto) =>
    Reflect.ownKeys(proto).flatMap((key) => {
      const property = Object.getOwnPropertyDescriptor(proto, key);
      return [key, property?.value, property?.get, property?.set];
    }),
  );
}

const pristine = fingerprint();

function untouched(): boolean {
  const now = fingerprint();
  return now.length === pristine.length && now.every((item, i) => Object.is(item, pristine[i]));
}

async function run(raw: unknown): Promise<void> {
  const job = parseWorkerJob(raw);
  // Throwing makes this thread fail with an error event, which ends it: the parent sent
  // something it never sends, so neither side can trust the other's state any more.
  if (!job) throw new ConvertWorkerMisusedError('The conversion worker was sent an unreadable job.');
  if (current !== 0) throw new ConvertWorkerMisusedError('The conversion worker was sent a job while busy.');
  current = job.id;
  try {
    const bytes = Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength);
    const markdown = await convertDocument(bytes, job.filename, job.options);
    post({ type: 'done', job: job.id, markdown, clean: untouched() });
  } catch (err) {
    post({
      type: 'failed',
      job: job.id,
      message: err instanceof Error ? err.message : String(err),
      conversion: err instanceof ConversionError,
      clean: untouched(),
    });
  } finally {
    current = 0;
  }
}

/**
 * A thread started ahead of demand loads its converters first; a document posted meanwhile waits
 * for that. A warm-up that fails changes nothing: the document loads what it needs, as always.
 */
const warm = typeof workerData === 'object' && workerData !== null && (workerData as { warm?: unknown }).warm === true;
const ready = warm ? warmUp().catch(() => undefined) : Promise.resolve(); // see above: a cold start is the fallback

port.on('message', (raw: unknown) => {
  ready.then(() => run(raw)).catch((err: unknown) => {
    // Rethrown outside the promise so it reaches the thread's uncaught-exception path.
    setImmediate(() => {
      throw err;
    });
  });
});
