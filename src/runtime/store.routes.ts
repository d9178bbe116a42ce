// /api/langgraph/store: LangGraph's long-term store (items under namespaces), the same items
// graphs read and write through `config.store`.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errorResponses, noContentResponses } from './common.schemas.js';
import {
  StoreDeleteSchema,
  StoreGetQuerySchema,
  StoreItemSchema,
  StoreNamespacesResultSchema,
  StoreNamespacesSchema,
  StorePutSchema,
  StoreSearchResultSchema,
  StoreSearchSchema,
} from './store.schemas.js';
import type { StoreService } from './store.service.js';

const tags = ['store'];
const noContent = { ...noContentResponses, ...errorResponses };

export async function storeRoutes(app: FastifyInstance, deps: { store: StoreService }): Promise<void> {
  const { store } = deps;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.put('/store/items', { schema: { tags, body: StorePutSchema, response: noContent } }, async (req, reply) => {
    await store.put(req.body, req.identity);
    return reply.code(204).send(null);
  });

  r.get('/store/items', { schema: { tags, querystring: StoreGetQuerySchema, response: { 200: Type.Union([StoreItemSchema, Type.Null()]), ...errorResponses } } }, (req) =>
    store.get(req.query, req.identity),
  );

  r.delete('/store/items', { schema: { tags, body: StoreDeleteSchema, response: noContent } }, async (req, reply) => {
    await store.remove(req.body, req.identity);
    return reply.code(204).send(null);
  });

  r.post('/store/items/search', { schema: { tags, body: StoreSearchSchema, response: { 200: StoreSearchResultSchema, ...errorResponses } } }, (req) =>
    store.search(req.body, req.identity),
  );

  r.post('/store/namespaces', { schema: { tags, body: StoreNamespacesSchema, response: { 200: StoreNamespacesResultSchema, ...errorResponses } } }, (req) =>
    store.namespaces(req.body, req.identity),
  );
}
