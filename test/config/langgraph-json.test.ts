// config.yaml's `langgraph_json`: a LangGraph.js project's file read as the LangGraph CLI reads
// it. Graphs resolve against the file, `env` reaches the environment without overriding it,
// build-time keys are ignored, and runtime features Warren does not implement are refused by name.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveGraphSpec } from '../../graphs/registry.js';
import { loadAppConfig } from '../../src/config/load-config.js';
import { ConfigError } from '../../src/errors.js';

let dir: string;
let project: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'warren-lgjson-'));
  project = path.join(dir, 'project');
  mkdirSync(path.join(project, 'src'), { recursive: true });
  writeFileSync(path.join(project, 'src', 'agent.ts'), 'export const graph = 1;\n');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Writes config.yaml (pointing at project/langgraph.json) and langgraph.json, and loads them. */
function load(langgraph: Record<string, unknown>, yaml = 'langgraph_json: ./project/langgraph.json\n', env: NodeJS.ProcessEnv = {}) {
  writeFileSync(path.join(project, 'langgraph.json'), JSON.stringify(langgraph));
  const configFile = path.join(dir, 'config.yaml');
  writeFileSync(configFile, yaml);
  return loadAppConfig({ ...env, WARREN_CONFIG: configFile });
}

const GRAPHS = { agent: './src/agent.ts:graph' };

