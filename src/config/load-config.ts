// Loads config.yaml: `$NAME` values read the environment, then the result is validated against
// AppConfigSchema, filled with defaults and frozen. Any fault is a ConfigError naming the key.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Value } from 'typebox/value';
import { parse as parseYaml } from 'yaml';
import { ConfigError } from '../errors.js';
import { AppConfigSchema, type AppConfig } from './app-config.schemas.js';
import { problemsMessage, schemaProblems, unknownKeys } from './config-problems.js';
import type { ProjectHttp } from './langgraph-json.schemas.js';
import { applyProjectEnv, mergeProjectGraphs, readLangGraphJson, type LangGraphProject, type ProjectUi } from './langgraph-json.js';
import { redisTargetFromConfig } from './redis-target.js';

export interface LoadedConfig {
  readonly config: AppConfig;
  /** Absolute path of the file read, or null when none exists and defaults apply. */
  readonly file: string | null;
  /** Directory that relative paths in the config (graph modules, skills) are resolved against. */
  readonly dir: string;
  /** The project's generative UI (`ui` in its langgraph.json), which the API bundles at start. */
  readonly ui?: ProjectUi;
  /** The project's `http` (custom app, route switches, CORS, configurable headers), when langgraph.json has one. */
  readonly http?: ProjectHttp;
}

const ENV_REF = /^\$([A-Za-z_][A-Za-z0-9_]*)$/;

/** Keys whose value a fault never echoes: a password, or a URL that may carry one. */
const HIDDEN_KEYS = /^redis(\.url|\.password)?$/;

/** Keys whose `$NAME` stays unresolved until used, so a missing key fails a run, not the boot. */
const LAZY_KEYS = [/^models\[\d+\]\.api_key$/, /^web\.search_api_key$/, /^store\.index\.api_key$/, /^channels\.telegram\.bot_token$/, /^channels\.slack\.(bot_token|app_token|signing_secret)$/, /^channels\.feishu\.(app_secret|verification_token|encrypt_key)$/];

export function configFilePath(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.WARREN_CONFIG ?? 'config.yaml');
}

export function loadAppConfig(env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  const file = configFilePath(env);
  const explicit = env.WARREN_CONFIG !== undefined;
  if (!existsSync(file)) {
    if (explicit) throw new ConfigError(`WARREN_CONFIG points at ${file}, which does not exist.`);
    return { config: parseAppConfig({}, env), file: null, dir: process.cwd() };
  }
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(file, 'utf8')) ?? {};
  } catch (err) {
    throw new ConfigError(`${file} is not valid YAML: ${(err as Error).message}`);
  }
  const dir = path.dirname(file);
  const project = readProject(raw, env, file, dir);
  if (!project) return { config: parseAppConfig(raw, env, file), file, dir };
  // The project's env is read first, so config.yaml's `$NAME` values may come from it too.
  const config = parseAppConfig(withProjectAuth(withProjectStore(raw, project, file), project, file), { ...project.env, ...env }, project.store === undefined ? file : `${file} (store: from ${project.file})`);
  const graphs = mergeProjectGraphs(config.graphs, project, project.file);
  checkProjectCors(raw, project, file);
  return {
    config: Object.freeze({ ...config, graphs: Object.freeze(graphs) }),
    file,
    dir,
    ...(project.ui ? { ui: project.ui } : {}),
    ...(project.http ? { http: project.http } : {}),
  };
}

/** The project's `store` stands in for config.yaml's; both at once is a fault, not a silent choice. */
function withProjectStore(raw: unknown, project: LangGraphProject & { file: string }, file: string): unknown {
  if (project.store === undefined) return raw;
  if ((raw as Record<string, unknown>).store !== undefined) throw new ConfigError(`${project.file}: "store" is also in ${file}; keep it in one place.`);
  return { ...(raw as Record<string, unknown>), store: project.store };
}

/** `http.cors` stands in for config.yaml's `cors`; both at once is a fault, not a silent choice. */
function checkProjectCors(raw: unknown, project: LangGraphProject & { file: string }, file: string): void {
  if (project.http?.cors !== undefined && (raw as Record<string, unknown>).cors !== undefined) {
    throw new ConfigError(`${project.file}: "http.cors" is set, and so is cors in ${file}; keep CORS in one place.`);
  }
}

