// The agent-runtime route group, mounted at /api/langgraph. Each route plugin gets only what it uses.
import type { FastifyInstance } from 'fastify';
import { assistantRoutes } from './assistants.routes.js';
import { cronRoutes } from '../crons/crons.routes.js';
import { runRoutes } from './runs.routes.js';
import { runWebSocketRoutes } from './runs.ws.js';
import type { RuntimeDeps } from './runtime-deps.js';
import { storeRoutes } from './store.routes.js';
import { threadRoutes } from './threads.routes.js';
import { internalRoutes } from './internal.routes.js';

export async function runtimeRoutes(app: FastifyInstance, deps: RuntimeDeps): Promise<void> {
  await app.register(threadRoutes, { threads: deps.threads, state: deps.state });
  await app.register(runRoutes, { runs: deps.runs, follow: deps.follow, settings: deps.settings });
  await app.register(runWebSocketRoutes, { runs: deps.runs, follow: deps.follow });
  await app.register(assistantRoutes, { assistants: deps.assistants });
  await app.register(storeRoutes, { store: deps.store });
  await app.register(cronRoutes, { crons: deps.crons });
  if (deps.truncate) await app.register(internalRoutes, { truncate: deps.truncate });
}
