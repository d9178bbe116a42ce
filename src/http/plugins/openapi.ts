// The OpenAPI 3 document is generated from the routes' TypeBox schemas; the UI is at /api/docs.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Warren',
        description:
          'Agent workspace service. `/api/langgraph` speaks the LangGraph Agent Server protocol; `/api` is the gateway (models, MCP, skills, uploads, artifacts).',
        version,
      },
      tags: [
        { name: 'threads' },
        { name: 'runs' },
        { name: 'assistants' },
        { name: 'models' },
        { name: 'mcp' },
        { name: 'skills' },
        { name: 'uploads' },
        { name: 'artifacts' },
        { name: 'system' },
      ],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