/** The project's `auth.path` becomes `auth.module`; a module in both files is a fault, not a silent choice. */
function withProjectAuth(raw: unknown, project: LangGraphProject & { file: string }, file: string): unknown {
  if (project.authModule === undefined) return raw;
  const auth = (raw as Record<string, unknown>).auth;
  if (auth !== undefined && (auth === null || typeof auth !== 'object' || Array.isArray(auth))) return raw;
  if ((auth as Record<string, unknown> | undefined)?.module !== undefined) {
    throw new ConfigError(`${project.file}: "auth" is set, and so is auth.module in ${file}; keep the auth module in one place.`);
  }
  return { ...(raw as Record<string, unknown>), auth: { ...(auth as Record<string, unknown> | undefined), module: project.authModule } };
}

/** The `langgraph.json` config.yaml points at, read, with its env applied to the process. */
function readProject(raw: unknown, env: NodeJS.ProcessEnv, file: string, dir: string): (LangGraphProject & { file: string }) | null {
  const ref = (raw as { langgraph_json?: unknown } | null)?.langgraph_json;
  if (typeof ref !== 'string' || ref === '') return null;
  const projectFile = path.resolve(dir, resolveEnvRefs(ref, env, 'langgraph_json', file) as string);
  const project = readLangGraphJson(projectFile);
  applyProjectEnv(project, process.env);
  return { ...project, file: projectFile };
}

export function parseAppConfig(raw: unknown, env: NodeJS.ProcessEnv, source = 'config.yaml'): AppConfig {
  if (raw !== null && (typeof raw !== 'object' || Array.isArray(raw))) {
    throw new ConfigError(`${source} must be a mapping of keys (models:, runtime:, …), but it is ${Array.isArray(raw) ? 'a list' : `a ${typeof raw}`}.`);
  }
  // Unknown keys first: a typo would otherwise leave its key at the default without a word.
  const unknown = unknownKeys(AppConfigSchema, raw);
  if (unknown.length > 0) throw new ConfigError(problemsMessage(source, unknown));
  const resolved = resolveEnvRefs(raw, env, '', source);
  const withDefaults = Value.Default(AppConfigSchema, Value.Clone(resolved));
  if (!Value.Check(AppConfigSchema, withDefaults)) {
    throw new ConfigError(problemsMessage(source, schemaProblems(AppConfigSchema, withDefaults, (key) => HIDDEN_KEYS.test(key))));
  }
  // At load, whether or not REDIS_URL overrides it: a contradictory block is a fault of the file.
  if (withDefaults.redis !== undefined) redisTargetFromConfig(withDefaults.redis, source);
  const names = new Set<string>();
  for (const model of withDefaults.models) {
    if (names.has(model.name)) throw new ConfigError(`${source}: model name "${model.name}" is used twice.`);
    names.add(model.name);
  }
  return deepFreeze(withDefaults);
}

function resolveEnvRefs(value: unknown, env: NodeJS.ProcessEnv, at: string, source: string): unknown {
  if (typeof value === 'string') {
    const match = ENV_REF.exec(value);
    if (!match || LAZY_KEYS.some((re) => re.test(at))) return value;
    const name = match[1] as string;
    const found = env[name];
    if (found === undefined) {
      throw new ConfigError(`${source}: key "${at}" refers to $${name}, but the environment variable ${name} is not set.`);
    }
    return found;
  }
  if (Array.isArray(value)) return value.map((v, i) => resolveEnvRefs(v, env, `${at}[${i}]`, source));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (k === '__proto__' || k === 'constructor' || k === 'prototype') continue;
      out[k] = resolveEnvRefs(v, env, at ? `${at}.${k}` : k, source);
    }
    return out;
  }
  return value;
}

/** True for a value that is a `$NAME` reference to an environment variable. */
export const isEnvRef = (value: string): boolean => ENV_REF.test(value);

/** Resolves a lazily kept `$NAME` (e.g. a model's api_key) at the moment it is needed. */
export function resolveEnvRef(value: string | undefined, env: NodeJS.ProcessEnv = process.env): { value?: string; missing?: string } {
  if (value === undefined) return {};
  const match = ENV_REF.exec(value);
  if (!match) return { value };
  const name = match[1] as string;
  const found = env[name];
  return found === undefined || found === '' ? { missing: name } : { value: found };
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
