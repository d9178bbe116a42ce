// Text recognition with Tesseract's command-line program (Debian's tesseract-ocr). Each run gets
// its own temp directory holding the image, an address-space cap (prlimit), a hard time limit
// on its process group (child-process.ts), one thread, and, where bubblewrap works, a sandbox
// with no network that sees only a read-only /usr and that directory. The images are untrusted
// (they come out of an uploaded PDF), so Tesseract is treated like any parser of hostile input.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { lstatSync, readlinkSync } from 'node:fs';
import { ConversionError } from '../errors.js';
import { onPath, runInGroup } from './child-process.js';
import { DEFAULT_OCR_MAX_PAGES, DEFAULT_OCR_MEMORY_MB, DEFAULT_OCR_TIMEOUT_MS } from './options.js';
import type { OcrOptions } from './options.js';

export interface OcrEngine {
  /** Recognises the words of one PNG or PGM image: Tesseract's TSV, one row per word with its box. */
  recognise(png: Uint8Array, timeoutMs: number): Promise<string>;
  /** Languages, as Tesseract names them. */
  languages: string[];
  timeoutMs: number;
  maxPages: number;
}

const SANDBOX_DIR = '/ocr';
// Folders beside /usr that are symlinks into it on merged-/usr systems, real folders elsewhere.
const ROOT_ENTRIES = ['bin', 'sbin', 'lib', 'lib32', 'lib64'];

/** bwrap arguments that mount the system read-only: /usr, and /bin, /lib… as the host has them. */
function systemMounts(): string[] {
  const args = ['--ro-bind', '/usr', '/usr'];
  for (const name of ROOT_ENTRIES) {
    const host = `/${name}`;
    try {
      const stat = lstatSync(host);
      if (stat.isSymbolicLink()) args.push('--symlink', readlinkSync(host), host);
      else if (stat.isDirectory()) args.push('--ro-bind', host, host);
    } catch {
      // Not on this system: nothing to mount.
    }
  }
  return [...args, '--ro-bind-try', '/etc/ld.so.cache', '/etc/ld.so.cache'];
}

function sandboxed(bwrap: string | null, workDir: string, command: string[]): [string, string[]] {
  if (!bwrap) return [command[0] ?? '', command.slice(1)];
  const args = [
    '--unshare-all',
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    ...systemMounts(),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
    '--ro-bind',
    workDir,
    SANDBOX_DIR,
    '--chdir',
    SANDBOX_DIR,
    '--clearenv',
    '--setenv',
    'PATH',
    '/usr/bin:/bin',
    '--setenv',
    'OMP_THREAD_LIMIT',
    '1',
    '--',
    ...command,
  ];
  return [bwrap, args];
}

/** True when bubblewrap starts a sandbox here (installed is not enough without user namespaces). */
async function workingBwrap(): Promise<string | null> {
  const bwrap = onPath(['bwrap']);
  const truePath = onPath(['true']);
  if (!bwrap || !truePath) return null;
  const [command, args] = sandboxed(bwrap, tmpdir(), [truePath]);
  const result = await runInGroup(command, args, { PATH: '/usr/bin:/bin' }, 10_000, tmpdir()).catch(() => null); // could not even start: no working bwrap
  return result && result.code === 0 ? bwrap : null;
}

let bwrapProbe: Promise<string | null> | null = null;

function validLanguages(languages: readonly string[]): string[] {
  for (const language of languages) {
    if (!/^[A-Za-z0-9_]+$/.test(language)) throw new ConversionError(`"${language}" is not a Tesseract language name.`);
  }
  return languages.length > 0 ? [...languages] : ['eng'];
}

/** An OCR engine for these options, or null when OCR is off or Tesseract is not installed. */
export function ocrEngine(options: OcrOptions | false | undefined): OcrEngine | null {
  if (!options) return null;
  const tesseract = options.tesseract ?? onPath(['tesseract']);
  if (!tesseract) return null;
  const languages = validLanguages(options.languages ?? ['eng']);
  const memoryBytes = (options.memoryMb ?? DEFAULT_OCR_MEMORY_MB) * 1024 * 1024;
  const prlimit = onPath(['prlimit']);
  return {
    languages,
    timeoutMs: options.timeoutMs ?? DEFAULT_OCR_TIMEOUT_MS,
    maxPages: options.maxPages ?? DEFAULT_OCR_MAX_PAGES,
    async recognise(png, timeoutMs) {
      bwrapProbe ??= workingBwrap();
      const bwrap = await bwrapProbe;
      const work = await mkdtemp(path.join(tmpdir(), 'warren-ocr-'));
      try {
        const name = png[0] === 0x50 && png[1] === 0x35 ? 'page.pgm' : 'page.png';
        await writeFile(path.join(work, name), png);
        const input = bwrap ? `${SANDBOX_DIR}/${name}` : path.join(work, name);
        const ocr = [tesseract, input, 'stdout', '-l', languages.join('+'), '--psm', '3', 'tsv'];
        const [command, args] = sandboxed(bwrap, work, ocr);
        const capped = prlimit ? [prlimit, [`--as=${memoryBytes}`, '--', command, ...args]] as const : [command, args] as const;
        const env = { PATH: '/usr/bin:/bin', OMP_THREAD_LIMIT: '1', HOME: work };
        const result = await runInGroup(capped[0], [...capped[1]], env, timeoutMs, work, { keepStdout: true });
        if (result.timedOut) throw new ConversionError('OCR took too long and was stopped.');
        if (result.code !== 0) {
          throw new ConversionError('OCR failed on this image.', { cause: new Error(result.output) });
        }
        return result.stdout ?? '';
      } finally {
        // Best effort: the text stands whether or not the scratch folder went away.
        await rm(work, { recursive: true, force: true }).catch(() => {}); // a leftover scratch folder does not change the text
      }
    },
  };
}
