// Worker-thread entry for convertInSandbox: converts the one document in workerData and posts
// the outcome. Started by sandbox.ts; not meant to be imported.
import { Buffer } from 'node:buffer';
import { parentPort, workerData } from 'node:worker_threads';
import { ConversionError } from '../errors.js';
import { convertDocument } from './convert.js';
import { setProcessListener } from './soffice.js';
import { parseWorkerInput } from './worker-protocol.js';
import type { WorkerMessage } from './worker-protocol.js';

function post(message: WorkerMessage): void {
  parentPort?.postMessage(message);
}

async function main(): Promise<void> {
  const input = parseWorkerInput(workerData);
  if (!input) {
    post({ type: 'failed', message: 'The conversion worker was started without a document.', conversion: false });
    return;
  }
  // The parent kills these if it has to tear this worker down mid-conversion.
  setProcessListener({
    spawned: (pid, workDir) => post({ type: 'spawned', pid, workDir }),
    exited: (pid) => post({ type: 'exited', pid }),
  });
  try {
    const bytes = Buffer.from(input.bytes.buffer, input.bytes.byteOffset, input.bytes.byteLength);
    const markdown = await convertDocument(bytes, input.filename, input.options);
    post({ type: 'done', markdown });
  } catch (err) {
    post({
      type: 'failed',
      message: err instanceof Error ? err.message : String(err),
      conversion: err instanceof ConversionError,
    });
  }
}

void main();
