// A LangGraph.js project's `langgraph.json`, read as the LangGraph CLI reads it, so a project
// runs on Warren unchanged: config.yaml's `langgraph_json` points at the file, its graphs join
// `graphs`, and its `env` reaches the process environment the graphs read. Both processes load
// it (the API reads state through the graphs, workers run them), so both see the same thing.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { Type } from 'typebox';
import { Value } from 'typebox/value';
import { ConfigError } from '../errors.js';
import { unknownKeys } from './config-problems.js';
import { LangGraphJsonSchema, ProjectHttpSchema, type LangGraphJson, type ProjectHttp } from './langgraph-json.schemas.js';

/** Keys the CLI uses to build an image or pick a runtime; they mean nothing to a running Warren. */
const BUILD_TIME_KEYS = new Set([
  '$schema',
  'node_version',
  'python_version',
  'dockerfile_lines',
  'docker_compose_file',
  'pip_config_file',
  'pip_installer',
  'keep_pkg_tools',
  'image_distro',
  'base_image',
  'api_version',
  '_INTERNAL_docker_tag',
]);

/** Runtime features of the LangGraph server that Warren does not take from langgraph.json. */
const REFUSED_KEYS: Readonly<Record<string, string>> = {
  checkpointer: "Warren's checkpoints live in Redis with their own lifetime; `checkpointer` (ttl) cannot be honoured",
  webhooks: 'webhook settings are not supported',
  encryption: 'custom encryption is not supported',
  node_loader: 'custom module loaders are not supported; TypeScript graphs load without one',
};

const UI_ID = /^[A-Za-z0-9_.-]{1,128}$/;

const PYTHON_MODULE = /\.(?:py|pyx|pyd|pyi)$/;

export interface LangGraphProject {
  /** graph id → `<absolute module path>:<export>`, ready for the graph registry. */
  graphs: Record<string, string>;
  /** Variables from `env`, before the process environment is consulted. */
  env: Record<string, string>;
  /** The project's `store` (index, ttl), for config.yaml's `store` (checked there). */
  store?: unknown;
  /** `auth.path` as `<absolute module path>:<export>`, for config.yaml's `auth.module`. */
  authModule?: string;
  /** `ui` and `ui_config.shared`, for the API's bundles (src/ui/ui-bundles.ts). */
  ui?: ProjectUi;
  /** `http`, its `app` as `<absolute module path>:<export>` (src/custom-http/ serves it). */
  http?: ProjectHttp;
}

export interface ProjectUi {
  /** The langgraph.json, for messages. */
  file: string;
  /** The project's directory: the bundler's root, which every component file must be inside. */
  cwd: string;
  /** graph id → component file, relative to `cwd` as langgraph.json writes it. */
  components: Record<string, string>;
  /** Packages the page provides, left out of the bundles. */
  shared: string[];
}

function fail(file: string, message: string): never {
  throw new ConfigError(`${file}: ${message}`);
}

function readJson(file: string): unknown {
  if (!existsSync(file)) throw new ConfigError(`langgraph_json points at ${file}, which does not exist.`);
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch (err) {
    return fail(file, `not valid JSON: ${(err as Error).message}`);
  }
}

const HTTP_ONLY = Type.Object({ http: ProjectHttpSchema });

/** `http`'s keys by name (a typo is named, not a bare "additional properties"), then its meaning. */
function checkHttp(file: string, raw: Record<string, unknown>): void {
  if (raw.http === undefined) return;
  const unknown = unknownKeys(HTTP_ONLY, { http: raw.http });
  if (unknown.length > 0) fail(file, unknown.join('; '));
  if ((raw.http as { disable_meta?: unknown }).disable_meta === true) {
    fail(file, '"http.disable_meta" is not supported: /ok, /info and /metrics are Warren\'s own routes and stay. Remove it to run on Warren.');
  }
}

function readHttp(file: string, dir: string, http: ProjectHttp | undefined): ProjectHttp | undefined {
  if (http === undefined) return undefined;
  const regex = http.cors?.allow_origin_regex;
  if (regex !== undefined) {
    try {
      new RegExp(regex);
    } catch (err) {
      fail(file, `"http.cors.allow_origin_regex" is not a valid regular expression: ${(err as Error).message}`);
    }
  }
  return http.app === undefined ? http : { ...http, app: moduleSpec(file, dir, 'http.app', http.app) };
}

function checkKeys(file: string, raw: Record<string, unknown>): void {
  const known = new Set(Object.keys(LangGraphJsonSchema.properties));
  for (const key of Object.keys(raw)) {
    if (known.has(key) || BUILD_TIME_KEYS.has(key)) continue;
    const reason = REFUSED_KEYS[key];
    fail(file, reason ? `"${key}" is not supported: ${reason}. Remove it to run on Warren.` : `unknown key "${key}".`);
  }
}

function graphSpec(file: string, dir: string, id: string, entry: LangGraphJson['graphs'][string]): string {
  return moduleSpec(file, dir, `graph "${id}"`, typeof entry === 'string' ? entry : entry.path);
}