describe('langgraph.json', () => {
  it('adds its graphs, resolved against the file, in either form; ignores build-time keys', () => {
    const { config } = load({
      $schema: 'https://langgra.ph/schema.json',
      node_version: '24',
      dockerfile_lines: ['RUN true'],
      dependencies: ['.'],
      graphs: { ...GRAPHS, described: { path: './src/agent.ts', description: 'default export' } },
    });
    expect(config.graphs).toEqual({ agent: `${path.join(project, 'src', 'agent.ts')}:graph`, described: path.join(project, 'src', 'agent.ts') });
    expect(Object.isFrozen(config.graphs)).toBe(true);
    // The registry takes both: a spec without `:export` means the default export.
    expect(resolveGraphSpec(config.graphs.described as string, dir)).toMatchObject({ exportName: 'default' });
  });

  it('applies env (a file or an object) to the process environment, never over a variable already set', () => {
    writeFileSync(path.join(project, '.env'), 'WARREN_LGJSON_A=from-file\nWARREN_LGJSON_B="quoted value"\n');
    process.env.WARREN_LGJSON_B = 'already set';
    try {
      load({ graphs: GRAPHS, env: '.env' });
      expect(process.env.WARREN_LGJSON_A).toBe('from-file');
      expect(process.env.WARREN_LGJSON_B).toBe('already set');
      // config.yaml's $NAME values may come from the project's env.
      const { config } = load({ graphs: GRAPHS, env: { WARREN_LGJSON_C: 'http://from-object' } }, 'langgraph_json: ./project/langgraph.json\ncors:\n  origins: [$WARREN_LGJSON_C]\n');
      expect(process.env.WARREN_LGJSON_C).toBe('http://from-object');
      expect(config.cors.origins).toEqual(['http://from-object']);
    } finally {
      for (const name of ['WARREN_LGJSON_A', 'WARREN_LGJSON_B', 'WARREN_LGJSON_C']) delete process.env[name];
    }
  });

  it('refuses runtime features Warren does not implement, naming the key and why', () => {
    for (const [key, reason] of [
      ['checkpointer', /Redis/],
      ['webhooks', /webhook settings/],
    ] as const) {
      const attempt = () => load({ graphs: GRAPHS, [key]: {} });
      expect(attempt).toThrow(ConfigError);
      expect(attempt).toThrow(new RegExp(`"${key}" is not supported`));
      expect(attempt).toThrow(reason);
    }
    expect(() => load({ graphs: GRAPHS, grpahs: {} })).toThrow(/unknown key "grpahs"/);
  });

  it('reads `http` (#32): its app resolved against the file, route switches, CORS and configurable headers', () => {
    const http = {
      app: './src/app.ts:app',
      disable_store: true,
      disable_meta: false,
      cors: { allow_origins: ['https://a.example'], allow_origin_regex: '^https://.*\\.b\\.example$', max_age: 60 },
      configurable_headers: { includes: ['x-user-*'], excludes: ['x-user-secret'] },
    };
    const loaded = load({ graphs: GRAPHS, http });
    expect(loaded.http).toEqual({ ...http, app: `${path.join(project, 'src', 'app.ts')}:app` });
    expect(load({ graphs: GRAPHS }).http).toBeUndefined();
  });

  it('refuses in `http` what it cannot honour, naming the key (#32)', () => {
    expect(() => load({ graphs: GRAPHS, http: { apps: './src/app.ts' } })).toThrow(/unknown key "http\.apps"; did you mean "http\.app"\?/);
    expect(() => load({ graphs: GRAPHS, http: { disable_mcp: true } })).toThrow(/unknown key "http\.disable_mcp"/);
    expect(() => load({ graphs: GRAPHS, http: { disable_meta: true } })).toThrow(/"http\.disable_meta" is not supported: \/ok, \/info and \/metrics/);
    expect(() => load({ graphs: GRAPHS, http: { cors: { allow_origin_regex: '(' } } })).toThrow(/allow_origin_regex" is not a valid regular expression/);
    expect(() => load({ graphs: GRAPHS, http: { cors: {} } }, 'langgraph_json: ./project/langgraph.json\ncors:\n  origins: ["*"]\n')).toThrow(/keep CORS in one place/);
    expect(() => load({ graphs: GRAPHS, http: { app: './src/app.py:app' } })).toThrow(/http\.app is Python/);
  });

  it("takes its auth.path as config.yaml's auth.module, resolved against the file, and not both", () => {
    const { config } = load({ graphs: GRAPHS, auth: { path: './src/auth.ts:auth', disable_studio_auth: true } });
    expect(config.auth.module).toBe(`${path.join(project, 'src', 'auth.ts')}:auth`);
    expect(() => load({ graphs: GRAPHS, auth: { path: './src/auth.ts:auth' } }, 'langgraph_json: ./project/langgraph.json\nauth:\n  module: ./other.ts:auth\n')).toThrow(/keep the auth module in one place/);
    expect(() => load({ graphs: GRAPHS, auth: { path: './auth.py:auth' } })).toThrow(/auth is Python/);
    expect(() => load({ graphs: GRAPHS, auth: { paht: './src/auth.ts:auth' } })).toThrow(ConfigError);
  });

  it("takes its store (index, ttl) as config.yaml's store, checked the same way, and not both", () => {
    const store = { index: { embed: 'openai:text-embedding-3-small', dims: 1536, fields: ['text'] }, ttl: { default_ttl: 60, sweep_interval_minutes: 5 } };
    const { config } = load({ graphs: GRAPHS, store }, 'langgraph_json: ./project/langgraph.json\n', { OPENAI_API_KEY: 'sk-test' });
    expect(config.store.index).toMatchObject({ embed: 'openai:text-embedding-3-small', dims: 1536, fields: ['text'], cache_mb: 256 });
    expect(config.store.ttl).toEqual({ default_ttl: 60, refresh_on_read: true, sweep_interval_minutes: 5 });
    expect(() => load({ graphs: GRAPHS, store: { ttl: { default_tll: 5 } } })).toThrow(/default_tll/);
    expect(() => load({ graphs: GRAPHS, store: { index: { embed: 'openai:x', dims: 0 } } })).toThrow(/store\.index\.dims/);
    expect(() => load({ graphs: GRAPHS, store }, 'langgraph_json: ./project/langgraph.json\nstore:\n  ttl:\n    default_ttl: 5\n')).toThrow(/"store" is also in/);
  });

  it('refuses what cannot run: Python graphs, missing files, bad shapes, ids also in config.yaml', () => {
    expect(() => load({ graphs: { py: './agent.py:graph' } })).toThrow(/graph "py" is Python/);
    expect(() => load({ graphs: GRAPHS, env: './missing.env' })).toThrow(/env file .*missing\.env does not exist/);
    expect(() => load({ graphs: GRAPHS, dependencies: ['./nowhere'] })).toThrow(/dependency "\.\/nowhere" .* is not a directory/);
    expect(() => load({ graphs: 'nope' })).toThrow(/is invalid: \/graphs/);
    expect(() => load({ graphs: GRAPHS }, 'langgraph_json: ./project/langgraph.json\ngraphs:\n  agent: builtin:lead_agent\n')).toThrow(
      /graph "agent" is also in config\.yaml's graphs/,
    );
    expect(() => load({ graphs: GRAPHS }, 'langgraph_json: ./elsewhere.json\n')).toThrow(/langgraph_json points at .*elsewhere\.json, which does not exist/);
  });
});
