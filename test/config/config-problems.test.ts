// config.yaml's faults read as sentences: an unknown key anywhere is named with its path and the
// closest known key; every other fault names the key, what it must be and what it is.
import { describe, expect, it } from 'vitest';
import { closestKey, levenshtein } from '../../src/config/config-problems.js';
import { parseAppConfig } from '../../src/config/load-config.js';
import { ConfigError } from '../../src/errors.js';

function messageOf(raw: unknown): string {
  try {
    parseAppConfig(raw, {});
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('the config was accepted');
}

describe('unknown keys', () => {
  it('names a typo inside a model with its path and suggests the key meant', () => {
    const message = messageOf({ models: [{ name: 'm', use: 'openai', model: 'x' }, { name: 'v', use: 'openai', model: 'y', supports_visoin: true }] });
    expect(message).toContain('unknown key "models[1].supports_visoin"; did you mean "models[1].supports_vision"?');
  });

  it('names unknown keys at the top and inside sections, each with its suggestion', () => {
    const message = messageOf({ runtme: {}, web: { fetch_enabeld: true }, uploads: { max_file_mb: 5, max_filez: 3 } });
    expect(message).toContain('unknown key "runtme"; did you mean "runtime"?');
    expect(message).toContain('unknown key "web.fetch_enabeld"; did you mean "web.fetch_enabled"?');
    expect(message).toContain('unknown key "uploads.max_filez"; did you mean "uploads.max_files"?');
  });

  it('lists the known keys when nothing is close', () => {
    expect(messageOf({ sandbox: { qqqqqqqq: 1 } })).toMatch(/unknown key "sandbox\.qqqqqqqq" \(known keys here: allow_host_bash, network, /);
  });

  it('measures closeness by edit distance', () => {
    expect(levenshtein('kitten', 'sitting')).toBe(3);
    expect(closestKey('modles', ['models', 'graphs'])).toBe('models');
    expect(closestKey('zz', ['models', 'graphs'])).toBeUndefined();
  });
});

describe('other faults', () => {
  it('says which key, what was expected and what was given, without validator wording', () => {
    const message = messageOf({
      models: [{ name: 'a b', use: 'openai', model: 3, supports_vision: 'yes' }],
      web: { search_provider: 'bing' },
    });
    expect(message).toContain('"models[0].name" must match the pattern ^[A-Za-z0-9._:/-]+$, but it is "a b" (a string).');
    expect(message).toContain('"models[0].model" must be text, but it is 3 (an integer).');
    expect(message).toContain('"models[0].supports_vision" must be true or false, but it is "yes" (a string).');
    expect(message).toContain('"web.search_provider" must be one of "tavily", "searxng", but it is "bing" (a string).');
    expect(message).not.toMatch(/additional properties|must NOT|anyOf|schema/i);
  });

  it('names a missing key and a number out of range', () => {
    expect(messageOf({ models: [{ name: 'm', model: 'x' }] })).toContain('"models[0].use" is required but missing.');
    expect(messageOf({ runtime: { lock_seconds: 0.1 } })).toContain('"runtime.lock_seconds" must be at least 0.5, but it is 0.1 (a number).');
  });
});
