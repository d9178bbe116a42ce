// `warren doctor` (issue #35) on a machine with and without each dependency: the PATH the
// processes get is a temp folder holding links to only some of the real programs; Redis is the
// test Redis, or a port where nothing listens; a model endpoint is a local HTTP server, or a port
// where nothing listens; config.yaml is valid or not; WARREN_HOME sits on a small disk. The
// package's `bin` is run as a process for its exit status.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { freePort } from '../../src/cli/redis-process.js';
import { checkDisk, checkNode, MIN_NODE_MAJOR, type CheckResult } from '../../src/cli/doctor-checks.js';
import { findProgram } from '../../src/cli/doctor-programs.js';
import { runDoctor, type DoctorReport } from '../../src/cli/doctor.js';
import { buildDist, ROOT } from '../support/cluster.js';
import { mountSmallDisk } from '../support/full-disk.js';
import { trackedDir } from '../support/leftovers.js';

const PROGRAMS = { soffice: ['soffice'], tesseract: ['tesseract'], bwrap: ['bwrap'], nginx: ['nginx'] } as const;
type Program = keyof typeof PROGRAMS;
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

let dir: string;
/** Links to every program of the machine but those under test: what any machine has (sh, dirname…). */
let baseBin: string;
let modelServer: Server;
let modelUrl: string;
let deadUrl: string;

/** Every program of the system folders but these, linked into one folder. */
function linkBaseBin(excluded: ReadonlySet<string>): string {
  const bin = mkdtempSync(path.join(dir, 'base-'));
  for (const from of SYSTEM_PATH.split(':')) {
    if (!existsSync(from)) continue;
    for (const name of readdirSync(from)) {
      if (excluded.has(name) || existsSync(path.join(bin, name))) continue;
      symlinkSync(path.join(from, name), path.join(bin, name));
    }
  }
  return bin;
}

/** A PATH on which, of the programs under test, only these are found. */
function pathWith(...programs: Program[]): string {
  const bin = mkdtempSync(path.join(dir, 'bin-'));
  for (const program of programs) {
    const real = findProgram(PROGRAMS[program], SYSTEM_PATH);
    if (!real) throw new Error(`this test needs ${program} on the machine (.ci/run installs it)`);
    symlinkSync(real, path.join(bin, program));
  }
  return `${bin}${path.delimiter}${baseBin}`;
}

/** A config.yaml in its own folder; returns its path. */
function configFile(config: unknown, raw?: string): string {
  const file = path.join(mkdtempSync(path.join(dir, 'config-')), 'config.yaml');
  writeFileSync(file, raw ?? stringify(config));
  return file;
}

function environment(overrides: Record<string, string>): NodeJS.ProcessEnv {
  return { WARREN_HOME: path.join(dir, 'home'), REDIS_URL: inject('redisUrl'), WARREN_CONFIG: configFile({}), PATH: pathWith(), ...overrides };
}

async function doctor(env: NodeJS.ProcessEnv): Promise<DoctorReport & { lines: string[]; byName: Map<string, CheckResult> }> {
  const lines: string[] = [];
  // Only the PATH finds bwrap here (the worker would also look in /usr/bin).
  const report = await runDoctor({ env, write: (line) => lines.push(line), timeoutMs: 3_000, bwrapDirs: [] });
  return { ...report, lines, byName: new Map(report.results.map((r) => [r.name, r])) };
}

beforeAll(async () => {
  dir = trackedDir(mkdtempSync(path.join(tmpdir(), 'warren-doctor-test-')));
  mkdirSync(path.join(dir, 'home'));
  baseBin = linkBaseBin(new Set(['soffice', 'libreoffice', 'tesseract', 'bwrap', 'nginx']));
  // A model endpoint as an OpenAI-compatible server answers a bare GET of its base URL: 404, JSON.
  modelServer = createServer((_req, res) => res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}'));
  await new Promise<void>((resolve) => modelServer.listen(0, '127.0.0.1', resolve));
  const address = modelServer.address() as { port: number };
  modelUrl = `http://127.0.0.1:${address.port}/v1`;
  deadUrl = `http://127.0.0.1:${await freePort()}/v1`;
});

