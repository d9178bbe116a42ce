// GET /api/features: which of DeerFlow's optional features Warren serves. These are facts about
// Warren, not settings: custom agents (/api/agents) are always there; there is no browser panel
// (browser.routes.ts answers as DeerFlow does with it off), no MCP background-task runtime (GET
// .../mcp-tasks answers an empty list) and no GitHub webhook intake (a flag DeerFlow's UI ignores).
// Chat channels connected from the UI (/api/channels/providers…) and the Lark set-up
// (/api/integrations/lark/*) are always served: Warren's own flags, which DeerFlow's UI ignores.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { FeaturesSchema, type Features } from './features.schemas.js';

const tags = ['features'];

const FEATURES: Features = Object.freeze({
  agents_api: { enabled: true },
  browser_control: { enabled: false },
  mcp_tasks: { enabled: false },
  github_webhooks: { enabled: false },
  channel_connections: { enabled: true },
  lark_integration: { enabled: true },
});

export async function featureRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get('/features', { schema: { tags, description: "DeerFlow's feature flags, true only for what Warren serves.", response: { 200: FeaturesSchema } } }, async () => FEATURES);
}
