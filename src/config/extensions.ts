// extensions_config.json: the MCP servers and the skills' enabled state, which the gateway edits
// and every worker reads. A missing file is an empty configuration. Writes go to a temporary
// file that is renamed into place, and every read-modify-write runs under a WriteGuard (a
// fenced Redis lock, built by the composition root), so two requests, on one API replica or
// on two, never interleave and a writer whose lock lapsed renames nothing.
import { randomUUID } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { ConfigError } from '../errors.js';
import { writeFileAtomic, type WriteGuard } from './atomic-file.js';
import { isEnvRef } from './load-config.js';

export const McpServerTypeSchema = Type.Union([Type.Literal('stdio'), Type.Literal('sse'), Type.Literal('http')]);
export type McpServerType = Static<typeof McpServerTypeSchema>;

const StringMapSchema = Type.Record(Type.String(), Type.String());

export const McpOAuthGrantTypeSchema = Type.Union([Type.Literal('client_credentials'), Type.Literal('refresh_token')]);
export type McpOAuthGrantType = Static<typeof McpOAuthGrantTypeSchema>;

/** What an `oauth` block means when a field is left out: one table for the schema and the workers. */
export const MCP_OAUTH_DEFAULTS = Object.freeze({
  enabled: true,
  grant_type: 'client_credentials' as McpOAuthGrantType,
  token_field: 'access_token',
  token_type_field: 'token_type',
  expires_in_field: 'expires_in',
  default_token_type: 'Bearer',
  refresh_skew_seconds: 60,
});

/** The fields of an `oauth` block that are never shown on a read. */
export const MCP_OAUTH_SECRET_FIELDS = ['client_secret', 'refresh_token'] as const;

const FieldName = (fallback: string) => Type.Optional(Type.String({ minLength: 1, default: fallback }));

/**
 * OAuth 2.0 for an http or sse server: workers fetch a token from `token_url` and send it as
 * `Authorization`. String values are literals or `$NAME` references, resolved by workers.
 * `token_url` is required, but that is checked by mcpServerProblem rather than here, so a
 * hand-edited file with one bad block costs that server only, not the whole file.
 */
export const McpOAuthSchema = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean({ default: MCP_OAUTH_DEFAULTS.enabled })),
    token_url: Type.Optional(Type.String()),
    grant_type: Type.Optional(Type.Union(McpOAuthGrantTypeSchema.anyOf, { default: MCP_OAUTH_DEFAULTS.grant_type })),
    client_id: Type.Optional(Type.String()),
    client_secret: Type.Optional(Type.String()),
    refresh_token: Type.Optional(Type.String()),
    scope: Type.Optional(Type.String()),
    audience: Type.Optional(Type.String()),
    /** Where the token response holds the token, its type and its lifetime in seconds. */
    token_field: FieldName(MCP_OAUTH_DEFAULTS.token_field),
    token_type_field: FieldName(MCP_OAUTH_DEFAULTS.token_type_field),
    expires_in_field: FieldName(MCP_OAUTH_DEFAULTS.expires_in_field),
    /** The type sent when the response names none. */
    default_token_type: FieldName(MCP_OAUTH_DEFAULTS.default_token_type),
    /** A token is replaced this long before it expires. */
    refresh_skew_seconds: Type.Optional(Type.Integer({ minimum: 0, default: MCP_OAUTH_DEFAULTS.refresh_skew_seconds })),
    /** More form fields for the token request (`resource`, ...). */
    extra_token_params: Type.Optional(StringMapSchema),
  },
  { additionalProperties: false },
);
export type McpOAuth = Static<typeof McpOAuthSchema>;

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
    /** sse and http: fetch an OAuth 2.0 token and send it as `Authorization`. */
    oauth: Type.Optional(McpOAuthSchema),
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

const isHttpUrl = (value: string): boolean => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol);

function oauthProblem(name: string, oauth: McpOAuth): string | null {
  const tokenUrl = oauth.token_url?.trim();
  if (!tokenUrl) return `server "${name}" has an oauth block without oauth.token_url`;
  // A `$NAME` is resolved by workers; only a literal can be checked here.
  if (!isEnvRef(tokenUrl) && !isHttpUrl(tokenUrl)) return `server "${name}" has an oauth.token_url that is not an http(s) address`;
  const grant = oauth.grant_type ?? MCP_OAUTH_DEFAULTS.grant_type;
  if (grant === 'client_credentials' && !oauth.client_id?.trim()) {
    return `server "${name}" uses grant_type client_credentials and needs oauth.client_id`;
  }
  if (grant === 'refresh_token' && !oauth.refresh_token?.trim()) {
    return `server "${name}" uses grant_type refresh_token and needs oauth.refresh_token`;
  }
  return null;
}

/** What makes a server entry unusable, or null. Names become tool prefixes, so they are plain. */
export function mcpServerProblem(name: string, server: McpServer): string | null {
  if (!MCP_SERVER_NAME_RE.test(name)) return `server name "${name}" must match ${MCP_SERVER_NAME_PATTERN}`;
  const type = server.type ?? 'stdio';
  if (type === 'stdio') {
    if (!server.command?.trim()) return `server "${name}" is of type stdio and needs a command`;
    if (server.oauth) return `server "${name}" is of type stdio, and oauth applies to http and sse servers only`;
    return null;
  }
  if (!server.url?.trim()) return `server "${name}" is of type ${type} and needs a url`;
  if (!isHttpUrl(server.url)) return `server "${name}" has a url that is not an http(s) address`;
  return server.oauth ? oauthProblem(name, server.oauth) : null;
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

/**
 * Writes the file atomically (temporary file in the same folder, flushed, then renamed);
 * `beforeRename` runs right before the rename and may refuse it by throwing.
 */
export async function writeExtensionsConfig(file: string, config: ExtensionsConfig, beforeRename?: () => Promise<void>): Promise<void> {
  const dir = path.dirname(file);
  await mkdir(dir, { recursive: true });
  const temp = path.join(dir, `.${path.basename(file)}.${randomUUID()}.tmp`);
  await writeFileAtomic(file, temp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600, ...(beforeRename ? { beforeRename } : {}) });
}

export interface ExtensionsStore {
  readonly file: string;
  read(): Promise<ExtensionsConfig>;
  /** Reads, applies `change` and writes, one change at a time; returns what `change` returned. */
  update<T>(change: (config: ExtensionsConfig) => T | Promise<T>): Promise<T>;
}

/** `guard` serialises updates across every process that writes `file`. */
export function createExtensionsStore(file: string, guard: WriteGuard): ExtensionsStore {
  return {
    file,
    read: () => readExtensionsConfig(file),
    update: <T>(change: (config: ExtensionsConfig) => T | Promise<T>): Promise<T> =>
      guard.run(async (confirm) => {
        const config = await readExtensionsConfig(file);
        const result = await change(config);
        await writeExtensionsConfig(file, config, confirm);
        return result;
      }),
  };
}

/** The skills folder: `skills.path` from config.yaml (relative to its folder), else the default. */
export function resolveSkillsDir(configured: string | undefined, configDir: string, fallback: string): string {
  return configured ? path.resolve(configDir, configured) : fallback;
}