/** `./path:export` relative to the file, as an absolute spec; Python modules are refused. */
function moduleSpec(file: string, dir: string, what: string, spec: string): string {
  const colon = spec.lastIndexOf(':');
  const modulePath = colon > 0 ? spec.slice(0, colon) : spec;
  if (PYTHON_MODULE.test(modulePath)) fail(file, `${what} is Python (${modulePath}); Warren hosts LangGraph.js graphs.`);
  const absolute = path.resolve(dir, modulePath);
  return colon > 0 ? `${absolute}${spec.slice(colon)}` : absolute;
}

function readEnv(file: string, dir: string, env: LangGraphJson['env']): Record<string, string> {
  // A list names variables the deployment passes through: the processes already have them.
  if (env === undefined || Array.isArray(env)) return {};
  if (typeof env !== 'string') return { ...env };
  const envFile = path.resolve(dir, env);
  if (!existsSync(envFile)) fail(file, `env file ${envFile} does not exist.`);
  return parseEnv(readFileSync(envFile, 'utf8')) as Record<string, string>;
}

function checkDependencies(file: string, dir: string, dependencies: readonly string[]): void {
  for (const dependency of dependencies) {
    const full = path.resolve(dir, dependency);
    // A package name (Python projects list those) has no meaning for a JS project's runtime.
    if (!dependency.startsWith('.') && !path.isAbsolute(dependency)) continue;
    if (!existsSync(full) || !statSync(full).isDirectory()) fail(file, `dependency "${dependency}" (${full}) is not a directory.`);
  }
}

/** `ui` with each component file checked: it exists, inside the project (the bundler's root). */
function readUi(file: string, dir: string, ui: LangGraphJson['ui'], uiConfig: LangGraphJson['ui_config']): ProjectUi | undefined {
  if (ui === undefined) return undefined;
  for (const [id, component] of Object.entries(ui)) {
    // The id is a URL segment (`/ui/{graph}`), spelled as graph ids are.
    if (!UI_ID.test(id)) fail(file, `ui "${id}": the id must be 1 to 128 letters, digits, "_", "." or "-".`);
    const full = path.resolve(dir, component);
    const inside = path.relative(dir, full);
    if (inside === '..' || inside.startsWith(`..${path.sep}`) || path.isAbsolute(inside)) fail(file, `ui "${id}" (${component}) is outside the project directory ${dir}.`);
    if (!existsSync(full) || !statSync(full).isFile()) fail(file, `ui "${id}": component file ${full} does not exist.`);
  }
  return { file, cwd: dir, components: { ...ui }, shared: [...(uiConfig?.shared ?? [])] };
}

/** Reads and checks a langgraph.json: its graphs as absolute specs, and its environment. */
export function readLangGraphJson(file: string): LangGraphProject {
  const raw = readJson(file);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return fail(file, 'must be a JSON object.');
  checkKeys(file, raw as Record<string, unknown>);
  checkHttp(file, raw as Record<string, unknown>);
  if (!Value.Check(LangGraphJsonSchema, raw)) {
    const problems = [...Value.Errors(LangGraphJsonSchema, raw)].slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message}`);
    return fail(file, `is invalid: ${problems.join('; ')}`);
  }
  const dir = path.dirname(file);
  checkDependencies(file, dir, raw.dependencies ?? []);
  const graphs = Object.fromEntries(Object.entries(raw.graphs).map(([id, entry]) => [id, graphSpec(file, dir, id, entry)]));
  const store = (raw as { store?: unknown }).store;
  const authModule = raw.auth ? moduleSpec(file, dir, 'auth', raw.auth.path) : undefined;
  const ui = readUi(file, dir, raw.ui, raw.ui_config);
  const http = readHttp(file, dir, raw.http);
  return {
    graphs,
    env: readEnv(file, dir, raw.env),
    ...(store === undefined ? {} : { store }),
    ...(authModule === undefined ? {} : { authModule }),
    ...(ui === undefined ? {} : { ui }),
    ...(http === undefined ? {} : { http }),
  };
}

/**
 * The project's `env` into `target` (the process environment): a variable already set wins,
 * as with the LangGraph CLI, so a deployment can override the file.
 */
export function applyProjectEnv(project: LangGraphProject, target: NodeJS.ProcessEnv): void {
  for (const [name, value] of Object.entries(project.env)) if (target[name] === undefined) target[name] = value;
}

/** config.yaml's graphs with the project's: one id in both is a fault, not a silent choice. */
export function mergeProjectGraphs(
  configGraphs: Readonly<Record<string, string>>,
  project: LangGraphProject,
  file: string,
): Record<string, string> {
  for (const id of Object.keys(project.graphs)) {
    if (Object.hasOwn(configGraphs, id)) fail(file, `graph "${id}" is also in config.yaml's graphs; keep it in one place.`);
  }
  return { ...configGraphs, ...project.graphs };
}
