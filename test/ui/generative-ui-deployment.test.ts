// Generative UI (#32) in the production topology: two API processes and two workers from dist/
// behind deploy/nginx.conf. Each API process bundles the fixture's components at its start;
// through nginx, the snippet points where it was asked (under /api/langgraph or at the root), at
// nginx's own host and port, and the files load from there, the same bytes whichever replica
// nginx picks.
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
  it('answers the snippet under /api/langgraph and at the root, and serves its files from there, from both API processes', async () => {
    for (const prefix of ['/api/langgraph', '']) {
      const res = await fetch(`${cluster.url}${prefix}/ui/agent`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/html' },
        body: JSON.stringify({ name: 'weather' }),
      });
      expect(res.status).toBe(200);
      const html = await res.text();
      // nginx passes the Host the page sent, port included: the URLs lead back through nginx.
      const urls = [...html.matchAll(/(?:href|src)="([^"]+)"/g)].map((m) => m[1] as string);
      expect(urls).toEqual([`${cluster.url}${prefix}/ui/agent/entrypoint.css`, `${cluster.url}${prefix}/ui/agent/entrypoint.js`]);
      for (const url of urls) {
        const viaNginx = await fetch(url);
        expect(viaNginx.status).toBe(200);
        const bytes = await viaNginx.text();
        // Each API process built its own bundle: the same bytes.
        const file = new URL(url).pathname;
        for (const api of cluster.apis) expect(await (await fetch(`http://127.0.0.1:${api.port}${file}`)).text()).toBe(bytes);
      }
    }
  });
});
