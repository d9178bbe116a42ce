// bash under bubblewrap (when it works on this machine) and the host fallback. The bwrap suite
// proves the isolation claims: no host files, no other thread, no network, no secrets.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_DATA_FILES } from '../../workers/sandbox/bwrap.js';
import { createBashRunner, detectBwrap, type BashRunner } from '../../workers/sandbox/bash-runner.js';
import { createTestHome, sandboxConfig, type TestHome } from './support.js';

const bwrap = await detectBwrap();
const A = 'bash-a';
const B = 'bash-b';
const SECRET = `warren-secret-${process.pid}`;

let t: TestHome;
let hostMarkerDir: string;
let server: Server;
let port: number;
let connections = 0;

beforeAll(async () => {
  t = await createTestHome('bash');
  await t.files.ensureArea(B, 'workspace');
  await writeFile(path.join(t.files.areaDir(B, 'workspace'), 'secret.txt'), 'thread B only');
  hostMarkerDir = await mkdtemp(path.join(tmpdir(), 'warren-host-marker-'));
  await writeFile(path.join(hostMarkerDir, 'marker.txt'), 'host file');
  process.env.WARREN_TEST_SECRET = SECRET;
  server = createServer((socket) => {
    connections += 1;
    socket.end('hello\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});

afterAll(async () => {
  delete process.env.WARREN_TEST_SECRET;
  await new Promise((resolve) => server.close(resolve));
  await rm(hostMarkerDir, { recursive: true, force: true });
  await t.cleanup();
});

/** Processes on this host whose command line is exactly `sleep <seconds>`. */
async function sleepers(seconds: string): Promise<number> {
  let count = 0;
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline === `sleep\u0000${seconds}\u0000`) count += 1;
  }
  return count;
}

const runner = (overrides: Parameters<typeof sandboxConfig>[0] = {}, bwrapPath?: string | null) =>
  createBashRunner({ files: t.files, skillsDir: t.skillsDir, sandbox: sandboxConfig(overrides), log: t.log, bwrapPath }) as Promise<BashRunner>;

describe('bwrap detection', () => {
  it('reports whether bubblewrap works here, with the reason when it does not', () => {
    if (!bwrap.available) expect(bwrap.reason).not.toBe('');
    else expect(bwrap.path).toMatch(/bwrap$/);
  });

  it('offers no runner without bwrap unless allow_host_bash', async () => {
    expect(await runner({}, null)).toBeNull();
    expect((await runner({ allow_host_bash: true }, null))?.mode).toBe('host');
    expect(await createBashRunner({ files: t.files, skillsDir: t.skillsDir, sandbox: sandboxConfig(), log: t.log, bwrapPath: '/nonexistent/bwrap' })).toBeNull();
  });
});

describe.runIf(bwrap.available)('bash under bubblewrap', () => {
  let sandboxed: BashRunner;
  beforeAll(async () => {
    sandboxed = await runner();
    expect(sandboxed.mode).toBe('bwrap');
  });

  it('runs in the thread workspace as an unprivileged user, and its files land in the thread', async () => {
    const result = await sandboxed.run(A, 'pwd; id -u; echo made > made.txt; echo oops >&2; exit 3');
    expect(result).toMatchObject({ exitCode: 3, stdout: '/mnt/user-data/workspace\n1000\n', stderr: 'oops\n', timedOut: false });
    expect(await readFile(path.join(t.files.areaDir(A, 'workspace'), 'made.txt'), 'utf8')).toBe('made\n');
  });

  it('cannot see the host: not its /etc/passwd, its /tmp, WARREN_HOME or another thread', async () => {
    const otherThread = path.join(t.files.areaDir(B, 'workspace'), 'secret.txt');
    const script = [
      'cat /etc/passwd',
      `cat ${hostMarkerDir}/marker.txt 2>/dev/null || echo no-host-tmp`,
      `cat ${otherThread} 2>/dev/null || echo no-other-thread`,
      `ls ${t.home} 2>/dev/null || echo no-home`,
      'ls /mnt/user-data',
      'echo ROOT; ls /',
    ].join('; ');
    const { stdout } = await sandboxed.run(A, script);
    const hostPasswd = await readFile('/etc/passwd', 'utf8');
    expect(stdout.startsWith(SANDBOX_DATA_FILES[0]?.content ?? '')).toBe(true);
    expect(stdout).not.toContain(hostPasswd.split('\n')[1] ?? 'never');
    expect(stdout).toContain('no-host-tmp\nno-other-thread\nno-home\noutputs\nuploads\nworkspace\n');
    const rootEntries = stdout.split('ROOT\n')[1]?.trim().split('\n') ?? [];
    const allowed = ['bin', 'dev', 'etc', 'lib', 'lib32', 'lib64', 'libx32', 'mnt', 'proc', 'sbin', 'tmp', 'usr', 'var'];
    expect(rootEntries.filter((name) => !allowed.includes(name))).toEqual([]);
  });

  it('mounts uploads and skills read-only and skills readable', async () => {
    const { stdout } = await sandboxed.run(
      A,
      'touch /mnt/user-data/uploads/x 2>/dev/null || echo uploads-ro; touch /mnt/skills/public/x 2>/dev/null || echo skills-ro; head -2 /mnt/skills/public/demo/SKILL.md',
    );
    expect(stdout).toBe('uploads-ro\nskills-ro\n---\nname: demo\n');
  });

  it('passes none of the worker environment', async () => {
    const { stdout } = await sandboxed.run(A, 'env | cut -d= -f1 | sort | tr "\\n" " "; echo; env | grep -c warren-secret || true');
    expect(stdout).toBe('HOME LANG PATH PWD PYTHONUNBUFFERED SHLVL TMPDIR USER _ \n0\n');
  });

  it('has no network unless configured', async () => {
    const before = connections;
    const probe = `exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3 || echo unreachable`;
    const closed = await sandboxed.run(A, probe);
    expect(closed.stdout).toContain('unreachable');
    expect(connections).toBe(before);
    const open = await (await runner({ network: true })).run(A, probe);
    expect(open.stdout).toBe('hello\n');
    expect(connections).toBe(before + 1);
  });

  it('has python, with a private /tmp', async () => {
    await writeFile(path.join(tmpdir(), `warren-host-tmp-${process.pid}`), 'x');
    const { stdout } = await sandboxed.run(A, `python3 -c "import json; print(json.dumps({'ok': 1}))"; ls /tmp | wc -l`);
    expect(stdout).toBe('{"ok": 1}\n0\n');
    await rm(path.join(tmpdir(), `warren-host-tmp-${process.pid}`), { force: true });
  });

  it('kills the command and everything it started at the time limit', async () => {
    const quick = await runner({ bash_timeout_seconds: 1 });
    const result = await quick.run(A, 'sleep 987 & sleep 986; echo never');
    expect(result.timedOut).toBe(true);
    expect(result.stdout).toBe('');
    expect(await sleepers('987')).toBe(0);
    expect(await sleepers('986')).toBe(0);
  });

  it('caps the output, keeping its beginning and end', async () => {
    const capped = await runner({ bash_output_limit_bytes: 1024 });
    const result = await capped.run(A, 'echo START; head -c 100000 /dev/zero | tr "\\0" a; echo; echo END');
    expect(result.truncated).toBe(true);
    expect(result.stdout.startsWith('START\n')).toBe(true);
    expect(result.stdout.endsWith('END\n')).toBe(true);
    expect(result.stdout).toMatch(/\[\.\.\. \d+ bytes of output omitted \.\.\.\]/);
    expect(result.stdout.length).toBeLessThan(1200);
  });

  it('stops when the run is cancelled', async () => {
    const controller = new AbortController();
    const pending = sandboxed.run(A, 'sleep 985', { signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    const result = await pending;
    expect(result.aborted).toBe(true);
    expect(await sleepers('985')).toBe(0);
  });
});

describe('bash on the host (allow_host_bash, no bwrap)', () => {
  let host: BashRunner;
  beforeAll(async () => {
    host = await runner({ allow_host_bash: true, bash_timeout_seconds: 1, bash_output_limit_bytes: 1024 }, null);
  });

  it('runs in the thread workspace with a scrubbed environment', async () => {
    const { stdout, exitCode } = await host.run(A, 'pwd; env | grep -c warren-secret; env | cut -d= -f1 | sort | tr "\\n" " "');
    const workspace = await t.files.ensureArea(A, 'workspace');
    expect(exitCode).toBe(0);
    expect(stdout).toBe(`${workspace}\n0\nHOME LANG PATH PWD PYTHONUNBUFFERED SHLVL TMPDIR _ `);
  });

  it('enforces the time limit and kills background jobs', async () => {
    const result = await host.run(A, 'sleep 984 & sleep 983');
    expect(result.timedOut).toBe(true);
    expect(await sleepers('984')).toBe(0);
    expect(await sleepers('983')).toBe(0);
  });

  it('does not wait for a background job left behind by a finished command', async () => {
    const result = await host.run(A, 'sleep 982 & echo started');
    // Not timed out: had it waited for the 982 s sleep, the time limit would have ended it.
    expect(result).toMatchObject({ exitCode: 0, stdout: 'started\n', timedOut: false });
    expect(await sleepers('982')).toBe(0);
  });

  it('caps the output', async () => {
    const result = await host.run(A, 'head -c 5000 /dev/zero | tr "\\0" b; echo >&2 problem');
    expect(result.truncated).toBe(true);
    expect(result.stderr).toBe('problem\n');
    expect(Buffer.byteLength(result.stdout)).toBeLessThan(1100);
  });
});
