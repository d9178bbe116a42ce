// Worker-thread entry for type-schemas.ts: derives one graph file's schemas and posts them back.
// One job per thread: the thread ends with it, and the compiler's memory with it.
// Started by type-schemas.ts; not meant to be imported.
import { parentPort, workerData } from 'node:worker_threads';
import { extractTypeSchemas } from './extract.js';
import { TypeSchemaFailedError } from './type-schemas.errors.js';
import { parseSchemaJob, type SchemaWorkerReply } from './schema-protocol.js';

const port = parentPort;
if (!port) throw new TypeSchemaFailedError('schema-worker.ts runs only as a worker thread.');

let reply: SchemaWorkerReply;
try {
  reply = { ok: true, result: extractTypeSchemas(parseSchemaJob(workerData)) };
} catch (err) {
  reply = { ok: false, message: err instanceof Error ? (err.stack ?? err.message) : String(err) };
}
port.postMessage(reply);
