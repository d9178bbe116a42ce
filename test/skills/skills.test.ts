// /api/skills: list, detail, enable/disable persisted in extensions_config.json, and install of
// .skill archives with every refusal, leaving nothing half-installed.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { RedisClient } from '../../src/store/redis.js';
import { connectTestRedis } from '../support/test-redis.js';
import { afterAll, beforeAll, describe, expect, inject as provided, it } from 'vitest';
import { PROJECT_SKILLS_DIR } from '../../src/config/paths.js';
import { parseSkillManifest } from '../../src/skills/manifest.js';
import { createFileLocks } from '../../src/store/file-locks.js';
import { multipart, startGatewayApp, type GatewayApp } from '../gateway/gateway-app.js';
import { buildZip, deflatedZeros, skillMd, type ZipEntrySpec } from '../gateway/zip-writer.js';
import { keys } from '../../src/store/keys.js';

let gw: GatewayApp;
let subscriber: RedisClient;
let announced = 0;
beforeAll(async () => {
  gw = await startGatewayApp({ withPublicSkills: true });
  subscriber = connectTestRedis(provided('redisUrl'));
  await subscriber.subscribe(keys.configChangedChannel());
  subscriber.on('message', () => announced++);
});
afterAll(async () => {
  subscriber?.disconnect();
  await gw?.close();
});

