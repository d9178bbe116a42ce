// Loads the Lua scripts in src/store/scripts/ as ioredis commands. A file `<name>-<n>.lua`
// becomes the command `<name>` with n keys (the BullMQ convention); `<name>-n.lua` takes as many
// keys as the caller passes. A line `--@include <name>` in a script is replaced, before the script
// is hashed and defined, by the text of `includes/<name>.lua` (BullMQ's loader does the same), so a
// check several scripts share (the run fence) is written once. A script's error reply that names
// a Warren code reaches its caller as that code's error (script-errors.ts).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { RedisClient } from './redis.js';
import { PROJECT_ROOT } from '../config/paths.js';
import { errnoCode } from '../errors.js';
import { scriptRefusal, ScriptInvalidError } from './script-errors.js';

const SCRIPTS_DIR = path.join(PROJECT_ROOT, 'src', 'store', 'scripts');
const FILE = /^([a-z-]+?)-(\d+|n)\.lua$/;

type ScriptReply = unknown;
/** Buffers pass binary values (serialised checkpoints) through unchanged. */
type ScriptArg = string | number | Buffer;
export type ScriptCaller = (keys: string[], args: ScriptArg[]) => Promise<ScriptReply>;

/**
 * A script's Lua as Redis runs it: `file` (in `dir`) with each `--@include <name>` line replaced
 * by `includes/<name>.lua`, whose own includes are expanded too. Throws, naming the script, for an
 * include that does not exist, a name that is not one, or an include that includes itself.
 */
export function readScript(file: string, dir: string = SCRIPTS_DIR): string {
  const expand = (lua: string, chain: readonly string[]): string =>
    lua.replace(/^--@include\b(.*)$/gm, (_, rest: string) => {
      const name = rest.trim();
      if (!/^[a-z][a-z0-9-]*$/.test(name)) throw new ScriptInvalidError(`${file}: --@include ${JSON.stringify(name)} is not an include's name (includes/<name>.lua)`);
      if (chain.includes(name)) throw new ScriptInvalidError(`${file}: include ${[...chain, name].join(' → ')} includes itself`);
      let text: string;
      try {
        text = readFileSync(path.join(dir, 'includes', `${name}.lua`), 'utf8');
      } catch (err) {
        if (errnoCode(err) === 'ENOENT') throw new ScriptInvalidError(`${file}: unknown include ${name}: there is no includes/${name}.lua`, { cause: err });
        throw err;
      }
      return expand(text, [...chain, name]).replace(/\n$/, '');
    });
  return expand(readFileSync(path.join(dir, file), 'utf8'), []);
}

const camel = (name: string) => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** BullMQ's keys on one Redis: untagged, `warren:bull:<queue>:…` (tagged by queue on a Cluster, see keys.bullPrefix). */
const UNTAGGED_BULL = /^warren:bull:([^:{]+):/;

/**
 * The part of a key a Redis Cluster hashes: its first non-empty `{…}`, else the whole key. A
 * BullMQ key of one Redis counts as tagged by its queue, as the same key is on a Cluster.
 */
function hashTagOf(key: string): string {
  const open = key.indexOf('{');
  if (open >= 0) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) return key.slice(open + 1, close);
  }
  return UNTAGGED_BULL.exec(key)?.[1] ?? key;
}

/**
 * Throws unless every key shares one hash tag (so one slot): on a Redis Cluster a script's keys
 * must, and checking on every Redis makes the default (single-Redis) test suite catch a script
 * that would fail only on a Cluster, with the script's name instead of a bare CROSSSLOT.
 */
function assertOneSlot(file: string, keys: readonly string[]): void {
  const first = keys[0];
  if (first === undefined || keys.length === 1) return;
  const tag = hashTagOf(first);
  for (const key of keys) {
    if (hashTagOf(key) !== tag) throw new ScriptInvalidError(`${file}: keys ${first} and ${key} have different hash tags; a script's keys must share one slot (see keys.ts)`);
  }
}

/** Defines every script on the client (idempotent) and returns callers by camelCase name. */
export function loadScripts(redis: RedisClient): Record<string, ScriptCaller> {
  const callers: Record<string, ScriptCaller> = {};
  for (const file of readdirSync(SCRIPTS_DIR)) {
    const match = FILE.exec(file);
    if (!match) continue;
    const name = camel(`warren-${match[1]}`);
    const variable = match[2] === 'n';
    const numberOfKeys = Number(match[2]);
    if (!(name in redis)) {
      const lua = readScript(file);
      redis.defineCommand(name, variable ? { lua } : { numberOfKeys, lua });
    }
    const command = (redis as unknown as Record<string, (...a: ScriptArg[]) => Promise<ScriptReply>>)[name];
    if (!command) throw new ScriptInvalidError(`script ${file} did not load`);
    const coded = (reply: Promise<ScriptReply>) =>
      reply.catch((err: unknown) => {
        throw scriptRefusal(err);
      });
    callers[camel(match[1] as string)] = (keys, args) => {
      assertOneSlot(file, keys);
      if (variable) return coded(command.call(redis, keys.length, ...keys, ...args));
      if (keys.length !== numberOfKeys) throw new ScriptInvalidError(`${file} takes ${numberOfKeys} keys, got ${keys.length}`);
      return coded(command.call(redis, ...keys, ...args));
    };
  }
  return callers;
}

export function requireScript(scripts: Record<string, ScriptCaller>, name: string): ScriptCaller {
  const caller = scripts[name];
  if (!caller) throw new ScriptInvalidError(`missing Lua script ${name}`);
  return caller;
}
