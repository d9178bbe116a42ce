// DeerFlow's frontend at the pinned commit: its source taken once into the folder the user
// names (from a local git copy holding the commit, else a shallow fetch from GitHub), installed
// and built with the pnpm its package.json names, once. Nothing here is part of Warren's tree.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { say } from './say.ts';

export const DEERFLOW_COMMIT = 'f1f4af99bbf1cffb83a80744bf6e4a44ee8f24be';
export const DEERFLOW_REPO = 'https://github.com/bytedance/deer-flow';
/** What `build` was run with, kept beside the build so a changed setting rebuilds. */
const BUILD_STAMP = '.warren-e2e-build.json';

function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): void {
  const result = spawnSync(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: 'inherit' });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`})${options.cwd ? ` in ${options.cwd}` : ''}`);
  }
}

function holdsCommit(gitDir: string): boolean {
  return spawnSync('git', ['--git-dir', gitDir, 'cat-file', '-e', `${DEERFLOW_COMMIT}^{commit}`], { stdio: 'ignore' }).status === 0;
}

/** The frontend folder under `dir`, taken from `localGit` when it holds the commit, else from GitHub. */
export function ensureSource(dir: string, localGit: string | undefined): string {
  const frontend = path.join(dir, 'frontend');
  if (existsSync(path.join(frontend, 'package.json'))) {
    say(`DeerFlow source: ${frontend} (already there)`);
    return frontend;
  }
  mkdirSync(dir, { recursive: true });
  let gitDir: string;
  let fetched: string | undefined;
  if (localGit && existsSync(localGit) && holdsCommit(localGit)) {
    gitDir = localGit;
    say(`DeerFlow source: git archive ${DEERFLOW_COMMIT.slice(0, 9)} from ${localGit} into ${dir}`);
  } else {
    fetched = path.join(dir, 'repo.git');
    say(`DeerFlow source: fetching ${DEERFLOW_REPO} at ${DEERFLOW_COMMIT.slice(0, 9)} into ${dir}`);
    rmSync(fetched, { recursive: true, force: true });
    run('git', ['init', '--quiet', '--bare', fetched]);
    run('git', ['--git-dir', fetched, 'fetch', '--quiet', '--depth', '1', DEERFLOW_REPO, DEERFLOW_COMMIT]);
    gitDir = fetched;
  }
  const tar = execFileSync('git', ['--git-dir', gitDir, 'archive', '--format=tar', DEERFLOW_COMMIT, 'frontend'], { maxBuffer: 1 << 30 });
  const extract = spawnSync('tar', ['-x', '-C', dir], { input: tar, stdio: ['pipe', 'inherit', 'inherit'] });
  if (extract.status !== 0) throw new Error(`tar -x into ${dir} failed`);
  if (fetched) rmSync(fetched, { recursive: true, force: true });
  if (!existsSync(path.join(frontend, 'package.json'))) throw new Error(`no frontend/package.json under ${dir} after fetching DeerFlow`);
  return frontend;
}

/** `pnpm@x.y.z` from package.json's packageManager, run through npx (no global install). */
function pnpmCommand(frontend: string): string[] {
  const pkg = JSON.parse(readFileSync(path.join(frontend, 'package.json'), 'utf8')) as { packageManager?: string };
  const pm = pkg.packageManager?.split('+')[0];
  if (!pm?.startsWith('pnpm@')) throw new Error(`DeerFlow's package.json names no pnpm version (packageManager: ${pkg.packageManager ?? 'unset'})`);
  return ['npx', '--yes', pm];
}

/**
 * Installs and builds the frontend unless a build made with the same settings is there. The
 * browser reaches the backend through the same origin (the proxy), so no NEXT_PUBLIC_* URL is
 * baked in, as DeerFlow's README's nginx set-up does.
 */
export function ensureBuild(frontend: string, rebuild: boolean): void {
  const stampFile = path.join(frontend, '.next', BUILD_STAMP);
  const stamp = JSON.stringify({ commit: DEERFLOW_COMMIT, public: {} });
  if (!rebuild && existsSync(path.join(frontend, '.next', 'BUILD_ID')) && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) {
    say(`DeerFlow frontend: already built (${path.join(frontend, '.next')})`);
    return;
  }
  const [npx, ...pnpm] = pnpmCommand(frontend);
  const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: '1' };
  for (const name of ['NEXT_PUBLIC_BACKEND_BASE_URL', 'NEXT_PUBLIC_LANGGRAPH_BASE_URL', 'NEXT_PUBLIC_STATIC_WEBSITE_ONLY']) delete env[name];
  if (!existsSync(path.join(frontend, 'node_modules', '.modules.yaml'))) {
    say('DeerFlow frontend: pnpm install --frozen-lockfile');
    run(npx as string, [...pnpm, 'install', '--frozen-lockfile'], { cwd: frontend, env });
  }
  say('DeerFlow frontend: pnpm build (next build; several minutes on two cores)');
  run('nice', ['-n', '10', npx as string, ...pnpm, 'build'], { cwd: frontend, env });
  writeFileSync(stampFile, stamp);
}
