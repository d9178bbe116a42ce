// The Lua scripts' loader and their refusals: `--@include` lines are expanded before a script is
// hashed (the run fence is written once, in includes/fence.lua, and every fenced script carries
// it), an include that does not exist fails loading by name, and a script's refusal reaches its
// caller as the coded error of script-errors.ts.
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ReplyError } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/config/paths.js';
import type { RedisClient } from '../../src/store/redis.js';
import { FencedError, isFenceRefusal, isLineageRefusal, LineageError, scriptRefusal } from '../../src/store/script-errors.js';
import { loadScripts, readScript, type ScriptCaller } from '../../src/store/scripts.js';
import { connectTestRedis } from '../support/test-redis.js';

const SCRIPTS_DIR = path.join(PROJECT_ROOT, 'src', 'store', 'scripts');
const FENCE_CHECK = "redis.call('HGET', KEYS[1], 'attempt') ~= attempt";
const scriptFiles = readdirSync(SCRIPTS_DIR).filter((file) => file.endsWith('.lua'));
const fencedFiles = scriptFiles.filter((file) => /^--@include fence$/m.test(readFileSync(path.join(SCRIPTS_DIR, file), 'utf8')));
const occurrences = (text: string, part: string) => text.split(part).length - 1;

let redis: RedisClient;
let scripts: Record<string, ScriptCaller>;
beforeAll(() => {
  redis = connectTestRedis(inject('redisUrl'));
  scripts = loadScripts(redis);
});
afterAll(() => redis?.disconnect());

