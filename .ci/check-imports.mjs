// Enforces the import arrows of shared/design/style.md: each folder imports only what its row
// allows. Run by `npm run lint:imports` (and CI). Exits 1 listing every broken arrow.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

/** [file matcher, forbidden target matcher, reason] over project-relative paths. */
const RULES = [
  [/^src\//, /^workers\//, 'src/ never imports workers/'],
  [/^workers\//, /^src\/(http|runtime|gateway)\//, 'workers/ never imports src/http, src/runtime or src/gateway'],
  [/^src\/store\//, /^src\/(http|runtime|gateway|queue)\//, 'a store never imports a route, a service or the queue'],
  [/^src\/store\//, /^fastify$|^@fastify\//, 'a store never imports Fastify'],
  [/^src\/config\//, /^src\/(?!config\/|errors\.ts$)/, 'config/ imports nothing of ours but errors.ts'],
  [/^src\/convert\//, /^src\/(?!convert\/|errors\.ts$)/, 'convert/ imports nothing of ours but errors.ts'],
  [/^src\/errors\.ts$/, /^src\//, 'errors.ts imports nothing of ours'],
  [/^src\/(runtime|gateway)\/.*\.routes\.ts$/, /^ioredis$|^src\/store\/keys\.ts$/, 'a route never touches ioredis or a key'],
  [/^src\/queue\//, /^src\/(http|runtime|gateway)\//, 'the queue contract never imports HTTP code'],
];

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) yield* files(full);
    else if (/\.(ts|mts)$/.test(name) && !name.endsWith('.d.ts')) yield full;
  }
}

const IMPORT = /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
const problems = [];
for (const top of ['src', 'workers']) {
  for (const file of files(path.join(root, top))) {
    const rel = path.relative(root, file);
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(IMPORT)) {
      const spec = match[1] ?? match[2];
      const target = spec.startsWith('.') ? path.relative(root, path.resolve(path.dirname(file), spec)).replace(/\.js$/, '.ts') : spec;
      for (const [from, to, reason] of RULES) {
        if (from.test(rel) && to.test(target)) problems.push(`${rel}: imports ${spec} — ${reason}`);
      }
      if (/\/index(\.js)?$/.test(spec) && spec.startsWith('.')) problems.push(`${rel}: imports ${spec} — no barrel files`);
    }
    if (/^export default /m.test(text)) problems.push(`${rel}: export default — named exports only`);
  }
}
if (problems.length > 0) {
  console.error(`${problems.length} import rule(s) broken:\n${problems.join('\n')}`);
  process.exit(1);
}
console.log('import arrows: ok');
