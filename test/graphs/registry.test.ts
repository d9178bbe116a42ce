// Graph specs: built-ins come from graphs/, and a configured module under workers/ fails the start,
// because the API imports every configured graph module too.
import { describe, expect, it } from 'vitest';
import { resolveGraphSpec } from '../../graphs/registry.js';
import { PROJECT_ROOT } from '../../src/config/paths.js';
import { ConfigError } from '../../src/errors.js';

describe('resolveGraphSpec', () => {
  it('resolves the built-in lead agent to its factory, with no module path', () => {
    const resolved = resolveGraphSpec('builtin:lead_agent', PROJECT_ROOT);
    expect('builtin' in resolved && typeof resolved.builtin).toBe('function');
  });

  it('refuses a graph module under workers/, in the sources or in dist/', () => {
    for (const spec of ['./workers/agent/toolbox.ts:createToolbox', './dist/workers/agent/toolbox.js:createToolbox']) {
      expect(() => resolveGraphSpec(spec, PROJECT_ROOT)).toThrow(ConfigError);
      expect(() => resolveGraphSpec(spec, PROJECT_ROOT)).toThrow(/is worker code/);
    }
  });
});
