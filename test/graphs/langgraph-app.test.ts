// Issue #32: the one LangGraph.js project with everything (langgraph-app-suite.ts says what it
// has), hosted unchanged through its langgraph.json by two API processes and two workers from
// dist/, behind nginx (deploy/nginx.conf), with API keys on. The same checks run against the same
// project started by `npm start` in langgraph-app-npm-start.test.ts; here each spans both API
// processes, and nginx forwards the project's root routes as well as /api/ (its UI behind nginx:
// test/ui/generative-ui-deployment.test.ts).
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDist, startCluster, type Cluster } from '../support/cluster.js';
import { DEPLOYMENT_KEY, describeLangGraphApp, LANGGRAPH_APP } from './langgraph-app-suite.js';

let cluster: Cluster;
beforeAll(async () => {
  buildDist();
  cluster = await startCluster({ apis: 2, workers: 2, config: { langgraph_json: LANGGRAPH_APP }, env: { WARREN_API_KEYS: DEPLOYMENT_KEY } });
}, 300_000);
afterAll(async () => cluster?.stop(), 60_000);

describeLangGraphApp(() => ({ replicas: cluster.apis.map((api) => `http://127.0.0.1:${api.port}`) }));

describe('behind nginx', () => {
  const authed = { 'x-api-key': DEPLOYMENT_KEY };

  it('forwards the project’s routes under /api/langgraph and at the root', async () => {
    for (const route of ['/api/langgraph/hello', '/hello']) {
      const res = await fetch(`${cluster.url}${route}`, { headers: authed });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ hello: 'world', path: '/hello' });
    }
  });

  it('keeps /metrics off the public entry', async () => {
    expect((await fetch(`${cluster.url}/metrics`)).status).toBe(404);
  });
});
