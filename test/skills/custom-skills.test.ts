// DeerFlow's custom skill editor (issue #30), through HTTP on 2 API replicas and 2 workers:
// GET /api/skills/custom, GET/PUT/DELETE /api/skills/custom/{name}, GET …/history and POST
// …/rollback, with the field names, types and statuses of DeerFlow's pydantic models
// (SkillResponse, CustomSkillContentResponse, CustomSkillHistoryResponse, SkillRollbackRequest;
// f1f4af99b). The flow: install a skill, edit it twice on alternating replicas, read its
// history, roll back, and watch the lead agent in a worker load the rolled-back SKILL.md, both
// in its prompt and by reading the file. Edits racing on both replicas stay one unbroken chain.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDist, startCluster, type Cluster } from '../support/cluster.js';
import { startScriptedOpenAI, type ChatRequest, type ScriptedOpenAI, type ScriptedReply } from '../support/scripted-openai.js';
import { buildZip, skillMd } from '../gateway/zip-writer.js';
import { expectDetail, replicaApi } from '../support/replica-api.js';

const KEYS = { alice: 'alice-key-0123456789abcdef', admin: 'admin-key-0123456789abcdef' } as const;
type Who = keyof typeof KEYS;
const SKILL = 'report-writer';
const SKILL_PATH = `/mnt/skills/custom/${SKILL}/SKILL.md`;

const version = (n: number) => skillMd({ name: SKILL, description: `Writes reports, version ${n}.` }, `# Report writer v${n}\n\nMarker-${n}: follow these steps.\n`);

let llm: ScriptedOpenAI;
let cluster: Cluster;
let replicas: string[];
const { call, callOn, ok, next } = replicaApi(KEYS, () => replicas, '/api');

/** The lead agent reads the skill's file when asked to, then answers. */
function answer(request: ChatRequest): ScriptedReply {
  const last = request.messages.at(-1);
  const canRead = request.tools?.some((t) => t.function.name === 'read_file') ?? false;
  if (canRead && last?.role === 'user') return { tool_calls: [{ name: 'read_file', args: { description: 'Read the skill', path: SKILL_PATH } }] };
  return { content: 'Done.' };
}

beforeAll(async () => {
  buildDist();
  llm = await startScriptedOpenAI(answer);
  cluster = await startCluster({
    apis: 2,
    workers: 2,
    config: {
      models: [{ name: 'scripted', use: 'openai', model: 'scripted-1', base_url: llm.url, api_key: 'test-key' }],
      // Beside config.yaml, in the cluster's own folder, shared by every process.
      skills: { path: './skills' },
      title: { enabled: false },
      auth: { api_keys: [{ key: KEYS.alice, user: 'alice' }, { key: KEYS.admin, user: 'ops', role: 'admin' }] },
    },
  });
  replicas = cluster.apis.map((api) => `http://127.0.0.1:${api.port}`);
  // A shipped skill, which the editor must refuse to touch.
  const shipped = path.join(cluster.home, 'skills', 'public', 'shipped-skill');
  mkdirSync(shipped, { recursive: true });
  writeFileSync(path.join(shipped, 'SKILL.md'), skillMd({ name: 'shipped-skill', description: 'Ships with Warren.' }));
}, 240_000);
afterAll(async () => {
  await cluster?.stop();
  await llm?.close();
}, 60_000);


async function install(name: string, manifest: string, base = next()): Promise<void> {
  const form = new FormData();
  form.append('file', new Blob([buildZip([{ name: `${name}/SKILL.md`, data: manifest }])]), `${name}.skill`);
  const res = await fetch(`${base}/api/skills/install`, { method: 'POST', headers: { 'x-api-key': KEYS.admin }, body: form });
  expect(res.status, await res.clone().text()).toBe(200);
}

/** DeerFlow's SkillResponse fields, plus Warren's display_name and path. */
const SKILL_KEYS = ['category', 'description', 'display_name', 'editable', 'enabled', 'license', 'name', 'path'];
const REVISION_KEYS = ['action', 'author', 'file_path', 'new_content', 'prev_content', 'revision', 'thread_id', 'ts'];

function expectContent(body: any, content: string): void {
  expect(Object.keys(body).sort()).toEqual([...SKILL_KEYS, 'content'].sort());
  expect(body).toMatchObject({ name: SKILL, category: 'custom', editable: true, enabled: true, content });
  expect(typeof body.license).toBe('string');
}

