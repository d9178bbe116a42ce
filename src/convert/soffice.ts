// Runs LibreOffice headless to turn a legacy .doc/.ppt into .docx/.pptx. Each run gets its own
// temp directory and throwaway profile (so runs never share or corrupt a profile), a profile
// pre-seeded to never run macros or update external links, and a hard time limit that kills
// the whole process group (soffice forks soffice.bin).
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConversionError } from '../errors.js';
import { formatDuration } from './messages.js';

/**
 * Told about every LibreOffice process group and its temp directory, so a sandbox that tears
 * down the thread running it can still kill the group and remove the directory.
 */
export interface ProcessListener {
  spawned(pid: number, workDir: string): void;
  exited(pid: number): void;
}

let listener: ProcessListener | null = null;

export function setProcessListener(next: ProcessListener | null): void {
  listener = next;
}

// Defence in depth against hostile documents; the deployment should still deny soffice the network.
const HARDENED_PROFILE = `<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="MacroSecurityLevel" oor:op="fuse"><value>3</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="DisableMacrosExecution" oor:op="fuse"><value>true</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="BlockUntrustedRefererLinks" oor:op="fuse"><value>true</value></prop></item>
<item oor:path="/org.openoffice.Office.Writer/Content/Update"><prop oor:name="Link" oor:op="fuse"><value>0</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Content/Update"><prop oor:name="Link" oor:op="fuse"><value>1</value></prop></item>
</oor:items>
`;

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    // Missing or not executable: not a LibreOffice we can run.
    return false;
  }
}

function onPath(names: readonly string[]): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    for (const name of names) {
      const candidate = path.join(dir, name);
      if (isExecutable(candidate)) return candidate;
    }
  }
  return null;
}

/** The soffice to use: the configured path, none when disabled, else the first on PATH. */
export function findSoffice(configured?: string | false): string | null {
  if (configured === false) return null;
  if (configured) return configured;
  return onPath(['soffice', 'libreoffice']);
}

/** Kills a process group started by convertWithSoffice; a no-op if it is gone. */
export function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

interface RunResult {
  code: number | null;
  timedOut: boolean;
  output: string;
}

/**
 * Wraps the command in coreutils `timeout` when there is one: its kill timer lives outside this
 * thread, so it still fires if the worker that started soffice is torn down first.
 */
function withBackstop(command: string, args: string[], timeoutMs: number): [string, string[]] {
  const timeout = onPath(['timeout']);
  if (!timeout) return [command, args];
  const seconds = Math.ceil(timeoutMs / 1000) + 5;
  return [timeout, ['-s', 'KILL', String(seconds), command, ...args]];
}

function run(
  program: string,
  programArgs: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
  workDir: string,
): Promise<RunResult> {
  const [command, args] = withBackstop(program, programArgs, timeoutMs);
  return new Promise((resolve, reject) => {
    // Its own process group, so one kill takes soffice.bin and any helper with it.
    const child = spawn(command, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env });
    const pid = child.pid;
    let output = '';
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-4000);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (pid !== undefined) killGroup(pid);
    }, timeoutMs);
    if (pid !== undefined) listener?.spawned(pid, workDir);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (pid !== undefined) {
        killGroup(pid); // Reap any straggler left in the group.
        listener?.exited(pid);
      }
      resolve({ code, timedOut, output });
    });
  });
}

const WORK_DIR_PREFIX = 'warren-soffice-';

/** True for a temp directory made by convertWithSoffice (and so safe to delete). */
export function isSofficeWorkDir(dir: string): boolean {
  return path.dirname(dir) === tmpdir() && path.basename(dir).startsWith(WORK_DIR_PREFIX);
}

/**
 * Converts a legacy Office file with LibreOffice and returns the converted file's bytes.
 * `from` and `to` are extensions, e.g. 'doc' → 'docx'.
 */
export async function convertWithSoffice(
  soffice: string,
  bytes: Buffer,
  from: 'doc' | 'ppt',
  to: 'docx' | 'pptx',
  timeoutMs: number,
  label: string,
): Promise<Buffer> {
  const work = await mkdtemp(path.join(tmpdir(), WORK_DIR_PREFIX));
  try {
    const profile = path.join(work, 'profile');
    const outDir = path.join(work, 'out');
    const input = path.join(work, `document.${from}`);
    await mkdir(path.join(profile, 'user'), { recursive: true });
    await mkdir(outDir);
    await writeFile(path.join(profile, 'user', 'registrymodifications.xcu'), HARDENED_PROFILE);
    await writeFile(input, bytes);
    const args = [
      '--headless',
      '--norestore',
      '--nolockcheck',
      '--nodefault',
      '--nologo',
      `-env:UserInstallation=${pathToFileURL(profile).href}`,
      '--convert-to',
      to,
      '--outdir',
      outDir,
      input,
    ];
    // HOME points into the temp dir so nothing (fontconfig caches, etc.) lands in the real home.
    const env = { ...process.env, HOME: work, SAL_USE_VCLPLUGIN: 'svp' };
    let result: RunResult;
    try {
      result = await run(soffice, args, env, timeoutMs, work);
    } catch (err) {
      throw new ConversionError(`${label} was not converted: LibreOffice could not be started.`, {
        cause: new Error(`spawning ${soffice} failed`, { cause: err }),
      });
    }
    // 126/127: the backstop `timeout` could not run soffice at all.
    if (result.code === 126 || result.code === 127) {
      throw new ConversionError(`${label} was not converted: LibreOffice could not be started.`, {
        cause: new Error(`${soffice}: ${result.output}`),
      });
    }
    if (result.timedOut) {
      throw new ConversionError(
        `${label} was not converted: LibreOffice took longer than ${formatDuration(timeoutMs)} and was stopped.`,
      );
    }
    // No output file is LibreOffice's way of failing: the error below says so.
    const converted = await readFile(path.join(outDir, `document.${to}`)).catch(() => null);
    if (!converted || converted.length === 0) {
      const exit = result.code ? ` (exit code ${result.code})` : '';
      throw new ConversionError(`${label} was not converted: LibreOffice could not read it; it may be corrupt${exit}.`, {
        cause: new Error(result.output),
      });
    }
    return converted;
  } finally {
    // Best effort: the conversion's answer stands whether or not its scratch folder went away.
    await rm(work, { recursive: true, force: true }).catch(() => {});
  }
}
