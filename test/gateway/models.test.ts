// GET /api/models and /api/models/{name}: configured models, never a secret.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayApp, type GatewayApp } from './gateway-app.js';

let gw: GatewayApp;
beforeAll(async () => {
  gw = await startGatewayApp({
    config: {
      models: [
        { name: 'gpt-4o', display_name: 'GPT-4o', use: 'openai', model: 'gpt-4o-2024-08-06', api_key: 'sk-literal-secret', base_url: 'https://user:pw@llm.example/v1', max_tokens: 4096, supports_vision: true },
        { name: 'claude', use: 'anthropic', model: 'claude-sonnet-4-5', api_key: '$ANTHROPIC_API_KEY', supports_thinking: true },
        { name: 'Qwen/Qwen2.5-7B', use: 'openai', model: 'Qwen/Qwen2.5-7B-Instruct', base_url: 'http://127.0.0.1:8000/v1' },
      ],
    },
  });
});
afterAll(async () => gw?.close());

describe('GET /api/models', () => {
  it('lists every configured model with the four list fields', async () => {
    const res = await gw.api.app.inject({ method: 'GET', url: '/api/models' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      models: [
        { name: 'gpt-4o', display_name: 'GPT-4o', supports_thinking: false, supports_vision: true },
        { name: 'claude', display_name: 'claude', supports_thinking: true, supports_vision: false },
        { name: 'Qwen/Qwen2.5-7B', display_name: 'Qwen/Qwen2.5-7B', supports_thinking: false, supports_vision: false },
      ],
    });
  });

  it('never shows a key or a base_url', async () => {
    for (const url of ['/api/models', '/api/models/gpt-4o', '/api/models/claude']) {
      const body = (await gw.api.app.inject({ method: 'GET', url })).body;
      expect(body).not.toMatch(/sk-literal-secret|ANTHROPIC_API_KEY|api_key|base_url|llm\.example|user:pw/);
    }
  });

  it('an empty configuration lists no models', async () => {
    const empty = await startGatewayApp();
    try {
      expect((await empty.api.app.inject({ method: 'GET', url: '/api/models' })).json()).toEqual({ models: [] });
    } finally {
      await empty.close();
    }
  });
});

describe('GET /api/models/{name}', () => {
  it('adds model and max_tokens', async () => {
    const res = await gw.api.app.inject({ method: 'GET', url: '/api/models/gpt-4o' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      name: 'gpt-4o',
      display_name: 'GPT-4o',
      model: 'gpt-4o-2024-08-06',
      max_tokens: 4096,
      supports_thinking: false,
      supports_vision: true,
    });
  });

  it('answers max_tokens null when the configuration sets none', async () => {
    const res = await gw.api.app.inject({ method: 'GET', url: '/api/models/claude' });
    expect(res.json()).toMatchObject({ name: 'claude', model: 'claude-sonnet-4-5', max_tokens: null, supports_thinking: true });
  });

  it('finds a name with a slash when the client encodes it', async () => {
    const res = await gw.api.app.inject({ method: 'GET', url: `/api/models/${encodeURIComponent('Qwen/Qwen2.5-7B')}` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ name: 'Qwen/Qwen2.5-7B', model: 'Qwen/Qwen2.5-7B-Instruct' });
  });

  it('gives 404 {detail} for an unknown name', async () => {
    const res = await gw.api.app.inject({ method: 'GET', url: '/api/models/nope' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ detail: "Model 'nope' not found." });
  });
});