afterAll(async () => {
  await new Promise((resolve) => modelServer?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

const model = (name: string, baseUrl: string) => ({ name, use: 'openai', model: 'gpt-test', api_key: 'sk-test', base_url: baseUrl });

describe('warren doctor', () => {
  it('passes every check on a machine with every dependency, Redis up and the model answering', async () => {
    const env = environment({ PATH: pathWith('soffice', 'tesseract', 'bwrap', 'nginx'), WARREN_CONFIG: configFile({ models: [model('local', modelUrl)] }) });
    const report = await doctor(env);
    expect(report.lines.filter((l) => !l.startsWith('ok')).slice(0, -1), report.lines.join('\n')).toEqual([]);
    expect(report.exitCode).toBe(0);
    expect([...report.byName.keys()]).toEqual(['node', 'environment', 'config', 'redis', 'model local', 'disk', 'libreoffice', 'tesseract', 'bubblewrap', 'nginx']);
    expect(report.byName.get('redis')?.found).toMatch(/is Redis 7\.|is Redis [89]\./);
    expect(report.byName.get('model local')?.found).toContain('answers (HTTP 404)');
    expect(report.byName.get('libreoffice')?.found).toMatch(/LibreOffice \d/);
    expect(report.byName.get('tesseract')?.found).toContain('with eng');
    expect(report.byName.get('bubblewrap')?.found).toContain('makes a sandbox');
    expect(report.lines.at(-1)).toBe('No fault: Warren can start.');
  });

  it('warns, with the fix, for each program the machine lacks, and still exits 0', async () => {
    const report = await doctor(environment({}));
    expect(report.exitCode).toBe(0);
    for (const name of ['libreoffice', 'tesseract', 'bubblewrap', 'nginx']) {
      const result = report.byName.get(name);
      expect(result?.status, name).toBe('warn');
      expect(result?.fix, name).toMatch(/apt-get install/);
    }
    expect(report.byName.get('bubblewrap')?.found).toContain('the agent gets no bash tool');
    expect(report.lines.find((l) => l.startsWith('WARN  tesseract'))).toContain('-> fix: apt-get install tesseract-ocr tesseract-ocr-eng');
    expect(report.lines.at(-1)).toMatch(/^No fault; \d+ warnings/);
  });

  it('names each dependency by itself: one present, the others missing', async () => {
    for (const present of Object.keys(PROGRAMS) as Program[]) {
      const report = await doctor(environment({ PATH: pathWith(present) }));
      const name = { soffice: 'libreoffice', tesseract: 'tesseract', bwrap: 'bubblewrap', nginx: 'nginx' }[present];
      for (const result of report.results.filter((r) => ['libreoffice', 'tesseract', 'bubblewrap', 'nginx'].includes(r.name))) {
        expect(result.status, `${result.name} with only ${present}`).toBe(result.name === name ? 'ok' : 'warn');
      }
    }
  });

  it('names the Tesseract languages config.yaml asks for and the machine lacks', async () => {
    const report = await doctor(environment({ PATH: pathWith('tesseract'), WARREN_CONFIG: configFile({ uploads: { ocr: { languages: ['eng', 'zz_test'] } } }) }));
    const tesseract = report.byName.get('tesseract');
    expect(tesseract?.status).toBe('warn');
    expect(tesseract?.found).toContain('lacks the language zz_test');
    expect(tesseract?.fix).toContain('apt-get install tesseract-ocr-zz-test');
    const off = await doctor(environment({ WARREN_CONFIG: configFile({ uploads: { ocr: { enabled: false } } }) }));
    expect(off.byName.get('tesseract')?.status).toBe('ok');
  });

  it('fails when Redis does not answer, and passes when it does', async () => {
    const down = await doctor(environment({ REDIS_URL: `redis://127.0.0.1:${await freePort()}` }));
    expect(down.exitCode).toBe(1);
    expect(down.byName.get('redis')).toMatchObject({ status: 'fault' });
    expect(down.byName.get('redis')?.found).toMatch(/does not answer/);
    expect(down.lines.at(-1)).toMatch(/^1 fault and \d+ warnings: Warren will not start/);
    const up = await doctor(environment({}));
    expect(up.byName.get('redis')?.status).toBe('ok');
    // config.yaml's redis: block is read when REDIS_URL is not set, as the start reads it.
    const fromConfig = await doctor({ ...environment({ WARREN_CONFIG: configFile({ redis: { url: `redis://127.0.0.1:${await freePort()}` } }) }), REDIS_URL: undefined });
    expect(fromConfig.byName.get('redis')?.status).toBe('fault');
  });

  it('fails on a config.yaml the start would refuse, naming the key', async () => {
    const typo = await doctor(environment({ WARREN_CONFIG: configFile({ models: [{ ...model('m', modelUrl), supports_visoin: true }] }) }));
    expect(typo.exitCode).toBe(1);
    expect(typo.byName.get('config')?.status).toBe('fault');
    expect(typo.byName.get('config')?.found).toContain('did you mean "models[0].supports_vision"');
    expect(typo.byName.get('models')).toMatchObject({ status: 'skip' });
    const broken = await doctor(environment({ WARREN_CONFIG: configFile(null, 'models: [\n') }));
    expect(broken.byName.get('config')?.found).toContain('is not valid YAML');
    const unset = await doctor(environment({ WARREN_CONFIG: configFile({ redis: { url: '$DOCTOR_TEST_UNSET' } }) }));
    expect(unset.byName.get('config')?.found).toContain('DOCTOR_TEST_UNSET');
    const badEnv = await doctor(environment({ PORT: 'eighty' }));
    expect(badEnv.byName.get('environment')).toMatchObject({ status: 'fault' });
    expect(badEnv.exitCode).toBe(1);
  });

  it('warns for a model endpoint that does not answer, and for a key that is not set', async () => {
    const report = await doctor(environment({ WARREN_CONFIG: configFile({ models: [model('up', modelUrl), model('down', deadUrl), { ...model('nokey', modelUrl), api_key: '$DOCTOR_TEST_NO_KEY' }] }) }));
    expect(report.exitCode).toBe(0);
    expect(report.byName.get('model up')?.status).toBe('ok');
    expect(report.byName.get('model down')).toMatchObject({ status: 'warn' });
    expect(report.byName.get('model down')?.found).toMatch(/is not reachable \(ECONNREFUSED\)/);
    expect(report.byName.get('model down')?.fix).toContain('models[1].base_url');
    expect(report.byName.get('model nokey')?.fix).toContain('set DOCTOR_TEST_NO_KEY');
  });

  it('warns when WARREN_HOME is on a disk with little room', async () => {
    const disk = mountSmallDisk('doctor', 4);
    try {
      const report = await doctor(environment({ WARREN_HOME: path.join(disk.dir, 'home') }));
      expect(report.byName.get('disk')?.status).toBe('warn');
      expect(report.byName.get('disk')?.found).toMatch(/GiB free at .*\/home$/);
    } finally {
      disk.remove();
    }
    expect(checkDisk({ env: { WARREN_HOME: dir }, envConfig: null, loaded: null, timeoutMs: 1 }, 1).status).toBe('ok');
  });

  it('checks the Node version against package.json\'s engines', () => {
    const engines = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
    expect(engines).toBe(`>=${MIN_NODE_MAJOR}`);
    expect(checkNode('24.21.0').status).toBe('ok');
    expect(checkNode('20.20.2')).toMatchObject({ status: 'fault', found: 'Node.js 20.20.2 is older than 24' });
  });
});

describe('the warren bin', () => {
  const bin = path.join(ROOT, 'dist', 'src', 'cli', 'warren.js');
  const runBin = (args: string[], env: NodeJS.ProcessEnv) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });

  beforeAll(() => buildDist(), 300_000);

  it('is package.json\'s bin, a node script', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    expect(pkg.bin).toEqual({ warren: 'dist/src/cli/warren.js' });
    expect(readFileSync(bin, 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
  });

  it('exits 0 on a sound machine and 1 on a fault, a line per check', async () => {
    const good = await runBin(['doctor'], environment({ PATH: pathWith('soffice', 'tesseract', 'bwrap', 'nginx') }));
    expect(good.code, good.stdout + good.stderr).toBe(0);
    // Ten checks (no model configured: one line for all), then the verdict.
    expect(good.stdout.trim().split('\n')).toHaveLength(11);
    const bad = await runBin(['doctor'], environment({ REDIS_URL: `redis://127.0.0.1:${await freePort()}` }));
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/^FAIL  redis /m);
    const unknown = await runBin(['doctr'], environment({}));
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('usage: warren doctor');
  });

  it('says bubblewrap cannot make a sandbox where user namespaces are forbidden', async () => {
    // The doctor itself runs in a bubblewrap sandbox whose user namespace forbids nested ones
    // (--disable-userns), as a container without user namespaces does; the real bwrap then fails.
    const bwrap = findProgram(['bwrap'], SYSTEM_PATH) as string;
    const node = process.execPath;
    const env = environment({ PATH: pathWith('bwrap') });
    const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--bind', dir, dir, '--unshare-user', '--unshare-pid', '--disable-userns', '--die-with-parent', node, bin, 'doctor'];
    const result = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = spawn(bwrap, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
      let stdout = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.on('close', (code) => resolve({ code, stdout }));
    });
    const line = result.stdout.split('\n').find((l) => l.includes(' bubblewrap '));
    expect(line, result.stdout).toMatch(/^WARN  bubblewrap +\S+ cannot make a sandbox here \(.+\): the agent gets no bash tool/);
    expect(line).toContain('-> fix: allow unprivileged user namespaces');
    expect(result.code).toBe(0);
  });
});

