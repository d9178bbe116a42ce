import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAppConfig, parseAppConfig, resolveEnvRef } from '../../src/config/load-config.js';
import { ConfigError } from '../../src/errors.js';

describe('config.yaml loading', () => {
  it('fills every section with defaults when the file is absent', () => {
    const { config, file } = loadAppConfig({ WARREN_CONFIG: undefined, PWD: tmpdir() });
    expect(file === null || typeof file === 'string').toBe(true);
    const empty = parseAppConfig({}, {});
    expect(empty.models).toEqual([]);
    expect(empty.runtime.default_recursion_limit).toBe(25);
    expect(empty.title.max_words).toBeGreaterThan(0);
    expect(empty.sandbox.allow_host_bash).toBe(false);
    expect(config).toBeTruthy();
  });

  it('resolves $NAME from the environment', () => {
    const cfg = parseAppConfig({ models: [{ name: 'm', use: 'openai', model: 'x', base_url: '$BASE' }] }, { BASE: 'http://h' });
    expect(cfg.models[0]?.base_url).toBe('http://h');
  });

  it('names the variable and the key when a $NAME is missing', () => {
    expect(() => parseAppConfig({ models: [{ name: 'm', use: 'openai', model: 'x', base_url: '$NOPE_BASE' }] }, {})).toThrow(
      /models\[0\]\.base_url.*NOPE_BASE/,
    );
  });

  it('keeps a model api_key reference unresolved until a run needs it', () => {
    const cfg = parseAppConfig({ models: [{ name: 'm', use: 'openai', model: 'x', api_key: '$NOPE_KEY' }] }, {});
    expect(cfg.models[0]?.api_key).toBe('$NOPE_KEY');
    expect(resolveEnvRef('$NOPE_KEY', {})).toEqual({ missing: 'NOPE_KEY' });
    expect(resolveEnvRef('$K', { K: 'v' })).toEqual({ value: 'v' });
    expect(resolveEnvRef('literal', {})).toEqual({ value: 'literal' });
  });

  it('rejects unknown top-level keys and duplicate model names', () => {
    expect(() => parseAppConfig({ bogus: 1 }, {})).toThrow(ConfigError);
    const m = { name: 'dup', use: 'openai', model: 'x' };
    expect(() => parseAppConfig({ models: [m, m] }, {})).toThrow(/used twice/);
  });

  it('reads the file at WARREN_CONFIG and fails clearly when it is missing or malformed', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'warren-cfg-'));
    try {
      const file = path.join(dir, 'c.yaml');
      writeFileSync(file, 'graphs:\n  g: ./g.ts:graph\n');
      const loaded = loadAppConfig({ WARREN_CONFIG: file });
      expect(loaded.config.graphs).toEqual({ g: './g.ts:graph' });
      expect(loaded.dir).toBe(dir);
      expect(() => loadAppConfig({ WARREN_CONFIG: path.join(dir, 'none.yaml') })).toThrow(/does not exist/);
      writeFileSync(file, 'graphs: [\n');
      expect(() => loadAppConfig({ WARREN_CONFIG: file })).toThrow(/not valid YAML/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('ships a config.example.yaml that loads', () => {
    const loaded = loadAppConfig({ WARREN_CONFIG: path.resolve('config.example.yaml'), OPENAI_API_KEY: 'k' });
    expect(loaded.config.models.length).toBeGreaterThan(0);
  });
});
