// The test projects' own node_modules, installed from the registry by their lockfiles (`npm ci`)
// the first time the tests run, and kept (gitignored) for later runs. Installed once by the global
// setup, before any test file starts: two files running `npm ci` in one folder at once race
// (ENOTEMPTY, half-installed packages).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

/** The fixture projects that bring their own dependencies. */
export const PROJECTS_WITH_DEPS = ['langgraph-app'];

export function installProjectDeps(projectDir: string): void {
  // npm writes this file last: its presence means a complete install.
  if (existsSync(path.join(projectDir, 'node_modules', '.package-lock.json'))) return;
  execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: projectDir, stdio: 'inherit' });
}
