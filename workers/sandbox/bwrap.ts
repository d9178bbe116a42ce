// bubblewrap: finding it, proving it works here, and the argument list that builds one command's
// sandbox. The sandbox sees a read-only /usr (plus the /bin, /lib… links or folders beside it),
// a handful of /etc files that programs need to start, a synthetic passwd/group/hosts, a private
// /proc, /dev and /tmp, the thread's user-data at /mnt/user-data (uploads read-only) and the
// skills read-only at /mnt/skills. Nothing else of the host exists inside: not its home folders,
// not WARREN_HOME, not other threads, not the worker's environment.
import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, lstat, readdir, readlink } from 'node:fs/promises';
import path from 'node:path';

/** The identity the command runs as inside the sandbox (mapped to the worker's own uid outside). */
export const SANDBOX_UID = 1000;
export const SANDBOX_HOME = '/tmp';
export const SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

// Folders beside /usr that are symlinks into it on merged-/usr systems and real folders elsewhere.
const ROOT_LINKS = ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'];
// What the dynamic linker, `alternatives` links (awk, editors), TLS and Python need; no
// credentials, users or host names. `--ro-bind-try` skips those a system lacks.
const ETC_ALWAYS = ['ld.so.cache', 'ld.so.conf', 'ld.so.conf.d', 'alternatives', 'localtime', 'timezone', 'ssl', 'ca-certificates', 'mime.types', 'fonts', 'services', 'protocols'];
const ETC_PREFIXES = ['python'];
// Name resolution, only when the sandbox shares the network.
const ETC_NETWORK = ['resolv.conf', 'nsswitch.conf', 'gai.conf', 'host.conf'];

/** Synthetic files handed to bwrap through extra pipes (`--ro-bind-data FD`), in fd order from 3. */
export const SANDBOX_DATA_FILES: readonly { dest: string; content: string }[] = [
  { dest: '/etc/passwd', content: `root:x:0:0:root:/root:/bin/sh\nsandbox:x:${SANDBOX_UID}:${SANDBOX_UID}:sandbox:${SANDBOX_HOME}:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n` },
  { dest: '/etc/group', content: `root:x:0:\nsandbox:x:${SANDBOX_UID}:\nnogroup:x:65534:\n` },
  { dest: '/etc/hosts', content: '127.0.0.1\tlocalhost sandbox\n::1\tlocalhost ip6-localhost ip6-loopback\n' },
];

export interface SystemLayout {
  /** bwrap arguments that mount the read-only system part (same for every command). */
  args: string[];
  /** Extra /etc entries bound when the network is shared. */
  networkArgs: string[];
  /** The shell to run commands with (`/bin/bash` when the host has it). */
  shell: string;
}

const exists = (file: string) => access(file, constants.F_OK).then(() => true, () => false);

/** Finds an executable `bwrap` on PATH or in the usual places; null when there is none. */
export async function findBwrap(envPath = process.env.PATH ?? ''): Promise<string | null> {
  const dirs = [...envPath.split(path.delimiter).filter((d) => path.isAbsolute(d)), '/usr/bin', '/usr/local/bin', '/bin'];
  for (const dir of dirs) {
    const candidate = path.join(dir, 'bwrap');
    if (await access(candidate, constants.X_OK).then(() => true, () => false)) return candidate;
  }
  return null;
}

/**
 * Runs the flags we rely on (every namespace, a mapped uid, no capabilities) around `true`.
 * Being installed is not enough: in a container without user namespaces bwrap starts and then
 * fails. Resolves with null when it works, or bwrap's own explanation when it does not.
 */
export async function probeBwrap(bwrapPath: string, timeoutMs = 10_000): Promise<string | null> {
  const truePath = (await exists('/usr/bin/true')) ? '/usr/bin/true' : '/bin/true';
  const args = ['--unshare-all', '--die-with-parent', '--new-session', '--uid', String(SANDBOX_UID), '--gid', String(SANDBOX_UID), '--cap-drop', 'ALL', '--ro-bind', '/', '/', truePath];
  return new Promise((resolve) => {
    const child = spawn(bwrapPath, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: SANDBOX_PATH } });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < 2000) stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve(err.message);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve(code === 0 ? null : stderr.trim() || `bwrap exited with ${signal ?? `code ${code}`}`);
    });
  });
}

/** Reads the host's layout once: which of /bin, /lib… are links, which /etc entries exist. */
export async function readSystemLayout(): Promise<SystemLayout> {
  const args = ['--ro-bind', '/usr', '/usr'];
  for (const name of ROOT_LINKS) {
    const full = `/${name}`;
    // A system without this top-level folder gets no bind for it.
    const stat = await lstat(full).catch(() => null);
    if (stat?.isSymbolicLink()) args.push('--symlink', await readlink(full), full);
    else if (stat?.isDirectory()) args.push('--ro-bind', full, full);
  }
  // An unreadable /etc leaves only the files bound always.
  const etcNames = await readdir('/etc').catch(() => [] as string[]);
  const etc = [...ETC_ALWAYS, ...etcNames.filter((n) => ETC_PREFIXES.some((p) => n.startsWith(p)))];
  for (const name of etc) args.push('--ro-bind-try', `/etc/${name}`, `/etc/${name}`);
  const networkArgs = ETC_NETWORK.flatMap((name) => ['--ro-bind-try', `/etc/${name}`, `/etc/${name}`]);
  const shell = (await exists('/usr/bin/bash')) || (await exists('/bin/bash')) ? '/bin/bash' : '/bin/sh';
  return { args, networkArgs, shell };
}

export interface SandboxMounts {
  /** Real path of the thread's user-data folder. */
  userData: string;
  /** Real path of its uploads folder, re-mounted read-only over the writable user-data. */
  uploads: string;
  /** Real path of the skills folder, or null when there is none. */
  skills: string | null;
  network: boolean;
}

/** The full argument list for one command; SANDBOX_DATA_FILES go on fds 3, 4, 5. */
export function bwrapArgs(layout: SystemLayout, mounts: SandboxMounts, command: string): string[] {
  const args = [
    '--unshare-all',
    ...(mounts.network ? ['--share-net'] : []),
    '--die-with-parent',
    '--new-session',
    '--uid', String(SANDBOX_UID),
    '--gid', String(SANDBOX_UID),
    '--cap-drop', 'ALL',
    '--hostname', 'sandbox',
    ...layout.args,
    ...(mounts.network ? layout.networkArgs : []),
    ...SANDBOX_DATA_FILES.flatMap((file, i) => ['--ro-bind-data', String(3 + i), file.dest]),
    '--proc', '/proc',
    '--dev', '/dev',
    '--tmpfs', '/tmp',
    '--tmpfs', '/var/tmp',
    '--bind', mounts.userData, '/mnt/user-data',
    '--ro-bind', mounts.uploads, '/mnt/user-data/uploads',
    ...(mounts.skills ? ['--ro-bind', mounts.skills, '/mnt/skills'] : []),
    '--chdir', '/mnt/user-data/workspace',
    '--clearenv',
    '--setenv', 'PATH', SANDBOX_PATH,
    '--setenv', 'HOME', SANDBOX_HOME,
    '--setenv', 'TMPDIR', '/tmp',
    '--setenv', 'USER', 'sandbox',
    '--setenv', 'LANG', 'C.UTF-8',
    '--setenv', 'PYTHONUNBUFFERED', '1',
    '--',
    layout.shell,
    '-c',
    command,
  ];
  return args;
}
