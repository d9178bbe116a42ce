// The OpenAPI 3 document is generated from the routes' TypeBox schemas; the UI is at /api/docs.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

export interface OpenApiOptions {
  /** Credentials are required (API keys, JWTs or a custom module): every operation but the public ones says so. */
  auth: boolean;
}

/** How a client authenticates when the deployment requires it (see src/auth/authenticator.ts). */
const securitySchemes = {
  apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'What the LangGraph SDK sends with `apiKey`.' },
  bearer: { type: 'http', scheme: 'bearer', description: 'An API key as `Authorization: Bearer <key>`, or a JWT from the configured OpenID Connect issuer.' },
} as const;

export async function registerOpenApi(app: FastifyInstance, version: string, options: OpenApiOptions): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      components: { securitySchemes },
      // Either scheme will do; public routes (/ok) declare `security: []` themselves.
      ...(options.auth ? { security: [{ apiKey: [] }, { bearer: [] }] } : {}),
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
