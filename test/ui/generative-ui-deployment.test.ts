// Generative UI (#32) in the production topology: two API processes and two workers from dist/
// behind deploy/nginx.conf, which forwards only /api/. Each API process bundles the fixture's
// components at its start; through nginx, the snippet points under /api/langgraph and the files
// load from there, the same bytes whichever replica nginx picks.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDist, startCluster, type Cluster } from '../support/cluster.js';

const PROJECT = fileURLToPath(new URL('../fixtures/langgraph-ui/langgraph.json', import.meta.url));

let cluster: Cluster;
beforeAll(async () => {
  buildDist();
  cluster = await startCluster({ apis: 2, workers: 2, config: { langgraph_json: PROJECT } });
}, 240_000);
afterAll(async () => cluster?.stop(), 60_000);

describe('generative UI behind nginx', () => {
  it('answers the snippet under /api/langgraph, and serves its files from there, from both API processes', async () => {
    const res = await fetch(`${cluster.url}/api/langgraph/ui/agent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/html' },
      body: JSON.stringify({ name: 'weather' }),
    });
    expect(res.status).toBe(200);
    const html = await res.text();
    // The host is what nginx passes on (`$host`); the paths are what the page fetches.
    const paths = [...html.matchAll(/(?:href|src)="(?:http:)?\/\/[^/"]+(\/[^"]+)"/g)].map((m) => m[1]);
    expect(paths).toEqual(['/api/langgraph/ui/agent/entrypoint.css', '/api/langgraph/ui/agent/entrypoint.js']);
    for (const file of paths) {
      const viaNginx = await fetch(`${cluster.url}${file}`);
      expect(viaNginx.status).toBe(200);
      const bytes = await viaNginx.text();
      // Each API process built its own bundle: the same bytes.
      for (const api of cluster.apis) expect(await (await fetch(`http://127.0.0.1:${api.port}${file}`)).text()).toBe(bytes);
    }
    // Only /api/ reaches Warren through nginx: the root routes answer on the API processes alone.
    expect((await fetch(`http://127.0.0.1:${cluster.apis[1]?.port}/ui/agent/entrypoint.js`)).status).toBe(200);
    expect((await fetch(`${cluster.url}/ui/agent/entrypoint.js`)).status).toBe(404);
  });
});
