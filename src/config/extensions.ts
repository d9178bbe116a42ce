// extensions_config.json: the MCP servers and the skills' enabled state, which the gateway edits
// and every worker reads. A missing file is an empty configuration. Writes go to a temporary
// file that is renamed into place, and writes from one process are serialised, so two requests
// never interleave a read-modify-write.
import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { ConfigError } from '../errors.js';

export const McpServerTypeSchema = Type.Union([Type.Literal('stdio'), Type.Literal('sse'), Type.Literal('http')]);
export type McpServerType = Static<typeof McpServerTypeSchema>;

const StringMapSchema = Type.Record(Type.String(), Type.String());

export const McpServerSchema = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    type: Type.Optional(McpServerTypeSchema),
    /** stdio: the executable to start. */
    command: Type.Optional(Type.String()),
    args: Type.Optional(Type.Array(Type.String())),
    /** Values are literals or `$NAME` references, which are kept as written and resolved by workers. */
    env: Type.Optional(StringMapSchema),
    /** sse and http: the server's address. */
    url: Type.Optional(Type.String()),
    headers: Type.Optional(StringMapSchema),
    description: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type McpServer = Static<typeof McpServerSchema>;

export const SkillStateSchema = Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false });

export const ExtensionsConfigSchema = Type.Object(
  {
    mcpServers: Type.Record(Type.String(), McpServerSchema),
    skills: Type.Record(Type.String(), SkillStateSchema),
  },
  // Keys a newer version wrote are kept, not dropped.
  { additionalProperties: true },
);
export type ExtensionsConfig = Static<typeof ExtensionsConfigSchema>;

export const MCP_SERVER_NAME_PATTERN = '^[A-Za-z0-9_.-]{1,64}$';
const MCP_SERVER_NAME_RE = new RegExp(MCP_SERVER_NAME_PATTERN);

/** What makes a server entry unusable, or null. Names become tool prefixes, so they are plain. */
export function mcpServerProblem(name: string, server: McpServer): string | null {
  if (!MCP_SERVER_NAME_RE.test(name)) return `server name "${name}" must match ${MCP_SERVER_NAME_PATTERN}`;
  const type = server.type ?? 'stdio';
  if (type === 'stdio' && !server.command?.trim()) return `server "${name}" is of type stdio and needs a command`;
  if (type !== 'stdio') {
    if (!server.url?.trim()) return `server "${name}" is of type ${type} and needs a url`;
    if (!URL.canParse(server.url) || !/^https?:$/.test(new URL(server.url).protocol)) {
      return `server "${name}" has a url that is not an http(s) address`;
    }
  }
  return null;
}

export function emptyExtensionsConfig(): ExtensionsConfig {
  return { mcpServers: {}, skills: {} };
}

/** Reads the file; a missing file is an empty configuration, a broken one a ConfigError. */
export async function readExtensionsConfig(file: string): Promise<ExtensionsConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return emptyExtensionsConfig();
    throw new ConfigError(`${file} could not be read: ${(err as Error).message}`, { cause: err });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`${file} is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigError(`${file} must hold a JSON object.`);
  }
  const candidate = { mcpServers: {}, skills: {}, ...raw };
  if (!Value.Check(ExtensionsConfigSchema, candidate)) {
    const first = [...Value.Errors(ExtensionsConfigSchema, candidate)][0];
    throw new ConfigError(`${file} is invalid: ${first?.instancePath || '/'} ${first?.message ?? ''}`.trim());
  }
  return candidate;
}

/** Writes the file atomically (temporary file in the same folder, flushed, then renamed). */
export async function writeExtensionsConfig(file: string, config: ExtensionsConfig): Promise<void> {
  const dir = path.dirname(file);
  await mkdir(dir, { recursive: true });
  const temp = path.join(dir, `.${path.basename(file)}.${randomUUID()}.tmp`);
  try {
    const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      await handle.writeFile(`${JSON.stringify(config, null, 2)}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}

export interface ExtensionsStore {
  readonly file: string;
  read(): Promise<ExtensionsConfig>;
  /** Reads, applies `change` and writes, one change at a time; returns what `change` returned. */
  update<T>(change: (config: ExtensionsConfig) => T | Promise<T>): Promise<T>;
}

export function createExtensionsStore(file: string): ExtensionsStore {
  // The tail of the queue of pending updates; each one starts when the previous settles.
  let tail: Promise<unknown> = Promise.resolve();
  return {
    file,
    read: () => readExtensionsConfig(file),
    update<T>(change: (config: ExtensionsConfig) => T | Promise<T>): Promise<T> {
      const next = tail.then(async () => {
        const config = await readExtensionsConfig(file);
        const result = await change(config);
        await writeExtensionsConfig(file, config);
        return result;
      });
      tail = next.catch(() => undefined);
      return next;
    },
  };
}

/** The skills folder: `skills.path` from config.yaml (relative to its folder), else the default. */
export function resolveSkillsDir(configured: string | undefined, configDir: string, fallback: string): string {
  return configured ? path.resolve(configDir, configured) : fallback;
}
