// A test project's own node_modules, installed from the registry by its lockfile (`npm ci`) the
// first time a test needs it, and kept (gitignored) for later runs.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

export function installProjectDeps(projectDir: string): void {
  // npm writes this file last: its presence means a complete install.
  if (existsSync(path.join(projectDir, 'node_modules', '.package-lock.json'))) return;
  execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: projectDir, stdio: 'inherit' });
}