/** Resolves once a config-changed announcement newer than `since` has arrived. */
async function announcedSince(since: number): Promise<void> {
  const deadline = Date.now() + 5000;
  while (announced <= since) {
    if (Date.now() > deadline) throw new Error('no config-changed announcement');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const inject = (method: 'GET' | 'POST', url: string) => gw.api.app.inject({ method, url });
const customDir = () => path.join(gw.skillsDir, 'custom');
const customEntries = () => (existsSync(customDir()) ? readdirSync(customDir()).sort() : []);

async function install(archive: Buffer, field = 'file', name = 'x.skill') {
  const body = await multipart([{ field, name, data: archive }]);
  return gw.api.app.inject({ method: 'POST', url: '/api/skills/install', ...body });
}

const good = (name: string, extra: Record<string, unknown> = {}) =>
  skillMd({ name, description: `The ${name} skill.`, license: 'MIT', 'allowed-tools': ['read_file'], ...extra });

describe('shipped public skills', () => {
  const shipped = readdirSync(path.join(PROJECT_SKILLS_DIR, 'public'));

  it('ships at least five, each with valid front matter naming its folder', () => {
    expect(shipped.length).toBeGreaterThanOrEqual(5);
    for (const folder of shipped) {
      const manifest = parseSkillManifest(readFileSync(path.join(PROJECT_SKILLS_DIR, 'public', folder, 'SKILL.md'), 'utf8'));
      expect(manifest.name).toBe(folder);
      expect(manifest.license).toBe('MIT');
      expect(manifest.allowedTools.length).toBeGreaterThan(0);
      expect(manifest.content.length).toBeGreaterThan(200);
    }
  });

  it('are listed without allowed_tools and content, enabled by default', async () => {
    const res = await inject('GET', '/api/skills');
    expect(res.statusCode).toBe(200);
    const { skills } = res.json();
    expect(skills.map((s: { name: string }) => s.name).sort()).toEqual([...shipped].sort());
    for (const skill of skills) {
      expect(Object.keys(skill).sort()).toEqual(['category', 'description', 'display_name', 'editable', 'enabled', 'license', 'name', 'path']);
      expect(skill).toMatchObject({ enabled: true, license: 'MIT', category: 'public', path: `public/${skill.name}` });
    }
    expect(skills.find((s: { name: string }) => s.name === 'data-analysis').display_name).toBe('Data Analysis');
  });

  it('show allowed_tools and content in the detail view', async () => {
    const res = await inject('GET', '/api/skills/data-analysis');
    expect(res.statusCode).toBe(200);
    const skill = res.json();
    expect(skill).toMatchObject({ name: 'data-analysis', path: 'public/data-analysis', enabled: true });
    expect(skill.allowed_tools).toEqual(['ls', 'read_file', 'write_file', 'bash']);
    expect(skill.content).toMatch(/^# Data Analysis/);
    expect(skill.content).not.toMatch(/^---/m);
  });

  it('gives 404 for an unknown skill', async () => {
    expect((await inject('GET', '/api/skills/no-such-skill')).statusCode).toBe(404);
    expect((await inject('GET', '/api/skills/no-such-skill')).json()).toEqual({ detail: "Skill 'no-such-skill' not found." });
  });
});

describe('enable and disable', () => {
  it('persists the state in extensions_config.json, announces it, and shows it in list and detail', async () => {
    const since = announced;
    const off = await inject('POST', '/api/skills/deep-research/disable');
    expect(off.statusCode).toBe(200);
    expect(off.json()).toEqual({ success: true, message: "Skill 'deep-research' disabled." });
    expect(JSON.parse(readFileSync(gw.extensionsFile, 'utf8')).skills).toEqual({ 'deep-research': { enabled: false } });
    await announcedSince(since);
    expect((await inject('GET', '/api/skills/deep-research')).json().enabled).toBe(false);
    const listed = (await inject('GET', '/api/skills')).json().skills.find((s: { name: string }) => s.name === 'deep-research');
    expect(listed.enabled).toBe(false);

    const on = await inject('POST', '/api/skills/deep-research/enable');
    expect(on.json()).toEqual({ success: true, message: "Skill 'deep-research' enabled." });
    expect(JSON.parse(readFileSync(gw.extensionsFile, 'utf8')).skills['deep-research']).toEqual({ enabled: true });
  });

  it('answers 503 {detail} while another replica holds extensions_config.json past the wait, writing nothing', async () => {
    const impatient = await startGatewayApp({ withPublicSkills: true, fileLocks: { waitMs: 100 } });
    const redis = connectTestRedis(provided('redisUrl'));
    try {
      const res = await createFileLocks(redis).extensionsConfig.run(() =>
        impatient.api.app.inject({ method: 'POST', url: '/api/skills/deep-research/disable' }),
      );
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ detail: 'Another change to extensions_config.json did not finish within 100 ms; try again.' });
      expect(existsSync(impatient.extensionsFile)).toBe(false);
    } finally {
      await redis.quit();
      await impatient.close();
    }
  });

  it("answers DeerFlow's PUT /skills/{name} {enabled} with the skill, its category included", async () => {
    const off = await gw.api.app.inject({ method: 'PUT', url: '/api/skills/deep-research', payload: { enabled: false } });
    expect(off.statusCode).toBe(200);
    expect(off.json()).toMatchObject({ name: 'deep-research', enabled: false, category: 'public', path: 'public/deep-research' });
    expect(JSON.parse(readFileSync(gw.extensionsFile, 'utf8')).skills['deep-research']).toEqual({ enabled: false });
    const on = await gw.api.app.inject({ method: 'PUT', url: '/api/skills/deep-research', payload: { enabled: true } });
    expect(on.json().enabled).toBe(true);
    expect((await gw.api.app.inject({ method: 'PUT', url: '/api/skills/ghost', payload: { enabled: true } })).statusCode).toBe(404);
    const notBoolean = await gw.api.app.inject({ method: 'PUT', url: '/api/skills/deep-research', payload: { enabled: 'yes' } });
    expect(notBoolean.statusCode).toBe(422);
    const missing = await gw.api.app.inject({ method: 'PUT', url: '/api/skills/deep-research', payload: {} });
    expect(missing.statusCode).toBe(422);
  });

  it('gives 404 for an unknown name and writes nothing', async () => {
    const before = readFileSync(gw.extensionsFile, 'utf8');
    expect((await inject('POST', '/api/skills/ghost/enable')).statusCode).toBe(404);
    expect((await inject('POST', '/api/skills/ghost/disable')).statusCode).toBe(404);
    expect(readFileSync(gw.extensionsFile, 'utf8')).toBe(before);
  });
});

describe('install', () => {
  it('installs an archive with one top folder into custom/<name>, and announces it', async () => {
    const since = announced;
    const archive = buildZip([
      { name: 'pdf-tables/' },
      { name: 'pdf-tables/SKILL.md', data: good('pdf-tables', { display_name: 'PDF Tables' }) },
      { name: 'pdf-tables/scripts/extract.py', data: 'print("hi")\n', mode: 0o100755 },
      { name: 'pdf-tables/reference/notes.md', data: 'notes' },
      { name: '__MACOSX/pdf-tables/._SKILL.md', data: 'junk' },
    ]);
    const res = await install(archive);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      message: "Skill 'pdf-tables' installed.",
      skill_name: 'pdf-tables',
      skill: { name: 'pdf-tables', display_name: 'PDF Tables', path: 'custom/pdf-tables' },
    });
    const dir = path.join(customDir(), 'pdf-tables');
    expect(readFileSync(path.join(dir, 'reference/notes.md'), 'utf8')).toBe('notes');
    expect(statSync(path.join(dir, 'scripts/extract.py')).mode & 0o111).not.toBe(0);
    expect(existsSync(path.join(gw.skillsDir, 'custom', '__MACOSX'))).toBe(false);
    const detail = (await inject('GET', '/api/skills/pdf-tables')).json();
    expect(detail).toMatchObject({ path: 'custom/pdf-tables', enabled: true, allowed_tools: ['read_file'] });
    expect(customEntries()).toEqual(['pdf-tables']);
    await announcedSince(since);
  });

  it('installs a flat archive, and accepts allowed-tools as a comma-separated string', async () => {
    const res = await install(buildZip([{ name: 'SKILL.md', data: good('flat-one', { 'allowed-tools': 'read_file, bash' }) }]));
    expect(res.statusCode).toBe(200);
    expect(res.json().skill).toEqual({ name: 'flat-one', display_name: 'flat-one', path: 'custom/flat-one' });
    expect((await inject('GET', '/api/skills/flat-one')).json().allowed_tools).toEqual(['read_file', 'bash']);
  });

  it('gives 409 for a name that exists, public or custom', async () => {
    const again = await install(buildZip([{ name: 'SKILL.md', data: good('flat-one') }]));
    expect(again.statusCode).toBe(409);
    expect(again.json().detail).toBe("A skill named 'flat-one' already exists.");
    expect((await install(buildZip([{ name: 'SKILL.md', data: good('data-analysis') }]))).statusCode).toBe(409);
  });

  const refusals: [string, ZipEntrySpec[], RegExp][] = [
    ['an absolute path', [{ name: 'SKILL.md', data: good('abs') }, { name: '/etc/cron.d/x', data: 'x' }], /absolute path/],
    ['a drive-letter path', [{ name: 'SKILL.md', data: good('abs') }, { name: 'C:/x', data: 'x' }], /absolute path/],
    ['a .. segment', [{ name: 's/SKILL.md', data: good('dots') }, { name: 's/../../evil', data: 'x' }], /contains "\.\."/],
    ['a backslash', [{ name: 'SKILL.md', data: good('bs') }, { name: '..\\evil', data: 'x' }], /backslash/],
    ['a symlink', [{ name: 'SKILL.md', data: good('link') }, { name: 'passwd', data: '/etc/passwd', mode: 0o120777 }], /symbolic link/],
    ['an encrypted entry', [{ name: 'SKILL.md', data: good('enc') }, { name: 'a', data: 'x', encrypted: true }], /encrypted/],
    ['more than 200 MiB expanded', [{ name: 'SKILL.md', data: good('big') }, { name: 'a', data: 'x', declaredSize: 201 * 1024 * 1024 }], /expands to more than 200 MiB/],
    ['an entry bigger than it says', [{ name: 'SKILL.md', data: good('liar') }, { name: 'a', data: Buffer.alloc(4096), declaredSize: 10 }], /damaged/],
    ['no SKILL.md', [{ name: 'readme.md', data: 'x' }], /SKILL\.md must be at the archive's root/],
    ['two top folders', [{ name: 'a/SKILL.md', data: good('two') }, { name: 'b/x', data: 'x' }], /single top folder/],
    ['no front matter', [{ name: 'SKILL.md', data: '# Just markdown\n' }], /must start with YAML front matter/],
    ['invalid YAML', [{ name: 'SKILL.md', data: skillMd('name: [unclosed\ndescription: x') }], /not valid YAML/],
    ['an unknown front matter key', [{ name: 'SKILL.md', data: good('keys', { version: '1.0' }) }], /unexpected front matter key\(s\) version/],
    ['a name that is not hyphen-case', [{ name: 'SKILL.md', data: good('My_Skill') }], /hyphen-case/],
    ['a name with a double hyphen', [{ name: 'SKILL.md', data: good('a--b') }], /hyphen-case/],
    ['a name over 64 characters', [{ name: 'SKILL.md', data: good('a'.repeat(65)) }], /at most 64/],
    ['a missing name', [{ name: 'SKILL.md', data: skillMd({ description: 'd' }) }], /"name" is missing/],
    ['a missing description', [{ name: 'SKILL.md', data: skillMd({ name: 'nodesc' }) }], /"description" is missing/],
    ['a description over 1024 characters', [{ name: 'SKILL.md', data: good('long', { description: 'x'.repeat(1025) }) }], /longer than 1024/],
    ['a description with angle brackets', [{ name: 'SKILL.md', data: good('angle', { description: 'use <script>' }) }], /may not contain < or >/],
  ];

  it.each(refusals)('refuses %s with 400 and leaves nothing behind', async (_what, entries, detail) => {
    const before = customEntries();
    const res = await install(buildZip(entries));
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(detail);
    expect(customEntries()).toEqual(before);
  });

  it('refuses more than 1,000 entries', async () => {
    const entries: ZipEntrySpec[] = [{ name: 'SKILL.md', data: good('many') }];
    for (let i = 0; i < 1000; i++) entries.push({ name: `f${i}.txt`, data: '', store: true });
    const res = await install(buildZip(entries));
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(/1001 entries, more than the limit of 1000/);
  });

  it('refuses an archive over 50 MiB with 400', async () => {
    const before = customEntries();
    const res = await install(Buffer.alloc(50 * 1024 * 1024 + 1));
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(/larger than 50 MiB/);
    expect(customEntries()).toEqual(before);
  });

  it('refuses a file that is not a zip', async () => {
    const res = await install(Buffer.from('plain text, not a zip'));
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(/not a readable zip file/);
  });

  it('refuses a request without a file part, or with another part name', async () => {
    const fieldOnly = await multipart([{ field: 'file', data: 'not a file' }]);
    const none = await gw.api.app.inject({ method: 'POST', url: '/api/skills/install', ...fieldOnly });
    expect(none.statusCode).toBe(400);
    expect(none.json().detail).toMatch(/No file was sent/);
    const wrong = await install(buildZip([{ name: 'SKILL.md', data: good('wrong-part') }]), 'archive');
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().detail).toMatch(/Unexpected part "archive"/);
  });

  it('refuses a body that is neither multipart nor JSON with 415, and JSON of another shape with 422', async () => {
    const text = await gw.api.app.inject({ method: 'POST', url: '/api/skills/install', payload: 'x', headers: { 'content-type': 'text/plain' } });
    expect(text.statusCode).toBe(415);
    expect(text.json().detail).toMatch(/multipart\/form-data .* or JSON \{thread_id, path\}/);
    const empty = await gw.api.app.inject({ method: 'POST', url: '/api/skills/install' });
    expect(empty.statusCode).toBe(415);
    const wrong = await gw.api.app.inject({ method: 'POST', url: '/api/skills/install', payload: { file: 'x' } });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().detail).toBeTruthy();
  });

  describe("from a thread's files (DeerFlow's JSON form)", () => {
    const threadFile = (threadId: string, area: string, name: string, data: Buffer) => {
      const dir = path.join(gw.home, 'threads', threadId, 'user-data', area);
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, name), data);
    };
    const installFrom = (payload: Record<string, unknown>) =>
      gw.api.app.inject({ method: 'POST', url: '/api/skills/install', payload });

    it("installs a .skill archive the agent wrote to the thread's outputs, with the same answer", async () => {
      threadFile('t-skill', 'outputs', 'made.skill', buildZip([{ name: 'SKILL.md', data: good('agent-made') }]));
      const res = await installFrom({ thread_id: 't-skill', path: '/mnt/user-data/outputs/made.skill' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ success: true, skill_name: 'agent-made', skill: { name: 'agent-made', path: 'custom/agent-made' } });
      expect((await inject('GET', '/api/skills/agent-made')).json()).toMatchObject({ category: 'custom', enabled: true });
      // The thread's file is untouched: the install worked on a copy.
      expect(existsSync(path.join(gw.home, 'threads', 't-skill', 'user-data', 'outputs', 'made.skill'))).toBe(true);
    });

    it('applies the same archive checks, and answers 404 for a missing file and 403 outside the thread', async () => {
      threadFile('t-skill2', 'outputs', 'bad.skill', Buffer.from('not a zip'));
      const bad = await installFrom({ thread_id: 't-skill2', path: '/mnt/user-data/outputs/bad.skill' });
      expect(bad.statusCode).toBe(400);
      threadFile('t-skill2', 'outputs', 'dup.skill', buildZip([{ name: 'SKILL.md', data: good('deep-research') }]));
      expect((await installFrom({ thread_id: 't-skill2', path: '/mnt/user-data/outputs/dup.skill' })).statusCode).toBe(409);
      expect((await installFrom({ thread_id: 't-skill2', path: '/mnt/user-data/outputs/none.skill' })).statusCode).toBe(404);
      const outside = await installFrom({ thread_id: 't-skill2', path: '/mnt/user-data/../../../../etc/passwd' });
      expect([400, 403]).toContain(outside.statusCode);
      expect((await installFrom({ thread_id: '../x', path: '/mnt/user-data/outputs/dup.skill' })).statusCode).toBe(422);
      expect((await installFrom({ thread_id: 't-skill2', path: '/mnt/user-data/outputs/dup.skill', extra: 1 })).statusCode).toBe(422);
    });
  });

  it('skips a skill whose SKILL.md is broken, and lists the rest', async () => {
    mkdirSync(path.join(customDir(), 'broken'), { recursive: true });
    writeFileSync(path.join(customDir(), 'broken', 'SKILL.md'), 'no front matter');
    const res = await inject('GET', '/api/skills');
    expect(res.statusCode).toBe(200);
    const names = res.json().skills.map((s: { name: string }) => s.name);
    expect(names).toContain('pdf-tables');
    expect(names).not.toContain('broken');
  });
});

