// The outbound guard checks every redirect again (issue 19). A redirect can only be tested from a
// first hop the guard counts as public, so the client runs in a network namespace of its own, where
// a public address (93.184.215.14) sits on the loopback device: its server there redirects to
// 127.0.0.1, and the guard must refuse that second hop before connecting. Needs root (to make the
// namespace), as CI and this project's machines have.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { buildDist, ROOT } from '../support/cluster.js';
import { trackedDir } from '../support/leftovers.js';

const PUBLIC = '93.184.215.14';
const dir = trackedDir(mkdtempSync(path.join(tmpdir(), 'warren-redirect-')));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `script` with Node in a fresh network namespace; answers what it printed as JSON. */
async function inNamespace(script: string): Promise<Record<string, string>> {
  const file = path.join(dir, `probe-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(file, script);
  const setup = `ip link set lo up && ip addr add ${PUBLIC}/32 dev lo && exec "${process.execPath}" "${file}"`;
  const child = spawn('unshare', ['-n', 'sh', '-c', setup], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`the probe exited ${code}: ${err}`);
  return JSON.parse(out) as Record<string, string>;
}

const probe = (guardModule: string) => `
import { createServer } from 'node:http';
import { guardedFetch } from ${JSON.stringify(guardModule)};
const listen = (server, host) => new Promise((resolve) => server.listen(0, host, () => resolve(server.address().port)));
let loopbackHits = 0;
const inside = createServer((_req, res) => { loopbackHits += 1; res.end('secret'); });
const insidePort = await listen(inside, '127.0.0.1');
const bouncer = createServer((req, res) => {
  if (req.url === '/plain') return res.end('public page');
  res.writeHead(302, { location: 'http://127.0.0.1:' + insidePort + '/' }).end();
});
const publicPort = await listen(bouncer, ${JSON.stringify(PUBLIC)});
const guarded = guardedFetch({ what: 'the probe' });
const result = {};
result.plain = await (await guarded('http://${PUBLIC}:' + publicPort + '/plain')).text();
try {
  await guarded('http://${PUBLIC}:' + publicPort + '/bounce');
  result.bounce = 'followed';
} catch (err) {
  result.bounce = String(err.message);
}
result.loopbackHits = String(loopbackHits);
process.stdout.write(JSON.stringify(result));
inside.close();
bouncer.close();
`;

const canMakeNamespaces = (() => {
  try {
    execFileSync('unshare', ['-n', 'true'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe('redirects through the outbound guard', () => {
  it.runIf(canMakeNamespaces)('follows a public page, and refuses a redirect from it to loopback before connecting', async () => {
    buildDist();
    const result = await inNamespace(probe(pathToFileURL(path.join(ROOT, 'dist', 'src', 'net', 'outbound-guard.js')).href));
    expect(result.plain).toBe('public page');
    expect(result.bounce).toMatch(/127\.0\.0\.1 is a local or private address; the probe only reaches public hosts/);
    expect(result.loopbackHits).toBe('0');
  });
});
