// A full disk: every write the API makes for a client (uploads with their conversions and
// index, skill installs, extensions_config.json) answers 507 {detail} naming what it was
// writing, and leaves no temporary file and the previous content as it was. WARREN_HOME is a
// real, small tmpfs, mounted here (tests run as root) and filled to the last block.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/config/paths.js';
import { asStorageError, DiskFullError, errnoCode } from '../../src/errors.js';
import { mountSmallDisk, type SmallDisk } from '../support/full-disk.js';
import { multipart, startGatewayApp, type GatewayApp } from './gateway-app.js';
import { buildZip, skillMd } from './zip-writer.js';

let disk: SmallDisk;
let gw: GatewayApp;

beforeAll(async () => {
  disk = mountSmallDisk('disk-full');
  gw = await startGatewayApp({ home: disk.dir, withPublicSkills: true });
});

afterAll(async () => {
  try {
    await gw?.close();
  } finally {
    disk?.remove();
  }
});

const home = () => gw.home;
const whileFull = <T>(spare: number, body: () => Promise<T>) => disk.whileFull(spare, body);

/** Every name under `dir`, recursively, relative to it (temporary names included). */
function tree(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
}

/** A snapshot of every file under `dir` with its content, to compare before and after. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (name.isFile()) out[path.relative(dir, path.join(name.parentPath, name.name))] = readFileSync(path.join(name.parentPath, name.name), 'base64');
  }
  return out;
}

const insufficient = (what: string, where?: string) => ({
  detail: `Insufficient storage: ${where ? `the disk holding ${where}` : 'the disk'} is full while writing ${what}.`,
});

describe('uploads on a full disk', () => {
  const threadDir = (id: string) => path.join(home(), 'threads', id);
  const upload = async (id: string, ...specs: [string, string | Buffer][]) =>
    gw.api.app.inject({
      method: 'POST',
      url: `/api/threads/${id}/uploads`,
      ...(await multipart(specs.map(([name, data]) => ({ field: 'files', name, data })))),
    });
  const document = (dir: string, name: string) => readFileSync(path.join(PROJECT_ROOT, 'test/fixtures', dir, name));

  it('answers 507 naming the upload, keeps nothing of the request and the earlier version intact', async () => {
    const id = randomUUID();
    expect((await upload(id, ['notes.txt', 'first version'])).statusCode).toBe(200);
    const before = snapshot(threadDir(id));

    // One block is left: the first file of the request fits, the second does not.
    const res = await whileFull(1, () => upload(id, ['new.txt', 'fits'], ['notes.txt', 'second version']));
    expect(res.statusCode).toBe(507);
    expect(res.json()).toEqual(insufficient('the upload notes.txt', 'WARREN_HOME'));
    expect(snapshot(threadDir(id))).toEqual(before);
    expect(tree(threadDir(id))).toEqual(['uploads-index.json', 'user-data', 'user-data/uploads', 'user-data/uploads/notes.txt']);

    // Once there is room again the same request goes through.
    expect((await upload(id, ['new.txt', 'fits'], ['notes.txt', 'second version'])).statusCode).toBe(200);
  });

  it('answers 507 naming the conversion when its Markdown does not fit, and keeps the earlier document', async () => {
    const id = randomUUID();
    const first = await upload(id, ['report.docx', document('gateway', 'report.docx')]);
    expect(first.json().files[0]).toMatchObject({ markdown_file: 'report.md' });
    const before = snapshot(threadDir(id));

    // Room for the new upload itself, none for its Markdown.
    const replacement = document('documents', 'sample.docx');
    const res = await whileFull(disk.blocksFor(replacement.length), () => upload(id, ['report.docx', replacement]));
    expect(res.statusCode).toBe(507);
    expect(res.json()).toEqual(insufficient('the Markdown conversion report.md', 'WARREN_HOME'));
    expect(snapshot(threadDir(id))).toEqual(before);
  });

  it('answers 507 naming the uploads index when only the upload fits, and keeps nothing of it', async () => {
    const id = randomUUID();
    expect((await upload(id, ['kept.txt', 'earlier'])).statusCode).toBe(200);
    const before = snapshot(threadDir(id));

    const res = await whileFull(1, () => upload(id, ['late.txt', 'one block']));
    expect(res.statusCode).toBe(507);
    expect(res.json()).toEqual(insufficient('the uploads index', 'WARREN_HOME'));
    expect(snapshot(threadDir(id))).toEqual(before);
    expect(tree(threadDir(id))).not.toContainEqual(expect.stringContaining('late.txt'));
  });

  it('answers 507 when not even a folder can be created (no inode left)', async () => {
    const spares = path.join(home(), 'inodes');
    const id = randomUUID();
    try {
      // Use up every inode (the disk has a few hundred): empty files need no block, only an inode.
      mkdirSync(spares);
      for (let i = 0; ; i++) {
        try {
          writeFileSync(path.join(spares, String(i)), '');
        } catch (err) {
          if (errnoCode(err) !== 'ENOSPC') throw err;
          break;
        }
      }
      const res = await upload(id, ['a.txt', 'a']);
      expect(res.statusCode).toBe(507);
      expect(res.json()).toEqual(insufficient('a file for this request'));
    } finally {
      rmSync(spares, { recursive: true, force: true });
    }
    expect(existsSync(path.join(threadDir(id), 'user-data', 'uploads'))).toBe(false);
  });
});

describe('skill installs on a full disk', () => {
  const customDir = () => path.join(gw.skillsDir, 'custom');
  const skill = (name: string) => buildZip([{ name: 'SKILL.md', data: skillMd({ name, description: `The ${name} skill.`, license: 'MIT' }) }]);
  const install = async (archive: Buffer) =>
    gw.api.app.inject({ method: 'POST', url: '/api/skills/install', ...(await multipart([{ field: 'file', name: 'x.skill', data: archive }])) });

  it('answers 507 naming the archive, and leaves no work folder beside the installed skills', async () => {
    expect((await install(skill('kept-skill'))).statusCode).toBe(200);
    const before = snapshot(customDir());

    const res = await whileFull(0, () => install(skill('late-skill')));
    expect(res.statusCode).toBe(507);
    expect(res.json()).toEqual(insufficient('the skill archive', 'the skills folder'));
    expect(snapshot(customDir())).toEqual(before);
    expect(readdirSync(customDir())).toEqual(['kept-skill']);
  });

  it('answers 507 naming the skill when the archive fits but its files do not', async () => {
    const archive = skill('unpacked-late');
    const res = await whileFull(disk.blocksFor(archive.length), () => install(archive));
    expect(res.statusCode).toBe(507);
    expect(res.json()).toEqual(insufficient("the files of skill 'unpacked-late'", 'the skills folder'));
    expect(readdirSync(customDir())).toEqual(['kept-skill']);
    expect((await gw.api.app.inject({ method: 'GET', url: '/api/skills/unpacked-late' })).statusCode).toBe(404);
  });
});

describe('configuration writes on a full disk', () => {
  const configDir = () => path.dirname(gw.extensionsFile);
  const extensionsEntries = () => readdirSync(configDir()).filter((n) => n.includes('extensions_config'));
  const putMcp = (mcpServers: Record<string, unknown>) => gw.api.app.inject({ method: 'PUT', url: '/api/mcp/config', payload: { mcpServers } });

  it('answers 507 for PUT /api/mcp/config and keeps the previous file', async () => {
    expect((await putMcp({ before: { command: 'uvx', args: ['a'] } })).statusCode).toBe(200);
    const before = readFileSync(gw.extensionsFile, 'utf8');

    const res = await whileFull(0, () => putMcp({ after: { command: 'uvx', args: ['b'] } }));
    expect(res.statusCode).toBe(507);
    expect(res.json()).toEqual(insufficient('extensions_config.json'));
    expect(readFileSync(gw.extensionsFile, 'utf8')).toBe(before);
    expect(extensionsEntries()).toEqual(['extensions_config.json']);
  });

  it('answers 507 for a skill disable and keeps the skill enabled', async () => {
    const name = readdirSync(path.join(gw.skillsDir, 'public'))[0];
    const before = readFileSync(gw.extensionsFile, 'utf8');

    const res = await whileFull(0, () => gw.api.app.inject({ method: 'POST', url: `/api/skills/${name}/disable` }));
    expect(res.statusCode).toBe(507);
    expect(res.json()).toEqual(insufficient('extensions_config.json'));
    expect(readFileSync(gw.extensionsFile, 'utf8')).toBe(before);
    expect(extensionsEntries()).toEqual(['extensions_config.json']);
    expect((await gw.api.app.inject({ method: 'GET', url: `/api/skills/${name}` })).json()).toMatchObject({ enabled: true });
  });
});

describe('asStorageError', () => {
  const systemError = (code: string) => Object.assign(new Error(`${code}: /srv/secret/path`), { code });

  it('words a used-up quota (EDQUOT) as such, and never shows the host path', () => {
    const err = asStorageError(systemError('EDQUOT'), { what: 'the upload a.txt', where: 'WARREN_HOME' });
    expect(err).toBeInstanceOf(DiskFullError);
    expect((err as Error).message).toBe('Insufficient storage: the quota on the disk holding WARREN_HOME is used up while writing the upload a.txt.');
  });

  it('returns any other error unchanged', () => {
    const other = systemError('EIO');
    expect(asStorageError(other, { what: 'x' })).toBe(other);
  });
});
