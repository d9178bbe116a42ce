// The worker's environment becomes a plain object before anything reads it (workers/plain-env.ts):
// reads and writes keep working, and a child process started without an explicit environment gets
// the variables the worker set after start. LangChain's callbacks run in line unless LangSmith traces
// or the operator says otherwise (#34).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const PLAIN_ENV = fileURLToPath(new URL('../../workers/plain-env.ts', import.meta.url));

const script = `
const before = Object.getOwnPropertyDescriptor(process, 'env') !== undefined;
await import(${JSON.stringify(PLAIN_ENV)});
process.env.WARREN_SET_AFTER_START = 'yes';
const { execFileSync } = await import('node:child_process');
const child = execFileSync(process.execPath, ['-e', 'process.stdout.write(JSON.stringify([process.env.WARREN_INHERITED, process.env.WARREN_SET_AFTER_START]))'], { encoding: 'utf8' });
process.stdout.write(JSON.stringify({ before, proto: Object.getPrototypeOf(process.env) === Object.prototype, inherited: process.env.WARREN_INHERITED, child: JSON.parse(child), background: process.env.LANGCHAIN_CALLBACKS_BACKGROUND ?? null }));
`;

const TRACING = ['LANGSMITH_TRACING', 'LANGSMITH_TRACING_V2', 'LANGCHAIN_TRACING', 'LANGCHAIN_TRACING_V2', 'LANGCHAIN_CALLBACKS_BACKGROUND'];

function startWorkerEnv(extra: Record<string, string> = {}): Record<string, unknown> {
  const env: Record<string, string | undefined> = { ...process.env, WARREN_INHERITED: 'from-parent' };
  for (const name of TRACING) delete env[name];
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { ...env, ...extra } });
  return JSON.parse(out) as Record<string, unknown>;
}

describe('the worker process environment', () => {
  it('is a plain copy that keeps the variables and passes later ones to children', () => {
    expect(startWorkerEnv()).toMatchObject({ before: true, proto: true, inherited: 'from-parent', child: ['from-parent', 'yes'] });
  });

  it('runs LangChain callbacks in line, unless LangSmith traces or the operator chose (#34)', () => {
    expect(startWorkerEnv().background).toBe('false');
    expect(startWorkerEnv({ LANGSMITH_TRACING: 'true' }).background).toBeNull();
    expect(startWorkerEnv({ LANGCHAIN_CALLBACKS_BACKGROUND: 'true' }).background).toBe('true');
  });
});
