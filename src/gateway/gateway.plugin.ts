// The gateway route group, mounted at /api: models, MCP configuration, skills, uploads, thread
// cleanup and artifacts. Multipart parsing is registered here, so only the gateway accepts it.
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import { artifactRoutes } from './artifacts.routes.js';
import type { GatewayDeps } from './gateway-deps.js';
import { mcpRoutes } from './mcp.routes.js';
import { modelRoutes } from './models.routes.js';
import { skillRoutes } from './skills.routes.js';
import { threadCleanupRoutes } from './threads.routes.js';
import { uploadRoutes } from './uploads.routes.js';

export async function gatewayRoutes(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  // Limits are set per route (uploads, skill archives); a part over its limit is truncated and
  // the route answers with its own message rather than the plugin's.
  await app.register(multipart, { throwFileSizeLimit: false, limits: { fields: 20, fieldSize: 64 * 1024, headerPairs: 100 } });
  // A request refused before its body was read (an upload over a limit) would otherwise hold its
  // connection while the client keeps sending: close it once the answer is out.
  app.addHook('onError', async (request, reply) => {
    if (!request.raw.complete) void reply.header('connection', 'close');
  });
  // Each route plugin gets only the part of the deps it uses.
  const { config, files, extensions, announceExtensionsChanged } = deps;
  await app.register(modelRoutes, { config });
  await app.register(mcpRoutes, { extensions, announceExtensionsChanged, stdioPolicy: deps.stdioPolicy });
  await app.register(skillRoutes, { skillsDir: deps.skillsDir, extensions, announceExtensionsChanged });
  await app.register(uploadRoutes, { files, settings: deps.settings, uploadsLock: deps.uploadsLock, conversionPool: deps.conversionPool, onConversion: deps.onConversion });
  await app.register(threadCleanupRoutes, { files });
  await app.register(artifactRoutes, { files });
}
