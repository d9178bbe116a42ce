// The gateway route group as a whole: mounted at /api, documented in the OpenAPI document, and
// the only place that accepts multipart bodies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipart, startGatewayApp, type GatewayApp } from './gateway-app.js';

let gw: GatewayApp;
beforeAll(async () => {
  gw = await startGatewayApp();
});
afterAll(async () => gw?.close());

describe('gateway plugin', () => {
  it('documents every gateway route in /openapi.json', async () => {
    const res = await gw.api.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const paths = Object.keys(res.json().paths);
    for (const route of [
      '/api/models',
      '/api/models/{model_name}',
      '/api/mcp/config',
      '/api/skills',
      '/api/skills/{skill_name}',
      '/api/skills/{skill_name}/enable',
      '/api/skills/{skill_name}/disable',
      '/api/skills/install',
      '/api/threads/{thread_id}/uploads',
      '/api/threads/{thread_id}/uploads/list',
      '/api/threads/{thread_id}/uploads/{filename}',
      '/api/threads/{thread_id}',
    ]) {
      expect(paths).toContain(route);
    }
    expect(paths.some((p) => p.startsWith('/api/threads/{thread_id}/artifacts/'))).toBe(true);
  });

  it('documents 507 on the routes that write files, and only there', async () => {
    const { paths } = (await gw.api.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const writes = [
      ['/api/threads/{thread_id}/uploads', 'post'],
      ['/api/threads/{thread_id}/uploads/{filename}', 'delete'],
      ['/api/skills/install', 'post'],
      ['/api/skills/{skill_name}/enable', 'post'],
      ['/api/skills/{skill_name}/disable', 'post'],
      ['/api/mcp/config', 'put'],
    ] as const;
    for (const [route, method] of writes) expect(paths[route][method].responses, `${method} ${route}`).toHaveProperty('507');
    for (const [route, method] of [['/api/threads/{thread_id}/uploads/list', 'get'], ['/api/skills/{skill_name}', 'get']] as const) {
      expect(paths[route][method].responses, `${method} ${route}`).not.toHaveProperty('507');
    }
  });

  it('accepts multipart only inside the gateway', async () => {
    const body = await multipart([{ field: 'files', name: 'a.txt', data: 'x' }]);
    const res = await gw.api.app.inject({ method: 'POST', url: '/api/langgraph/threads', ...body });
    expect(res.statusCode).toBe(415);
    expect(res.json().detail).toBeTruthy();
  });

  it('answers a URL with malformed percent-encoding with 400 {detail}', async () => {
    const res = await gw.api.app.inject({ method: 'GET', url: '/api/models/%E0%A4%A' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ detail: 'The URL is not validly percent-encoded.' });
  });
});
