// Runs LibreOffice headless to turn a legacy .doc/.ppt into .docx/.pptx. Each run gets its own
// temp directory and throwaway profile (so runs never share or corrupt a profile), a profile
// pre-seeded to never run macros or update external links, and a hard time limit that kills
// the whole process group (soffice forks soffice.bin).
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConversionError } from '../errors.js';
import { onPath, runInGroup } from './child-process.js';
import type { RunResult } from './child-process.js';
import { formatDuration } from './messages.js';

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

/** The soffice to use: the configured path, none when disabled, else the first on PATH. */
export function findSoffice(configured?: string | false): string | null {
  if (configured === false) return null;
  if (configured) return configured;
  return onPath(['soffice', 'libreoffice']);
}

const WORK_DIR_PREFIX = 'warren-soffice-';

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
      result = await runInGroup(soffice, args, env, timeoutMs, work);
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
    await rm(work, { recursive: true, force: true }).catch(() => {}); // a leftover scratch folder does not change the answer
  }
}
