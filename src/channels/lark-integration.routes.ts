// DeerFlow's Integrations › Lark: the status, the (built-in) install, setting up the app from a
// browser or with typed credentials, and connecting the caller's Lark account.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import {
  LarkAuthCompleteBodySchema,
  LarkAuthCompleteSchema,
  LarkAuthStartBodySchema,
  LarkAuthStartSchema,
  LarkConfigCompleteBodySchema,
  LarkConfigCompleteSchema,
  LarkConfigCredentialsBodySchema,
  LarkConfigStartBodySchema,
  LarkConfigStartSchema,
  LarkInstallSchema,
  LarkIntegrationStatusSchema,
} from './lark-integration.schemas.js';
import type { LarkIntegrationService } from './lark-integration.service.js';
import { ErrorSchema, errorResponses } from '../gateway/common.schemas.js';

const tags = ['integrations'];
const refusals = { ...errorResponses, 403: ErrorSchema, 409: ErrorSchema, 502: ErrorSchema, 504: ErrorSchema } as const;
/** Setting up the app changes the deployment's Feishu channel. */
const admin = { admin: true };

export async function larkIntegrationRoutes(app: FastifyInstance, deps: { lark: LarkIntegrationService }): Promise<void> {
  const { lark } = deps;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/integrations/lark/status', { schema: { tags, response: { 200: LarkIntegrationStatusSchema } } }, async (req) => lark.status(req.identity));

  r.post('/integrations/lark/install', { config: admin, schema: { tags, response: { 200: LarkInstallSchema, ...refusals } } }, async (req) => lark.install(req.identity));

  r.post('/integrations/lark/config/start', { config: admin, schema: { tags, body: LarkConfigStartBodySchema, response: { 200: LarkConfigStartSchema, ...refusals } } }, async (req) =>
    lark.configStart(req.identity, req.body.brand),
  );

  r.post('/integrations/lark/config/complete', { config: admin, schema: { tags, body: LarkConfigCompleteBodySchema, response: { 200: LarkConfigCompleteSchema, ...refusals } } }, async (req) =>
    lark.configComplete(req.identity, req.body),
  );

  r.post(
    '/integrations/lark/config/credentials',
    { config: admin, schema: { tags, body: LarkConfigCredentialsBodySchema, response: { 200: LarkConfigCompleteSchema, ...refusals } } },
    async (req) => lark.configCredentials(req.identity, req.body),
  );

  r.post('/integrations/lark/auth/start', { schema: { tags, body: LarkAuthStartBodySchema, response: { 200: LarkAuthStartSchema, ...refusals } } }, async (req) => lark.authStart(req.identity, req.body));

  r.post('/integrations/lark/auth/complete', { schema: { tags, body: LarkAuthCompleteBodySchema, response: { 200: LarkAuthCompleteSchema, ...refusals } } }, async (req) =>
    lark.authComplete(req.identity, req.body),
  );
}
