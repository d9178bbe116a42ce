// The agent-runtime route group, mounted at /api/langgraph.
import type { FastifyInstance } from 'fastify';
import { assistantRoutes } from './assistants.routes.js';
import { runRoutes } from './runs.routes.js';
import { runWebSocketRoutes } from './runs.ws.js';
import type { RuntimeDeps } from './runtime-deps.js';
import { threadRoutes } from './threads.routes.js';

export async function runtimeRoutes(app: FastifyInstance, deps: RuntimeDeps): Promise<void> {
  await app.register(threadRoutes, deps);
  await app.register(runRoutes, deps);
  await app.register(runWebSocketRoutes, deps);
  await app.register(assistantRoutes, deps);
}
