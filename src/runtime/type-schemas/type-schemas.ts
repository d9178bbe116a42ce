// Schemas of TypeScript graphs whose state, input, output and config are TypeScript types or
// Annotations: LangGraph's server derives them from the types, and so do we, off the request
// path. The first request for such a graph starts a worker thread that compiles its file
// (extract.ts); derivations run one at a time, so a burst of requests costs one compile per file.
//
// The cache is per process, keyed by the file's path and content hash. The result is a pure
// function of files every replica reads itself (the graph file, what it imports, the project's
// node_modules and tsconfig), so it is no shared state: a Redis copy would need a key covering
// all of those to stay right across deploys, while a process's cache lives exactly as long as
// the graph modules it has loaded. Each replica pays one compile per graph file, on first use.
// Only graphs that give no schemas of their own come here, so a project whose graphs are all
// Zod never loads the compiler.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { workerScript } from '../../convert/worker-script.js';
import { parseSchemaReply, type GraphTypeSchemas, type SchemaFileResult, type SchemaJob } from './schema-protocol.js';
import { TypeSchemaFailedError } from './type-schemas.errors.js';

export type { GraphTypeSchemas } from './schema-protocol.js';

/** The TypeScript file and export a configured graph comes from. */
export interface TypeSource {
  file: string;
  exportName: string;
}

export type DerivationOutcome = 'ok' | 'broken' | 'failed';

export interface TypeSchemasOptions {
  /** Configured graph ids. */
  ids(): string[];
  /** The TypeScript source of a configured graph; null for a JavaScript or built-in one. */
  typeSource(graphId: string): TypeSource | null;
  log: Logger;
  /** How long one file's derivation may take. Default 300 s: a cold compile of LangGraph's types takes seconds of CPU, and over a minute on a busy machine. */
  timeoutMs?: number;
  /** After each derivation: how it ended and how long it took. */
  onDerived?(outcome: DerivationOutcome, seconds: number): void;
}

/** A graph's schemas, and its subgraphs' by namespace (`child`, `child|grandchild`). */
export interface TypedGraphSchemas {
  root: GraphTypeSchemas;
  subgraphs: Record<string, GraphTypeSchemas>;
}

export interface TypeSchemas {
  /** True when the graph is TypeScript, so its types can be read. */
  covers(graphId: string): boolean;
  /** The graph's schemas from its types; null (and a warning logged once per file version) when they cannot be derived. */
  forGraph(graphId: string): Promise<TypedGraphSchemas | null>;
  /** Ends a derivation in flight. */
  close(): Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 300_000;

/** Runs one job in a fresh worker thread, which ends with it. */
function deriveInWorker(job: SchemaJob, timeoutMs: number, running: Set<Worker>): Promise<SchemaFileResult> {
  const script = workerScript(new URL('./schema-worker.js', import.meta.url), new URL('./schema-worker.ts', import.meta.url));
  if (!script) return Promise.reject(new TypeSchemaFailedError('The schema worker script is missing: Warren is not installed correctly.'));
  return new Promise((resolve, reject) => {
    // Its console is kept out of the service's log stream; error output explains a crash.
    const worker = new Worker(script, { workerData: job, stdout: true, stderr: true });
    running.add(worker);
    let stderr = '';
    worker.stdout.resume();
    worker.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
    let settled = false;
    const settle = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      running.delete(worker);
      void worker.terminate().catch(() => undefined); // it has stopped either way
      outcome();
    };
    const timer = setTimeout(() => settle(() => reject(new TypeSchemaFailedError(`deriving took longer than ${timeoutMs} ms`))), timeoutMs);
    worker.on('message', (raw: unknown) => {
      const reply = parseSchemaReply(raw);
      settle(() => (reply?.ok ? resolve(reply.result) : reject(new TypeSchemaFailedError(reply ? reply.message : 'the schema worker sent an unreadable reply'))));
    });
    worker.on('error', (err: Error) => settle(() => reject(new TypeSchemaFailedError(`the schema worker crashed: ${err.message}`, { cause: err }))));
    worker.on('exit', (code) => settle(() => reject(new TypeSchemaFailedError(`the schema worker stopped (exit code ${code}) ${stderr.trim()}`.trim()))));
  });
}

export function createTypeSchemas(options: TypeSchemasOptions): TypeSchemas {
  const { log } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  /** Cache: graph file → the derivation for one version of its content (a changed file replaces it). */
  const byFile = new Map<string, { hash: string; result: Promise<SchemaFileResult | null> }>();
  const running = new Set<Worker>();
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;

  const exportsOf = (file: string): string[] => [
    ...new Set(
      options
        .ids()
        .map((id) => options.typeSource(id))
        .filter((source): source is TypeSource => source?.file === file)
        .map((source) => source.exportName),
    ),
  ];

  /** One derivation after another: each compile takes a core and hundreds of MB for seconds. */
  const derive = (file: string): Promise<SchemaFileResult | null> => {
    const run = queue.then(async () => {
      if (closed) return null;
      const started = performance.now();
      const seconds = () => (performance.now() - started) / 1000;
      try {
        const result = await deriveInWorker({ file, exports: exportsOf(file) }, timeoutMs, running);
        options.onDerived?.(result.broken ? 'broken' : 'ok', seconds());
        if (result.broken) {
          log.warn({ graph_file: file, errors: result.errors }, 'a graph file does not parse as TypeScript: its graphs are served without schemas');
          return result;
        }
        if (result.errors.length > 0) log.warn({ graph_file: file, errors: result.errors }, 'TypeScript errors in a graph file: its schemas may be incomplete');
        log.info({ graph_file: file, duration_ms: Math.round(seconds() * 1000) }, 'graph schemas derived from TypeScript types');
        return result;
      } catch (err) {
        options.onDerived?.('failed', seconds());
        if (!closed) log.warn({ err, graph_file: file }, 'graph schemas could not be derived from TypeScript types: served without schemas');
        throw err;
      }
    });
    queue = run.catch(() => undefined); // the next derivation runs whatever this one's outcome
    return run;
  };

  const resultFor = async (file: string): Promise<SchemaFileResult | null> => {
    const hash = createHash('sha256').update(await readFile(file)).digest('hex');
    const cached = byFile.get(file);
    if (cached?.hash === hash) return cached.result;
    const result = derive(file);
    byFile.set(file, { hash, result });
    // A failed derivation (a crash, a timeout) is not kept: the next request tries again.
    result.catch(() => {
      if (byFile.get(file)?.result === result) byFile.delete(file);
    });
    return result;
  };

  return {
    covers: (graphId) => options.typeSource(graphId) !== null,
    async forGraph(graphId) {
      const source = options.typeSource(graphId);
      if (!source) return null;
      let result: SchemaFileResult | null;
      try {
        result = await resultFor(source.file);
      } catch {
        // Logged where it failed; the graph is answered without schemas, as LangGraph's server does.
        return null;
      }
      const graphs = result?.graphs[source.exportName];
      const root = graphs?.[source.exportName];
      if (!graphs || !root) return null;
      const prefix = `${source.exportName}|`;
      const subgraphs = Object.fromEntries(Object.entries(graphs).flatMap(([name, schemas]) => (name.startsWith(prefix) ? [[name.slice(prefix.length), schemas]] : [])));
      return { root, subgraphs };
    },
    async close() {
      closed = true;
      await Promise.all([...running].map((worker) => worker.terminate()));
      running.clear();
    },
  };
}
