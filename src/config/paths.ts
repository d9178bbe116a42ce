// Where the project's own files are, whether we run from `src/` (tests) or `dist/src/` (built).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findProjectRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'redis.conf'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
}

export const PROJECT_ROOT = findProjectRoot();
export const PROJECT_REDIS_CONF = path.join(PROJECT_ROOT, 'redis.conf');
export const PROJECT_SKILLS_DIR = path.join(PROJECT_ROOT, 'skills');
