// `warren doctor`'s checks of the programs Warren runs: LibreOffice, Tesseract and its languages,
// bubblewrap (run, not only found: a container may forbid the namespaces it needs) and nginx.
// Each is found on the PATH the processes would get, then asked for its version. None of them
// stops the start, so a missing or broken one is a warning that says what will not work.
import { spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AppConfig } from '../config/app-config.schemas.js';
import { ok, warn, type CheckResult } from './doctor-checks.js';

/** The first executable of these names in the PATH's folders, then in `extraDirs`; null when none. */
export function findProgram(names: readonly string[], searchPath: string, extraDirs: readonly string[] = []): string | null {
  const dirs = [...searchPath.split(path.delimiter).filter((dir) => path.isAbsolute(dir)), ...extraDirs];
  for (const dir of dirs) {
    for (const name of names) {
      const candidate = path.join(dir, name);
      try {
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // Not there, or not executable: the next folder may have it.
      }
    }
  }
  return null;
}

interface RunResult {
  /** Exit code; null when it was killed (the deadline) or never started. */
  code: number | null;
  /** stdout and stderr together, trimmed, at most a few KiB. */
  output: string;
}

/** Runs a program to its end, or kills it at the deadline. Never rejects. */
function run(file: string, args: readonly string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer) => {
      if (output.length < 4096) output += chunk.toString('utf8');
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ code: null, output: err.message });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output: output.trim() });
    });
  });
}

const firstLine = (text: string): string => text.split('\n')[0]?.trim() ?? '';

export interface ProgramContext {
  /** The PATH the API and workers get. */
  searchPath: string;
  config: Pick<AppConfig, 'uploads' | 'sandbox'>;
  timeoutMs: number;
  /** Where the worker also looks for bwrap, whatever the PATH (workers/sandbox/bwrap.ts). */
  bwrapDirs: readonly string[];
}

export const BWRAP_DIRS: readonly string[] = ['/usr/bin', '/usr/local/bin', '/bin'];

export async function checkLibreOffice(ctx: ProgramContext): Promise<CheckResult> {
  const soffice = findProgram(['soffice', 'libreoffice'], ctx.searchPath);
  const without = '.ppt uploads are not converted and .doc becomes plain text';
  const install = 'apt-get install libreoffice-core libreoffice-writer libreoffice-impress (macOS: brew install --cask libreoffice)';
  if (!soffice) return warn('libreoffice', `soffice is not on the PATH: ${without}`, install);
  // soffice writes a profile into $HOME even for --version: give it a throwaway one.
  const home = mkdtempSync(path.join(tmpdir(), 'warren-doctor-'));
  try {
    const result = await run(soffice, ['--version'], { PATH: ctx.searchPath, HOME: home }, Math.max(ctx.timeoutMs, 30_000));
    if (result.code !== 0) return warn('libreoffice', `${soffice} --version failed: ${firstLine(result.output) || `exit ${result.code ?? 'killed'}`}; ${without}`, `reinstall it: ${install}`);
    return ok('libreoffice', `${firstLine(result.output)} (${soffice})`);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** Debian's package for a Tesseract language (`chi_sim` → tesseract-ocr-chi-sim). */
const languagePackage = (language: string): string => `tesseract-ocr-${language.toLowerCase().replace(/_/g, '-')}`;

export async function checkTesseract(ctx: ProgramContext): Promise<CheckResult> {
  const ocr = ctx.config.uploads.ocr;
  if (!ocr.enabled) return ok('tesseract', 'OCR is off (uploads.ocr.enabled: false)');
  const tesseract = ocr.tesseract ?? findProgram(['tesseract'], ctx.searchPath);
  const without = 'scanned PDF pages yield no text';
  if (!tesseract) return warn('tesseract', `tesseract is not on the PATH: ${without}`, `apt-get install tesseract-ocr ${ocr.languages.map(languagePackage).join(' ')} (macOS: brew install tesseract)`);
  const result = await run(tesseract, ['--list-langs'], { PATH: ctx.searchPath }, ctx.timeoutMs);
  if (result.code !== 0) return warn('tesseract', `${tesseract} --list-langs failed: ${firstLine(result.output) || `exit ${result.code ?? 'killed'}`}; ${without}`, 'reinstall tesseract-ocr, or set uploads.ocr.tesseract to a working one');
  // The first line is "List of available languages in …"; a language per line follows.
  const installed = new Set(result.output.split('\n').slice(1).map((line) => line.trim()).filter((line) => line !== ''));
  const missing = ocr.languages.filter((language) => !installed.has(language));
  if (missing.length > 0) {
    return warn('tesseract', `${tesseract} lacks the language${missing.length > 1 ? 's' : ''} ${missing.join(', ')} (uploads.ocr.languages): OCR fails`, `apt-get install ${missing.map(languagePackage).join(' ')}, or remove ${missing.length > 1 ? 'them' : 'it'} from uploads.ocr.languages`);
  }
  return ok('tesseract', `${tesseract} with ${ocr.languages.join(', ')}`);
}

export async function checkBubblewrap(ctx: ProgramContext): Promise<CheckResult> {
  const bwrap = findProgram(['bwrap'], ctx.searchPath, ctx.bwrapDirs);
  const without = ctx.config.sandbox.allow_host_bash
    ? 'the agent\'s bash runs unisolated on the host (sandbox.allow_host_bash: true), and Tesseract unsandboxed'
    : 'the agent gets no bash tool, and Tesseract runs unsandboxed';
  if (!bwrap) return warn('bubblewrap', `bwrap is not installed: ${without}`, 'apt-get install bubblewrap (not on macOS: use the Docker image)');
  const truth = findProgram(['true'], '/usr/bin:/bin');
  if (!truth) return warn('bubblewrap', 'no /usr/bin/true or /bin/true to run inside a sandbox', 'install coreutils');
  // The namespaces and flags the sandbox uses, around `true`: being installed is not enough.
  const args = ['--unshare-all', '--die-with-parent', '--new-session', '--uid', '1000', '--gid', '1000', '--cap-drop', 'ALL', '--ro-bind', '/', '/', truth];
  const result = await run(bwrap, args, { PATH: '/usr/bin:/bin' }, ctx.timeoutMs);
  if (result.code !== 0) {
    return warn(
      'bubblewrap',
      `${bwrap} cannot make a sandbox here (${firstLine(result.output) || `exit ${result.code ?? 'killed'}`}): ${without}`,
      'allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, kernel.apparmor_restrict_unprivileged_userns=0; in a container, a seccomp/AppArmor profile that permits them)',
    );
  }
  return ok('bubblewrap', `${bwrap} makes a sandbox (user, pid, net, mount namespaces)`);
}

export async function checkNginx(ctx: ProgramContext): Promise<CheckResult> {
  const nginx = findProgram(['nginx'], ctx.searchPath);
  if (!nginx) return warn('nginx', 'nginx is not on the PATH: fine for one API process; the multi-replica layout (deploy/nginx.conf) needs it', 'apt-get install nginx (macOS: brew install nginx), or skip it if one API serves clients');
  const result = await run(nginx, ['-v'], { PATH: ctx.searchPath }, ctx.timeoutMs);
  if (result.code !== 0) return warn('nginx', `${nginx} -v failed: ${firstLine(result.output) || `exit ${result.code ?? 'killed'}`}`, 'reinstall nginx');
  return ok('nginx', `${firstLine(result.output).replace(/^nginx version:\s*/, '')} (${nginx})`);
}