/** Each revision's prev_content is the one before's new_content, numbered 1, 2, 3… */
function expectChain(history: any[]): void {
  history.forEach((entry, i) => {
    expect(entry.revision).toBe(i + 1);
    expect(Number.isNaN(Date.parse(entry.ts))).toBe(false);
    if (i > 0) expect(entry.prev_content).toBe(history[i - 1].new_content);
  });
}

describe('custom skill: install, edit twice, history, rollback, and the agent loads the rolled-back version (issue #30)', () => {
  it('runs the whole flow across both replicas and a worker', async () => {
    await install(SKILL, version(1));
    const listed = await ok('alice', 'GET', '/skills/custom');
    expect(Object.keys(listed)).toEqual(['skills']);
    expect(listed.skills.map((s: any) => s.name)).toEqual([SKILL]);
    expect(Object.keys(listed.skills[0]).sort()).toEqual(SKILL_KEYS);
    // The full list marks custom skills editable, shipped ones not.
    const all = (await ok('alice', 'GET', '/skills')).skills;
    expect(all.find((s: any) => s.name === 'shipped-skill')).toMatchObject({ category: 'public', editable: false });
    expect(all.find((s: any) => s.name === SKILL)).toMatchObject({ category: 'custom', editable: true });

    expectContent(await ok('admin', 'GET', `/skills/custom/${SKILL}`), version(1));
    expectContent(await ok('admin', 'PUT', `/skills/custom/${SKILL}`, { content: version(2) }), version(2));
    expectContent(await ok('admin', 'PUT', `/skills/custom/${SKILL}`, { content: version(3) }), version(3));
    expect(readFileSync(path.join(cluster.home, 'skills', 'custom', SKILL, 'SKILL.md'), 'utf8')).toBe(version(3));

    const { history } = await ok('admin', 'GET', `/skills/custom/${SKILL}/history`);
    expect(history.map((h: any) => h.action)).toEqual(['install', 'human_edit', 'human_edit']);
    for (const entry of history) expect(Object.keys(entry).sort()).toEqual(REVISION_KEYS);
    expect(history[0]).toMatchObject({ prev_content: null, new_content: version(1), author: 'human', thread_id: null, file_path: 'SKILL.md' });
    expect(history[2]).toMatchObject({ prev_content: version(2), new_content: version(3) });
    expectChain(history);

    // DeerFlow's default undoes the latest entry: version 2 is back, as revision 4.
    expectContent(await ok('admin', 'POST', `/skills/custom/${SKILL}/rollback`, {}), version(2));
    const after = (await ok('admin', 'GET', `/skills/custom/${SKILL}/history`)).history;
    expect(after).toHaveLength(4);
    expect(after[3]).toMatchObject({ revision: 4, action: 'rollback', prev_content: version(3), new_content: version(2), rollback_from_ts: history[2].ts, rollback_from_revision: 3 });
    expectChain(after);

    // The next run, on whichever worker takes it, is told of version 2 and reads version 2.
    const thread = await ok('alice', 'POST', '/langgraph/threads', {});
    const before = llm.requests.length;
    await ok('alice', 'POST', `/langgraph/threads/${thread.thread_id}/runs/wait`, {
      assistant_id: 'lead_agent',
      input: { messages: [{ role: 'user', content: 'Write the report.' }] },
      config: { configurable: { model_name: 'scripted' } },
    });
    const seen = llm.requests.slice(before).filter((r) => r.tools?.some((t) => t.function.name === 'read_file'));
    const system = String(seen[0]?.messages[0]?.content);
    expect(system).toContain('Writes reports, version 2.');
    expect(system).not.toContain('version 3');
    const toolResult = seen.at(-1)?.messages.find((m) => m.role === 'tool');
    expect(String(toolResult?.content)).toContain('Marker-2');
    expect(String(toolResult?.content)).not.toContain('Marker-3');
  }, 120_000);

  it('rolls back a chosen entry by index, negative counting from the end', async () => {
    const { history } = await ok('admin', 'GET', `/skills/custom/${SKILL}/history`);
    // Entry 1 (the first edit) had version 1 before it.
    expectContent(await ok('admin', 'POST', `/skills/custom/${SKILL}/rollback`, { history_index: 1 }), version(1));
    expectContent(await ok('admin', 'POST', `/skills/custom/${SKILL}/rollback`, { history_index: -1 }), version(2));
    expectDetail(await call('admin', 'POST', `/skills/custom/${SKILL}/rollback`, { history_index: history.length + 5 }), 400, 'history_index is out of range');
    expectDetail(await call('admin', 'POST', `/skills/custom/${SKILL}/rollback`, { history_index: 0 }), 400, 'Selected history entry has no previous content to roll back to');
    expectDetail(await call('admin', 'POST', `/skills/custom/${SKILL}/rollback`, { history_index: 'last' }), 422);
    expectDetail(await call('admin', 'POST', `/skills/custom/${SKILL}/rollback`, { history_index: -1, extra: true }), 422);
  });

  it('deletes a skill, keeps its history, and brings it back by rollback', async () => {
    const before = await ok('admin', 'GET', `/skills/custom/${SKILL}`);
    expect(await ok('admin', 'DELETE', `/skills/custom/${SKILL}`)).toEqual({ success: true });
    expectDetail(await call('admin', 'GET', `/skills/custom/${SKILL}`), 404, `Custom skill '${SKILL}' not found`);
    expect((await ok('alice', 'GET', '/skills/custom')).skills).toEqual([]);
    expect(readdirSync(path.join(cluster.home, 'skills', 'custom'))).toEqual([]);
    const { history } = await ok('admin', 'GET', `/skills/custom/${SKILL}/history`);
    expect(history.at(-1)).toMatchObject({ action: 'human_delete', prev_content: before.content, new_content: null });
    expectDetail(await call('admin', 'PUT', `/skills/custom/${SKILL}`, { content: version(9) }), 404);
    expectContent(await ok('admin', 'POST', `/skills/custom/${SKILL}/rollback`, {}), before.content);
    expect((await ok('alice', 'GET', '/skills/custom')).skills.map((s: any) => s.name)).toEqual([SKILL]);
  });

  it('keeps one unbroken chain when both replicas edit at once', async () => {
    const start = (await ok('admin', 'GET', `/skills/custom/${SKILL}/history`)).history.length;
    const edits = Array.from({ length: 8 }, (_, i) => version(100 + i));
    const answers = await Promise.all(edits.map((content) => call('admin', 'PUT', `/skills/custom/${SKILL}`, { content })));
    for (const res of answers) expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { history } = await ok('admin', 'GET', `/skills/custom/${SKILL}/history`);
    expect(history).toHaveLength(start + edits.length);
    expectChain(history);
    expect(history.slice(start).map((h: any) => h.new_content).sort()).toEqual([...edits].sort());
    // The file holds the last revision's content.
    expect(readFileSync(path.join(cluster.home, 'skills', 'custom', SKILL, 'SKILL.md'), 'utf8')).toBe(history.at(-1).new_content);
  });
});