describe('hostile archives (issue 7)', () => {
  const MiB = 1024 * 1024;

  /** Runs `work` while sampling this process's RSS; returns how far it rose above the start. */
  async function rssRise(work: () => Promise<void>): Promise<number> {
    const start = process.memoryUsage().rss;
    let peak = start;
    const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    try {
      await work();
    } finally {
      clearInterval(timer);
    }
    return Math.max(peak, process.memoryUsage().rss) - start;
  }

  it('refuses a real deflate bomb (300 MiB of zeros in a few hundred KiB) from its declared size, without inflating it', async () => {
    const zeros = await deflatedZeros(300 * MiB);
    const archive = buildZip([{ name: 'SKILL.md', data: good('bomb') }, { name: 'zeros.bin', deflated: zeros }]);
    expect(archive.length).toBeLessThan(1 * MiB);
    const before = customEntries();
    const rise = await rssRise(async () => {
      const res = await install(archive);
      expect(res.statusCode).toBe(400);
      expect(res.json().detail).toMatch(/expands to more than 200 MiB/);
    });
    expect(rise).toBeLessThan(64 * MiB);
    expect(customEntries()).toEqual(before);
  });

  it('stops a deflate bomb that declares a tiny size at that size, and keeps nothing', async () => {
    const zeros = await deflatedZeros(300 * MiB);
    const archive = buildZip([{ name: 'SKILL.md', data: good('liar-bomb') }, { name: 'zeros.bin', deflated: zeros, declaredSize: 1000 }]);
    const before = customEntries();
    const rise = await rssRise(async () => {
      const res = await install(archive);
      expect(res.statusCode).toBe(400);
      expect(res.json().detail).toMatch(/zeros\.bin" is damaged/);
    });
    expect(rise).toBeLessThan(64 * MiB);
    expect(customEntries()).toEqual(before);
  });

  it('adds up the entries: many honest ones over 200 MiB together are refused', async () => {
    const zeros = await deflatedZeros(41 * MiB);
    const entries: ZipEntrySpec[] = [{ name: 'SKILL.md', data: good('many-bombs') }];
    for (let i = 0; i < 5; i++) entries.push({ name: `part${i}.bin`, deflated: zeros });
    const res = await install(buildZip(entries));
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(/expands to more than 200 MiB/);
  });

  it.each([
    ['./../x', /contains "\.\."/],
    ['a/./../../x', /contains "\.\."/],
    ['a/b/../../../x', /contains "\.\."/],
    ['../', /contains "\.\."/],
    ['a/..', /contains "\.\."/],
    ['//etc/x', /absolute path/],
    ['c:x', /absolute path/],
    ['a\\..\\..\\x', /backslash/],
    ['a/\u0000/x', /control characters/],
  ])('refuses the zip-slip name %j', async (name, detail) => {
    const before = customEntries();
    const res = await install(buildZip([{ name: 'SKILL.md', data: good('slip') }, { name, data: 'x' }]));
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(detail);
    expect(customEntries()).toEqual(before);
  });

  it('refuses a symlink disguised as a folder entry, and a name given twice', async () => {
    const link = await install(buildZip([{ name: 'SKILL.md', data: good('dir-link') }, { name: 'etc/', data: '/etc', mode: 0o120777 }]));
    expect(link.statusCode).toBe(400);
    expect(link.json().detail).toMatch(/symbolic link/);
    const twice = await install(buildZip([{ name: 'SKILL.md', data: good('twice') }, { name: 'a.txt', data: 'one' }, { name: 'a.txt', data: 'two' }]));
    expect(twice.statusCode).toBe(400);
    expect(twice.json().detail).toMatch(/appears twice/);
  });

  it('keeps look-alike names and nested archives as plain files inside the skill', async () => {
    const inner = buildZip([{ name: '../../escape.txt', data: 'nested' }]);
    const res = await install(
      buildZip([
        { name: 'SKILL.md', data: good('lookalike') },
        { name: '\uff0e\uff0e/\uff0e\uff0e/x.txt', data: 'odd' },
        { name: '\u2024\u2024/y.txt', data: 'odd' },
        { name: 'inner.zip', data: inner },
      ]),
    );
    expect(res.statusCode).toBe(200);
    const dir = path.join(customDir(), 'lookalike');
    expect(readFileSync(path.join(dir, '\uff0e\uff0e', '\uff0e\uff0e', 'x.txt'), 'utf8')).toBe('odd');
    expect(readFileSync(path.join(dir, '\u2024\u2024', 'y.txt'), 'utf8')).toBe('odd');
    expect(readFileSync(path.join(dir, 'inner.zip')).equals(inner)).toBe(true);
    expect(existsSync(path.join(gw.skillsDir, 'escape.txt'))).toBe(false);
    expect(existsSync(path.join(customDir(), 'escape.txt'))).toBe(false);
  });
});