describe('script includes', () => {
  it('the fence check is written once in the tree, and every fenced script carries it once', () => {
    const lua = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory() ? lua(path.join(dir, entry.name)) : entry.name.endsWith('.lua') ? [path.join(dir, entry.name)] : [],
      );
    // The comparison with the run's attempt, or the refusal: either, anywhere but in the include, is a copy.
    const withCheck = lua(SCRIPTS_DIR).filter((file) => /'attempt'\) ~=|error_reply\('(WARREN_)?FENCED/.test(readFileSync(file, 'utf8')));
    expect(withCheck.map((file) => path.relative(SCRIPTS_DIR, file))).toEqual([path.join('includes', 'fence.lua')]);

    expect(fencedFiles.sort()).toEqual(['append-run-events-2.lua', 'drop-checkpoints-n.lua', 'finish-run-6.lua', 'hand-back-run-1.lua', 'put-checkpoint-5.lua', 'put-writes-3.lua', 'renew-run-lease-1.lua']);
    for (const file of fencedFiles) expect(occurrences(readScript(file), FENCE_CHECK), file).toBe(1);
  });

  it('leaves no --@include in any script as loaded', () => {
    for (const file of scriptFiles) expect(readScript(file), file).not.toMatch(/^--@include/m);
  });

  it('fails loading, naming the script, for an unknown include, a bad name or an include of itself', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'warren-scripts-'));
    try {
      mkdirSync(path.join(dir, 'includes'));
      writeFileSync(path.join(dir, 'bad-1.lua'), '--@include nope\nreturn 1\n');
      expect(() => readScript('bad-1.lua', dir)).toThrow('bad-1.lua: unknown include nope: there is no includes/nope.lua');
      writeFileSync(path.join(dir, 'odd-1.lua'), '--@include ../fence\nreturn 1\n');
      expect(() => readScript('odd-1.lua', dir)).toThrow('odd-1.lua: --@include "../fence" is not an include\'s name');
      writeFileSync(path.join(dir, 'includes', 'a.lua'), '--@include b\n');
      writeFileSync(path.join(dir, 'includes', 'b.lua'), '--@include a\n');
      writeFileSync(path.join(dir, 'loop-1.lua'), '--@include a\nreturn 1\n');
      expect(() => readScript('loop-1.lua', dir)).toThrow('loop-1.lua: include a → b → a includes itself');
      // An include's text takes the place of its line, and its own includes are expanded too.
      writeFileSync(path.join(dir, 'includes', 'b.lua'), 'local b = 2\n');
      writeFileSync(path.join(dir, 'includes', 'a.lua'), 'local a = 1\n--@include b\n');
      expect(readScript('loop-1.lua', dir)).toBe('local a = 1\nlocal b = 2\nreturn 1\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** The keys a script takes (`-n` scripts: two), the run hash first, all in one slot. */
function keysFor(file: string, runHash: string): string[] {
  const count = /-(\d+|n)\.lua$/.exec(file)?.[1] as string;
  return Array.from({ length: count === 'n' ? 2 : Number(count) }, (_, i) => (i === 0 ? runHash : `${runHash}:key-${i}`));
}

/** ARGV for a fenced script: `attempt` where the script reads the caller's attempt, "" elsewhere. */
function argsFor(file: string, attempt: string): string[] {
  const at = Number(/^local attempt = ARGV\[(\d+)\]$/m.exec(readFileSync(path.join(SCRIPTS_DIR, file), 'utf8'))?.[1]);
  expect(at, `${file} names the ARGV of the caller's attempt before --@include fence`).toBeGreaterThan(0);
  return Array.from({ length: at }, (_, i) => (i === at - 1 ? attempt : ''));
}

const callerOf = (file: string): ScriptCaller => {
  const name = (/^([a-z-]+?)-(?:\d+|n)\.lua$/.exec(file)?.[1] as string).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
  return scripts[name] as ScriptCaller;
};

describe('fenced scripts', () => {
  it.each(fencedFiles)('%s refuses a stale attempt, and a run that is gone, with WARREN_FENCED and writes nothing', async (file) => {
    const runHash = `{scripts-test-${randomUUID()}}:run`;
    const keys = keysFor(file, runHash);
    const call = callerOf(file);
    for (const [held, stale] of [
      [null, '1'],
      ['2', '1'],
    ] as const) {
      if (held) await redis.hset(runHash, 'attempt', held);
      const err = await call(keys, argsFor(file, stale)).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, `${file} refused attempt ${stale}`).toBeInstanceOf(FencedError);
      expect(err).toMatchObject({ code: 'WARREN_FENCED', message: `attempt ${stale} no longer holds the run` });
      expect(isFenceRefusal(err)).toBe(true);
      expect(isLineageRefusal(err)).toBe(false);
      expect((err as Error).cause).toBeInstanceOf(ReplyError);
      expect(((err as Error).cause as Error).message).toBe(`WARREN_FENCED attempt ${stale} no longer holds the run`);
      if (keys.length > 1) expect(await redis.exists(...keys.slice(1))).toBe(0);
    }
    expect(await redis.hgetall(runHash)).toEqual({ attempt: '2' });

    // Redis ran the script with its include expanded: its hash is the expanded text's.
    const sha = createHash('sha1').update(readScript(file)).digest('hex');
    const wire = await redis.evalsha(sha, keys.length, ...keys, ...argsFor(file, '1')).then(
      () => null,
      (e: unknown) => e,
    );
    expect(wire).toBeInstanceOf(ReplyError);
    expect((wire as Error).message).toBe('WARREN_FENCED attempt 1 no longer holds the run');
    await redis.del(runHash);
  });

  it('lets the attempt that holds the run through', async () => {
    const runHash = `{scripts-test-${randomUUID()}}:run`;
    await redis.hset(runHash, 'attempt', '3');
    expect(await callerOf('hand-back-run-1.lua')([runHash], ['3'])).toBe(1);
    expect(await redis.hget(runHash, 'handbacks')).toBe('1');
    await redis.del(runHash);
  });
});

describe('scriptRefusal', () => {
  it('turns a reply that starts with a Warren code into its error, and leaves any other error alone', () => {
    const lineage = scriptRefusal(new ReplyError('WARREN_LINEAGE checkpoint b descends from a, but the thread has moved on to c'));
    expect(lineage).toBeInstanceOf(LineageError);
    expect(lineage).toMatchObject({ code: 'WARREN_LINEAGE', statusCode: 409, message: 'checkpoint b descends from a, but the thread has moved on to c' });
    expect(isLineageRefusal(lineage)).toBe(true);
    expect(isFenceRefusal(lineage)).toBe(false);

    const other = new ReplyError('ERR unknown command');
    expect(scriptRefusal(other)).toBe(other);
    // Only a Redis reply is read: an error that merely says the words is not a refusal.
    const said = new Error('WARREN_FENCED attempt 1 no longer holds the run');
    expect(scriptRefusal(said)).toBe(said);
    expect(isFenceRefusal(said)).toBe(false);
    // The old wire text is not a code.
    expect(isFenceRefusal(new ReplyError('FENCED attempt 1 no longer holds the run'))).toBe(false);
    expect(scriptRefusal('text')).toBe('text');
  });
});