describe('a change through one replica is what the other reads next (issue #30)', () => {
  // Seen once under load: a skill installed through one replica was "not found" through the
  // other. Skills live in the deployment's folder and their history in Redis, with no copy kept
  // in a process; the replica that answered was another test file's API process, which had taken
  // the port freePort gave ours (test/support/cluster.ts now checks who answers).
  it('has each replica answered by its own process of this deployment', async () => {
    const names = await Promise.all(replicas.map(async (base) => (await fetch(`${base}/ok`)).headers.get('x-warren-instance')));
    expect(names).toEqual(cluster.apis.map((api) => api.name));
    expect(new Set(names).size).toBe(replicas.length);
  });

  it('install, edit and delete on one replica, each read on the other at once, many times over', async () => {
    for (let i = 0; i < 10; i++) {
      const name = `echo-skill-${i}`;
      const [writer, reader] = i % 2 === 0 ? [0, 1] : [1, 0];
      const manifest = (n: number) => skillMd({ name, description: `Echo ${i}, version ${n}.` });
      await install(name, manifest(1), replicas[writer]);
      const read = await callOn(reader, 'admin', 'GET', `/skills/custom/${name}`);
      expect(read.status, JSON.stringify(read.body)).toBe(200);
      expect(read.body.content).toBe(manifest(1));
      expect((await callOn(reader, 'alice', 'GET', '/skills/custom')).body.skills.map((s: any) => s.name)).toContain(name);
      expect((await callOn(reader, 'alice', 'GET', `/skills/${name}`)).status).toBe(200);

      expect((await callOn(reader, 'admin', 'PUT', `/skills/custom/${name}`, { content: manifest(2) })).status).toBe(200);
      expect((await callOn(writer, 'admin', 'GET', `/skills/custom/${name}`)).body.content).toBe(manifest(2));
      expect((await callOn(writer, 'admin', 'GET', `/skills/custom/${name}/history`)).body.history.map((h: any) => h.action)).toEqual(['install', 'human_edit']);

      expect((await callOn(writer, 'admin', 'DELETE', `/skills/custom/${name}`)).status).toBe(200);
      expectDetail(await callOn(reader, 'admin', 'GET', `/skills/custom/${name}`), 404, `Custom skill '${name}' not found`);
      expect((await callOn(reader, 'alice', 'GET', '/skills/custom')).body.skills.map((s: any) => s.name)).not.toContain(name);
    }
  });
});

