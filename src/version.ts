// The package version, read once from package.json.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from './config/paths.js';

export const VERSION: string = (
  JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;
