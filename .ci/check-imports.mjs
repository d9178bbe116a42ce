// Enforces the import arrows of shared/design/style.md: each folder imports only what its row
// allows, a feature folder is reached only through its door, and no import cycle exists.
// Run by `npm run lint:imports` (and CI). Exits 1 listing every broken arrow.
// Files are parsed with TypeScript, so static imports, re-exports, `import(...)` calls and
// `import('…')` types are all seen, and so is a module path held in a string: the API must not
// reach workers/ through a string it imports at run time.
// `node .ci/check-imports.mjs [root]`: the root defaults to this checkout (the test passes a temp tree).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { parse as parseYaml } from 'yaml';

const root = path.resolve(process.argv[2] ?? path.join(path.dirname(new URL(import.meta.url).pathname), '..'));

/** [file matcher, forbidden target matcher, reason] over project-relative paths. */
const RULES = [
  [/^src\//, /^(dist\/)?workers\//, 'src/ never imports workers/'],
  [/^graphs\//, /^(dist\/)?workers\//, 'graphs/ never imports workers/: the API imports graphs'],
  [/^graphs\//, /^src\/(http|runtime|gateway)\/|\.(routes|service)\.ts$/, 'graphs/ never imports HTTP code (src/http, src/runtime, src/gateway, routes, services)'],
  [/^workers\//, /^src\/(http|runtime|gateway)\/|^src\/.*\.(routes|service)\.ts$/, 'workers/ never imports HTTP code (src/http, src/runtime, src/gateway, routes, services)'],
  [/^src\/store\//, /^src\/(?!store\/|config\/|errors\.ts$)|^graphs\//, 'src/store/ is storage only: it imports nothing of ours but config/ and errors.ts'],
  [/^src\/store\//, /^fastify$|^@fastify\//, 'a store never imports Fastify'],
  [/^src\/streams\//, /^src\/(?!streams\/|store\/|config\/|metrics\/|errors\.ts$)|^graphs\//, 'src/streams/ (a run\'s stream) imports only store/, config/, metrics/ and errors.ts'],
  [/^src\/config\//, /^src\/(?!config\/|errors\.ts$)/, 'config/ imports nothing of ours but errors.ts'],
  [/^src\/convert\//, /^src\/(?!convert\/|errors\.ts$)/, 'convert/ imports nothing of ours but errors.ts'],
  [/^src\/errors\.ts$/, /^src\//, 'errors.ts imports nothing of ours'],
  [/^src\/.*\.routes\.ts$/, /^ioredis$|^src\/store\/keys\.ts$/, 'a route never touches ioredis or a key'],
  [/^src\/(queue|admission|auth|http)\//, /^src\/(runtime|gateway)\/|^src\/.*\.(routes|service)\.ts$/, 'shared layers (queue, admission, auth, http plumbing) never import routes or services'],
];

/** Feature folders: one feature's API side under src/<f>/, its job under workers/<f>/. */
const SRC_FEATURES = ['memory', 'uploads', 'channels', 'crons', 'webhooks', 'suggestions', 'input-polish', 'agents', 'skills'];
const WORKER_FEATURES = ['memory', 'channels', 'crons', 'webhooks', 'model-tasks', 'tasks'];
/** The API's composition roots: they assemble every feature's routes and services. */
const API_ROOTS = new Set(['src/api-server.ts', 'src/stores.ts', 'src/gateway/gateway.plugin.ts', 'src/runtime/runtime.plugin.ts', 'src/runtime/runtime-deps.ts']);
const WORKER_ROOT = 'workers/worker-process.ts';

/** A feature is reached from outside only through its door (`src/<f>/<f>.ts`); the API's roots also reach its routes and services. */
function featureProblem(rel, target) {
  const src = /^src\/([a-z-]+)\/([^/]+)\.ts$/.exec(target);
  if (src && SRC_FEATURES.includes(src[1]) && !rel.startsWith(`src/${src[1]}/`)) {
    const [, feature, name] = src;
    if (name === feature) return null;
    if (API_ROOTS.has(rel) && /\.(routes|service|schemas)$/.test(name)) return null;
    return `the ${feature} feature is reached only through src/${feature}/${feature}.ts`;
  }
  const worker = /^workers\/([a-z-]+)\//.exec(target);
  if (worker && WORKER_FEATURES.includes(worker[1]) && !rel.startsWith(`workers/${worker[1]}/`) && rel !== WORKER_ROOT) {
    return `workers/${worker[1]}/ is a feature's job: only ${WORKER_ROOT} starts it`;
  }
  return null;
}

/** Code the API loads: no string in it may name a path into workers/. */
const API_SIDE = /^(src|graphs)\//;
const NAMES_WORKERS = /(^|[/.:'"`])workers\//;
/** The one import whose path is computed: configured graph modules, which it refuses under workers/ at boot. */
const COMPUTED_IMPORT_ALLOWED = new Set(['graphs/registry.ts', 'src/config/module-loader.ts']);
/** Config files whose `graphs:` entries the API imports. */
const CONFIGS = ['config.example.yaml', 'config.yaml'];

function* files(dir) {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) yield* files(full);
    else if (/\.(ts|mts)$/.test(name) && !name.endsWith('.d.ts')) yield full;
  }
}

/** The modules of every import cycle: one list per strongly connected component (Tarjan). */
function cyclesOf(graph) {
  let next = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) !== index.get(v)) return;
    const component = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.reverse());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

const isLiteral = (node) => node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node));

/** Every module specifier in a file (null for a computed `import(expr)`), and every string's text. */
function scan(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const specs = [];
  const strings = [];
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      specs.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0];
      specs.push(isLiteral(arg) ? arg.text : null);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && isLiteral(node.argument.literal)) {
      specs.push(node.argument.literal.text);
    } else if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateLiteralToken(node)) {
      strings.push(node.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { specs, strings };
}

const problems = [];
/** Module → the modules it imports (relative imports only), for the cycle check. */
const edges = new Map();
for (const top of ['src', 'graphs', 'workers']) {
  for (const file of files(path.join(root, top))) {
    const rel = path.relative(root, file);
    const text = readFileSync(file, 'utf8');
    const { specs, strings } = scan(file, text);
    edges.set(rel, []);
    for (const spec of specs) {
      if (spec === null) {
        if (API_SIDE.test(rel) && !COMPUTED_IMPORT_ALLOWED.has(rel)) problems.push(`${rel}: import() of a computed path — the lint cannot see where it leads`);
        continue;
      }
      const target = spec.startsWith('.') ? path.relative(root, path.resolve(path.dirname(file), spec)).replace(/\.js$/, '.ts') : spec;
      for (const [from, to, reason] of RULES) {
        if (from.test(rel) && to.test(target)) problems.push(`${rel}: imports ${spec} — ${reason}`);
      }
      const door = featureProblem(rel, target);
      if (door) problems.push(`${rel}: imports ${spec} — ${door}`);
      if (spec.startsWith('.')) edges.get(rel).push(target);
      if (/\/index(\.js)?$/.test(spec) && spec.startsWith('.')) problems.push(`${rel}: imports ${spec} — no barrel files`);
    }
    if (API_SIDE.test(rel)) {
      for (const s of strings) {
        if (NAMES_WORKERS.test(s)) problems.push(`${rel}: the string "${s}" names a path into workers/ — the API never loads worker code`);
      }
    }
    if (/^export default /m.test(text)) problems.push(`${rel}: export default — named exports only`);
  }
}

for (const cycle of cyclesOf(edges)) problems.push(`import cycle among ${cycle.sort().join(', ')}`);

// `graphs:` maps ids to `builtin:x` or `<module>:<export>`; both processes import those modules.
for (const name of CONFIGS) {
  const file = path.join(root, name);
  if (!existsSync(file)) continue;
  const graphs = parseYaml(readFileSync(file, 'utf8'))?.graphs ?? {};
  for (const [id, spec] of Object.entries(graphs)) {
    if (typeof spec !== 'string' || spec.startsWith('builtin:')) continue;
    const modulePath = spec.slice(0, spec.lastIndexOf(':'));
    const target = path.relative(root, path.resolve(root, modulePath));
    if (/^(dist\/)?workers\//.test(target)) problems.push(`${name}: graph ${id} is ${spec} — graph modules never live in workers/`);
  }
}

if (problems.length > 0) {
  console.error(`${problems.length} import rule(s) broken:\n${problems.join('\n')}`);
  process.exit(1);
}
console.log('import arrows: ok');