describe('refusals, in DeerFlow statuses with {detail}', () => {
  it('validates the new SKILL.md as DeerFlow does: front matter, and a name that is the skill\'s', async () => {
    expectDetail(await call('admin', 'PUT', `/skills/custom/${SKILL}`, { content: '# no front matter' }), 400, /front matter/);
    expectDetail(
      await call('admin', 'PUT', `/skills/custom/${SKILL}`, { content: skillMd({ name: 'other-name', description: 'x' }) }),
      400,
      `Frontmatter name 'other-name' must match requested skill name '${SKILL}'.`,
    );
    expectDetail(await call('admin', 'PUT', `/skills/custom/${SKILL}`, { content: skillMd({ name: SKILL, description: 'x', color: 'red' }) }), 400, /color/);
    expectDetail(await call('admin', 'PUT', `/skills/custom/${SKILL}`, { content: skillMd({ name: SKILL, description: 'a <b> tag' }) }), 400, /< or >/);
    expectDetail(await call('admin', 'PUT', `/skills/custom/${SKILL}`, {}), 422);
    expectDetail(await call('admin', 'PUT', `/skills/custom/${SKILL}`, { content: 'x', enabled: true }), 422);
  });

  it('refuses a shipped skill (400), an unknown one (404) and a bad name (400)', async () => {
    expectDetail(await call('admin', 'PUT', '/skills/custom/shipped-skill', { content: skillMd({ name: 'shipped-skill', description: 'x' }) }), 400, /built-in skill/);
    expectDetail(await call('admin', 'DELETE', '/skills/custom/shipped-skill'), 400, /built-in skill/);
    expectDetail(await call('admin', 'GET', '/skills/custom/shipped-skill'), 404, "Custom skill 'shipped-skill' not found");
    expectDetail(await call('admin', 'GET', '/skills/custom/no-such-skill/history'), 404, "Custom skill 'no-such-skill' not found");
    expectDetail(await call('admin', 'POST', '/skills/custom/no-such-skill/rollback', {}), 404);
    expectDetail(await call('admin', 'GET', '/skills/custom/Bad_Name'), 400, /hyphen-case/);
  });

  it('answers 400 "has no history" for a skill placed in the folder by hand', async () => {
    const folder = path.join(cluster.home, 'skills', 'custom', 'by-hand');
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, 'SKILL.md'), skillMd({ name: 'by-hand', description: 'Copied in.' }));
    expect(await ok('admin', 'GET', '/skills/custom/by-hand/history')).toEqual({ history: [] });
    expectDetail(await call('admin', 'POST', '/skills/custom/by-hand/rollback', {}), 400, "Custom skill 'by-hand' has no history");
    // Its first edit starts the history.
    await ok('admin', 'PUT', '/skills/custom/by-hand', { content: skillMd({ name: 'by-hand', description: 'Edited.' }) });
    expect((await ok('admin', 'GET', '/skills/custom/by-hand/history')).history.map((h: any) => h.action)).toEqual(['human_edit']);
  });

  it('lets every user list custom skills, and only admins read, edit, delete, or roll them back (403)', async () => {
    expect((await call('alice', 'GET', '/skills/custom')).status).toBe(200);
    expectDetail(await call('alice', 'GET', `/skills/custom/${SKILL}`), 403);
    expectDetail(await call('alice', 'PUT', `/skills/custom/${SKILL}`, { content: version(5) }), 403);
    expectDetail(await call('alice', 'DELETE', `/skills/custom/${SKILL}`), 403);
    expectDetail(await call('alice', 'GET', `/skills/custom/${SKILL}/history`), 403);
    expectDetail(await call('alice', 'POST', `/skills/custom/${SKILL}/rollback`, {}), 403);
    expect((await ok('admin', 'GET', `/skills/custom/${SKILL}`)).name).toBe(SKILL);
  });
});
