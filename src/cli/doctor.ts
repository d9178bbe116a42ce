// `warren doctor`: whether this machine and this configuration can run Warren, one line per
// check with the fix. The exit status is 1 when a fault would stop the start (or leave nothing
// working: no Redis); warnings name what will not work (a missing LibreOffice, a model endpoint
// that does not answer) and leave it 0. It reads the environment and config.yaml exactly as the
// API and the workers do at start, and spends no model tokens.
import { parseAppConfig } from '../config/load-config.js';
import { checkDisk, checkModels, checkNode, checkRedis, loadForDoctor, type CheckResult, type CheckStatus, type DoctorContext } from './doctor-checks.js';
import { BWRAP_DIRS, checkBubblewrap, checkLibreOffice, checkNginx, checkTesseract, type ProgramContext } from './doctor-programs.js';

export interface DoctorOptions {
  /** The environment the start would see; the process's own by default. */
  env?: NodeJS.ProcessEnv;
  /** Receives each line of the report (without its newline). */
  write?: (line: string) => void;
  /** How long one probe (Redis, a model endpoint, a program) may take. */
  timeoutMs?: number;
  /** Test hook: the folders searched for bwrap after the PATH (the worker's own list by default). */
  bwrapDirs?: readonly string[];
}

export interface DoctorReport {
  results: CheckResult[];
  /** 1 when any check found a fault, else 0. */
  exitCode: number;
}

const MARKS: Record<CheckStatus, string> = { ok: 'ok  ', warn: 'WARN', fault: 'FAIL', skip: 'skip' };

export function formatResult({ name, status, found, fix }: CheckResult): string {
  return `${MARKS[status]}  ${name.padEnd(12)} ${found}${fix ? ` -> fix: ${fix}` : ''}`;
}

export async function runDoctor(options: DoctorOptions = {}): Promise<DoctorReport> {
  const env = options.env ?? process.env;
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const timeoutMs = options.timeoutMs ?? 5_000;
  const { envConfig, loaded, results: configResults } = loadForDoctor(env);
  const ctx: DoctorContext = { env, envConfig, loaded, timeoutMs };
  // The program checks read the config's OCR and sandbox settings, or their defaults.
  const programs: ProgramContext = {
    searchPath: env.PATH ?? '',
    config: loaded?.config ?? parseAppConfig({}, {}),
    timeoutMs,
    bwrapDirs: options.bwrapDirs ?? BWRAP_DIRS,
  };
  // The probes run at once; the report keeps one order.
  const [redis, models, libreoffice, tesseract, bubblewrap, nginx] = await Promise.all([
    checkRedis(ctx),
    checkModels(ctx),
    checkLibreOffice(programs),
    checkTesseract(programs),
    checkBubblewrap(programs),
    checkNginx(programs),
  ]);
  const results = [checkNode(), ...configResults, redis, ...models, checkDisk(ctx), libreoffice, tesseract, bubblewrap, nginx];
  for (const result of results) write(formatResult(result));
  const faults = results.filter((r) => r.status === 'fault').length;
  const warnings = results.filter((r) => r.status === 'warn').length;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  write(
    faults > 0
      ? `${plural(faults, 'fault')} and ${plural(warnings, 'warning')}: Warren will not start (or will not work) until the faults are fixed.`
      : `No fault${warnings > 0 ? `; ${plural(warnings, 'warning')} (what they name will not work)` : ''}: Warren can start.`,
  );
  return { results, exitCode: faults > 0 ? 1 : 0 };
}
