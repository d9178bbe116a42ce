// Two API processes from dist/ on the test Redis and one WARREN_HOME, as two replicas behind
// nginx would be. Concurrent read-modify-writes of extensions_config.json (skills' enabled state
// beside MCP PUTs) and of one thread's uploads index are sent half to each, and none may be lost.
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { buildDist, ROOT, startApiReplicas, type ApiReplicas } from '../support/cluster.js';
import { skillMd } from './zip-writer.js';

const SKILLS = Array.from({ length: 40 }, (_, i) => `skill-${i}`);
const MCP_PUTS = 10;
const UPLOADS = 12;

let home: string;
let replicas: ApiReplicas;
beforeAll(async () => {
  buildDist();
  home = mkdtempSync(path.join(tmpdir(), 'warren-shared-writes-'));
  for (const name of SKILLS) {
    const dir = path.join(home, 'skills', 'public', name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'SKILL.md'), skillMd({ name, description: `The ${name} skill.`, license: 'MIT' }));
  }
  const configFile = path.join(home, 'config.yaml');
  writeFileSync(configFile, stringify({ skills: { path: './skills' } }));
  replicas = await startApiReplicas({ apis: 2, redisUrl: inject('redisUrl'), home, configFile });
}, 120_000);
afterAll(async () => {
  await replicas?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

/** The replica that serves request `i`: alternately one and the other. */
const replica = (i: number) => replicas.urls[i % replicas.urls.length] as string;

const send = (method: 'PUT' | 'POST', url: string, body?: unknown) =>
  fetch(url, body === undefined ? { method } : { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

function upload(base: string, threadId: string, name: string, data: Buffer) {
  const form = new FormData();
  form.append('files', new Blob([data]), name);
  return fetch(`${base}/api/threads/${threadId}/uploads`, { method: 'POST', body: form });
}

async function bodies(responses: Response[]): Promise<unknown[]> {
  const out = await Promise.all(responses.map(async (r) => ({ status: r.status, body: (await r.json()) as unknown })));
  for (const r of out) expect(r, JSON.stringify(r.body)).toMatchObject({ status: 200 });
  return out.map((r) => r.body);
}

describe('no shared state outside Redis (item 3): read-modify-writes across two API replicas', () => {
  it('loses no skill toggle and no MCP document when both replicas edit extensions_config.json at once', async () => {
    const mcpDocument = (j: number) => ({ [`server-${j}`]: { type: 'http' as const, url: `http://127.0.0.1:9/mcp/${j}` } });
    await bodies(
      await Promise.all([
        ...SKILLS.map((name, i) => send('POST', `${replica(i)}/api/skills/${name}/disable`)),
        ...Array.from({ length: MCP_PUTS }, (_, j) => send('PUT', `${replica(j)}/api/mcp/config`, { mcpServers: mcpDocument(j) })),
      ]),
    );

    const stored = JSON.parse(readFileSync(path.join(home, 'extensions_config.json'), 'utf8')) as Record<string, unknown>;
    // Each PUT of a skill read the file, changed one entry and wrote it back: all must be there.
    expect(stored.skills).toEqual(Object.fromEntries(SKILLS.map((name) => [name, { enabled: false }])));
    // An MCP PUT replaces the servers whole, so exactly one of the documents sent is stored.
    const candidates = Array.from({ length: MCP_PUTS }, (_, j) =>
      Object.fromEntries(Object.entries(mcpDocument(j)).map(([name, server]) => [name, { ...server, enabled: true }])),
    );
    expect(candidates).toContainEqual(stored.mcpServers);
    for (const base of replicas.urls) {
      const list = (await (await fetch(`${base}/api/skills`)).json()) as { skills: { name: string; enabled: boolean }[] };
      expect(list.skills.filter((s) => s.enabled).map((s) => s.name)).toEqual([]);
    }
  });

  it('names conversions by the rule whichever replica takes which document first', async () => {
    const threadId = randomUUID();
    const fixture = (name: string) => readFileSync(path.join(ROOT, 'test', 'fixtures', 'gateway', name));
    const sent = await Promise.all([upload(replica(0), threadId, 'report.docx', fixture('report.docx')), upload(replica(1), threadId, 'report.pdf', fixture('report.pdf'))]);
    expect(sent.map((r) => r.status)).toEqual([200, 200]);
    // Both share the stem, so both are <filename>.md, however the two requests interleaved.
    const index = JSON.parse(readFileSync(path.join(home, 'threads', threadId, 'uploads-index.json'), 'utf8')) as { conversions: unknown };
    expect(index.conversions).toEqual({ 'report.docx.md': 'report.docx', 'report.pdf.md': 'report.pdf' });
    const list = (await (await fetch(`${replica(1)}/api/threads/${threadId}/uploads/list`)).json()) as { files: { filename: string }[] };
    expect(list.files.map((f) => f.filename).sort()).toEqual(['report.docx', 'report.docx.md', 'report.pdf', 'report.pdf.md']);
  });

  it('loses no entry of the uploads index when both replicas take uploads for one thread at once', async () => {
    const threadId = randomUUID();
    const document = readFileSync(path.join(ROOT, 'test', 'fixtures', 'gateway', 'report.docx'));
    const results = (await bodies(
      await Promise.all(Array.from({ length: UPLOADS }, (_, i) => upload(replica(i), threadId, `doc-${i}.docx`, document))),
    )) as { files: { filename: string; markdown_file?: string }[] }[];
    expect(results.map((r) => r.files.map((f) => [f.filename, f.markdown_file]))).toEqual(
      Array.from({ length: UPLOADS }, (_, i) => [[`doc-${i}.docx`, `doc-${i}.md`]]),
    );

    const index = JSON.parse(readFileSync(path.join(home, 'threads', threadId, 'uploads-index.json'), 'utf8')) as { conversions: unknown };
    expect(index.conversions).toEqual(Object.fromEntries(Array.from({ length: UPLOADS }, (_, i) => [`doc-${i}.md`, `doc-${i}.docx`])));
    const expected = Array.from({ length: UPLOADS }, (_, i) => [`doc-${i}.docx`, `doc-${i}.md`]).flat().sort();
    for (const base of replicas.urls) {
      const list = (await (await fetch(`${base}/api/threads/${threadId}/uploads/list`)).json()) as { files: { filename: string }[] };
      expect(list.files.map((f) => f.filename).sort()).toEqual(expected);
    }
  });
});
