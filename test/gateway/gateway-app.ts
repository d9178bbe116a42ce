// A real API process (no worker: the gateway needs none) on the test Redis, with a fresh
// WARREN_HOME, its own skills folder and extensions_config.json. Tests talk to it with inject,
// or over HTTP when they need a socket (streams, ranges, big bodies).
import { randomUUID } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DestinationStream } from 'pino';
import { stringify } from 'yaml';
import { createApiServer, type ApiServer } from '../../src/api-server.js';
import type { EnvConfig } from '../../src/config/env.js';
import { PROJECT_SKILLS_DIR } from '../../src/config/paths.js';
import { loadAppConfig } from '../../src/config/load-config.js';
import { trackedDir } from '../support/leftovers.js';
import { testEnv } from '../support/stack.js';
import type { GatewaySettings } from '../../src/gateway/gateway-deps.js';
import type { FileLockSettings } from '../../src/store/file-locks.js';

export interface GatewayApp {
  api: ApiServer;
  home: string;
  skillsDir: string;
  extensionsFile: string;
  env: EnvConfig;
  /** Listens on a free port (once) and returns http://127.0.0.1:<port>. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

export interface GatewayAppOptions {
  config?: Record<string, unknown>;
  gateway?: Partial<GatewaySettings>;
  /** Copy the project's shipped public skills into the test's skills folder. */
  withPublicSkills?: boolean;
  /** An existing empty folder to use as WARREN_HOME (a mount point, say): the caller removes it. */
  home?: string;
  /** Shorter waits for the locks on shared files. */
  fileLocks?: Partial<FileLockSettings>;
  /** Receives the API's log lines, at debug level. */
  logStream?: DestinationStream;
  /** Another replica's memory user, to share its memory (each app has its own otherwise). */
  memoryUser?: string;
}

export async function startGatewayApp(options: GatewayAppOptions = {}): Promise<GatewayApp> {
  const home = options.home ?? trackedDir(mkdtempSync(path.join(tmpdir(), 'warren-gateway-')));
  const skillsDir = path.join(home, 'skills');
  mkdirSync(path.join(skillsDir, 'public'), { recursive: true });
  if (options.withPublicSkills) cpSync(path.join(PROJECT_SKILLS_DIR, 'public'), path.join(skillsDir, 'public'), { recursive: true });
  const configFile = path.join(home, 'config.yaml');
  writeFileSync(configFile, stringify({ ...options.config, skills: { path: './skills' } }));
  const env = testEnv(home, {
    workerConcurrency: 1,
    instanceId: 'test-gateway',
    ...(options.logStream ? { logLevel: 'debug' } : {}),
    ...(options.memoryUser ? { memoryUser: options.memoryUser } : {}),
  });
  const api = await createApiServer({
    env,
    loaded: loadAppConfig({ WARREN_CONFIG: configFile }),
    ...(options.gateway ? { gateway: options.gateway } : {}),
    ...(options.fileLocks ? { fileLocks: options.fileLocks } : {}),
    ...(options.logStream ? { logStream: options.logStream } : {}),
  });
  let address: Promise<string> | undefined;
  return {
    api,
    home,
    skillsDir,
    extensionsFile: env.extensionsConfigPath,
    env,
    listen: () => (address ??= api.app.listen({ port: 0, host: '127.0.0.1' })),
    async close() {
      await api.close();
      if (!options.home) rmSync(home, { recursive: true, force: true });
    },
  };
}

export interface MultipartBody {
  payload: Buffer;
  headers: Record<string, string>;
}

/** A multipart/form-data body, built by the platform's own FormData encoder. */
export async function multipart(parts: { field: string; name?: string; data: string | Uint8Array }[]): Promise<MultipartBody> {
  const form = new FormData();
  for (const part of parts) {
    if (part.name === undefined) form.append(part.field, typeof part.data === 'string' ? part.data : Buffer.from(part.data).toString());
    else form.append(part.field, new Blob([part.data]), part.name);
  }
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return {
    payload: Buffer.from(await request.arrayBuffer()),
    headers: { 'content-type': request.headers.get('content-type') ?? '' },
  };
}

/** A multipart body written by hand, for file names FormData would not send as given. */
export function rawMultipart(files: { field: string; filenameHeader: string; data: string | Buffer }[]): MultipartBody {
  const boundary = `----warren${randomUUID().replace(/-/g, '')}`;
  const chunks: Buffer[] = [];
  for (const f of files) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${f.field}"; ${f.filenameHeader}\r\nContent-Type: application/octet-stream\r\n\r\n`));
    chunks.push(Buffer.isBuffer(f.data) ? f.data : Buffer.from(f.data));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/**
 * An HTTP request whose path goes on the wire exactly as given: fetch and inject normalise
 * `..` and `%2E%2E` away, and traversal tests need them to reach the server.
 */
export function rawRequest(base: string, method: string, rawPath: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, method, path: rawPath, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}
