// Start and stop of the API and worker processes: one line each when they start and stop, a
// signal (or the local stack going away) starts one orderly close, and a deadline bounds it so
// that SIGTERM never leaves a half-alive process, even when Redis is not there to answer.
import { ConfigError, errnoCode } from '../errors.js';
import { onParentExit } from './parent-watch.js';

/**
 * How long an orderly close may take before the process exits anyway. Under the local stack's
 * own limit and the 5 s an operator waits; a worker's runs that were not handed back by then
 * move to another worker once their lock lapses, as after a crash.
 */
export const STOP_DEADLINE_MS = 4_000;

/** What the lifecycle logs through: pino's logger or Fastify's. */
export interface LifecycleLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export interface StopOnSignalsOptions {
  log: LifecycleLog;
  /** `api` or `worker`: names the process in its lines. */
  what: string;
  close: () => Promise<void>;
  deadlineMs?: number;
}

export function stopOnSignals({ log, what, close, deadlineMs = STOP_DEADLINE_MS }: StopOnSignalsOptions): void {
  let stopping = false;
  const stop = async (reason: string) => {
    if (stopping) return;
    stopping = true;
    const startedAt = performance.now();
    log.info({ reason }, `${what} stopping`);
    const force = setTimeout(() => {
      log.warn({ deadline_ms: deadlineMs }, `${what} did not stop within ${deadlineMs} ms; exiting without finishing its close`);
      process.exit(1);
    }, deadlineMs);
    force.unref();
    let code = 0;
    try {
      await close();
    } catch (err) {
      code = 1;
      log.warn({ err }, `${what} close failed`);
    }
    log.info({ duration_ms: Math.round(performance.now() - startedAt) }, `${what} stopped`);
    process.exit(code);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  // Started by `npm start`: go down with the local stack even if its signal never arrives.
  if (process.env.WARREN_WATCH_PARENT === '1') onParentExit(() => void stop('parent exited'));
}

/** One line for a start that failed: the message alone for what the operator can fix, else the stack. */
export function startFailureMessage(err: unknown): string {
  if (err instanceof ConfigError) return err.message;
  if (errnoCode(err) === 'EADDRINUSE') {
    const { address, port } = err as { address?: string; port?: number };
    return `port ${port ?? '?'} on ${address ?? 'this host'} is already in use (another Warren?); stop it or set PORT to a free port.`;
  }
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}
