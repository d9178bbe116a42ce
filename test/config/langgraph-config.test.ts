// LANGGRAPH_CONFIG read as LangGraph's server reads it, and the SDK's default URL per deployment.
import { describe, expect, it } from 'vitest';
import { readLangGraphConfig } from '../../src/config/langgraph-config.js';
import { deploymentApiKey, pointSdkAt, sdkDefaultUrl } from '../../src/config/sdk-default-url.js';

describe('readLangGraphConfig', () => {
  const graphs = ['lead_agent', 'agent'];

  it('splits each entry into the system assistant config and context', () => {
    const env = { LANGGRAPH_CONFIG: JSON.stringify({ agent: { configurable: { model_name: 'openai' }, recursion_limit: 7, context: { model: 'small' } } }) };
    expect(readLangGraphConfig(env, graphs).get('agent')).toEqual({ config: { configurable: { model_name: 'openai' }, recursion_limit: 7 }, context: { model: 'small' } });
  });

  it('is empty when unset', () => {
    expect(readLangGraphConfig({}, graphs).size).toBe(0);
  });

  it.each([
    ['{not json', /not valid JSON/],
    ['[1]', /must be a JSON object/],
    ['{"other": {}}', /names graph "other", which is not configured/],
    ['{"agent": 3}', /LANGGRAPH_CONFIG\["agent"\] must be an object/],
    ['{"agent": {"context": "x"}}', /\.context must be an object/],
  ])('stops the start on %s', (raw, message) => {
    expect(() => readLangGraphConfig({ LANGGRAPH_CONFIG: raw }, graphs)).toThrow(message);
  });
});

describe('sdkDefaultUrl', () => {
  it('prefers WARREN_API_URL, then api_url, then the local API port', () => {
    expect(sdkDefaultUrl({ fromEnv: 'http://lb:80/', configured: 'http://x', port: 2026, host: '127.0.0.1' })).toBe('http://lb:80/api/langgraph');
    expect(sdkDefaultUrl({ configured: 'https://warren.internal', port: 2026, host: '127.0.0.1' })).toBe('https://warren.internal/api/langgraph');
    expect(sdkDefaultUrl({ port: 2026, host: '0.0.0.0' })).toBe('http://127.0.0.1:2026/api/langgraph');
    expect(sdkDefaultUrl({ port: 9000, host: '::1' })).toBe('http://[::1]:9000/api/langgraph');
  });
});

describe('LANGGRAPH_API_KEY for new Client() inside the deployment (#32)', () => {
  it('is the first deployment-wide key: WARREN_API_KEYS, else a plain auth.api_keys entry, never a user’s', () => {
    expect(deploymentApiKey(['env-key-0123456789abcdef'], ['cfg-key-0123456789abcdef'])).toBe('env-key-0123456789abcdef');
    expect(deploymentApiKey([], [{ key: 'user-key-0123456789abcdef' }, 'cfg-key-0123456789abcdef'])).toBe('cfg-key-0123456789abcdef');
    expect(deploymentApiKey([], [{ key: 'user-key-0123456789abcdef' }])).toBeUndefined();
  });

  it('is set beside LANGGRAPH_API_URL, unless the deployment set one', () => {
    const env: NodeJS.ProcessEnv = {};
    pointSdkAt('http://127.0.0.1:2026/api/langgraph', env, 'the-key');
    expect(env).toEqual({ LANGGRAPH_API_URL: 'http://127.0.0.1:2026/api/langgraph', LANGGRAPH_API_KEY: 'the-key' });
    const own: NodeJS.ProcessEnv = { LANGGRAPH_API_KEY: 'own' };
    pointSdkAt('http://x/api/langgraph', own, 'the-key');
    expect(own.LANGGRAPH_API_KEY).toBe('own');
    const open: NodeJS.ProcessEnv = {};
    pointSdkAt('http://x/api/langgraph', open, undefined);
    expect(open.LANGGRAPH_API_KEY).toBeUndefined();
  });
});
