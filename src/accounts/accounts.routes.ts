// /api/v1/auth: DeerFlow's sign-in routes. The ones a signed-out browser calls are public (the
// auth gate lets them through; each checks what it needs itself); `me` and `change-password`
// go through the gate like every other route, so a session, an API key or a token all work.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RequestOrigins } from '../auth/request-origin.js';
import { createErrorHandler } from '../http/error-handler.js';
import { deerflowAuthDetail, LoginThrottledError } from './accounts.errors.js';
import {
  ChangePasswordBodySchema,
  LoginBodySchema,
  LoginResponseSchema,
  MessageSchema,
  NewAccountBodySchema,
  OAuthCallbackQuerySchema,
  OAuthStartQuerySchema,
  ProviderParamsSchema,
  ProvidersSchema,
  SetupStatusSchema,
  UserSchema,
} from './accounts.schemas.js';
import type { AccountsService, RequestFacts, WithCookies } from './accounts.service.js';
import type { OidcSignIn } from './oidc-signin.js';

export interface AccountsRoutesOptions {
  accounts: AccountsService;
  /** With accounts off it knows no provider (404). */
  oidc: OidcSignIn;
  origins: RequestOrigins;
}

const tags = ['auth'];
const open = { public: true } as const;
/** A sign-in form is small; anything bigger is not one. */
const FORM_LIMIT_BYTES = 16 * 1024;

export async function accountsRoutes(app: FastifyInstance, { accounts, oidc, origins }: AccountsRoutesOptions): Promise<void> {
  // DeerFlow's UI reads `{detail: {code, message}}` here (the auth gate's 401s included: a hook's
  // error goes to its route's scope); everywhere else the body stays `{detail: "…"}`.
  app.setErrorHandler(createErrorHandler(deerflowAuthDetail));
  // DeerFlow's UI posts `login/local` as a form (OAuth2's password form); only this scope reads forms.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT_BYTES }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  const facts = (request: FastifyRequest): RequestFacts => ({
    https: origins.isHttps(request),
    clientAddress: origins.clientAddress(request),
    sameOrigin: origins.sameOrigin(request),
    ownOrigin: origins.ownOrigin(request),
    cookieHeader: request.headers.cookie,
  });
  const withCookies = <T>(reply: FastifyReply, result: WithCookies<T>): T => {
    if (result.cookies.length > 0) void reply.header('set-cookie', result.cookies);
    void reply.header('cache-control', 'no-store');
    return result.body;
  };
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/setup-status', { config: open, schema: { tags, security: [], description: 'Whether the first admin still has to be made.', response: { 200: SetupStatusSchema } } }, () => accounts.setupStatus());
  r.get('/providers', { config: open, schema: { tags, security: [], description: 'The OIDC providers people may sign in with.', response: { 200: ProvidersSchema } } }, () => accounts.providers());
  r.get('/me', { schema: { tags, description: 'Who the request is signed in as.', response: { 200: UserSchema } } }, (request) => accounts.me(request.identity));

  r.post('/initialize', { config: open, schema: { tags, security: [], description: 'Makes the first account, an admin, once.', body: NewAccountBodySchema, response: { 201: UserSchema } } }, async (request, reply) => {
    const result = await accounts.initialize(request.body, facts(request));
    return reply.code(201).send(withCookies(reply, result));
  });
  r.post('/register', { config: open, schema: { tags, security: [], description: 'Makes an account, when self-registration is on.', body: NewAccountBodySchema, response: { 201: UserSchema } } }, async (request, reply) => {
    const result = await accounts.register(request.body, facts(request));
    return reply.code(201).send(withCookies(reply, result));
  });
  r.post('/login/local', { config: open, schema: { tags, security: [], description: 'Signs in with email and password (a form or JSON).', body: LoginBodySchema, response: { 200: LoginResponseSchema } } }, async (request, reply) => {
    try {
      return withCookies(reply, await accounts.login(request.body, facts(request)));
    } catch (err) {
      if (err instanceof LoginThrottledError) void reply.header('retry-after', String(err.retryAfterSeconds));
      throw err;
    }
  });
  r.post('/logout', { config: open, schema: { tags, security: [], description: 'Ends this session and clears its cookies.', response: { 200: MessageSchema } } }, async (request, reply) =>
    withCookies(reply, await accounts.logout(facts(request))),
  );
  r.post('/change-password', { schema: { tags, description: "Changes the account's password (and email); ends its other sessions.", body: ChangePasswordBodySchema, response: { 200: MessageSchema } } }, async (request, reply) =>
    withCookies(reply, await accounts.changePassword(request.identity, request.body, facts(request))),
  );

  const redirect = (reply: FastifyReply, to: { location: string; cookies: string[] }) => {
    if (to.cookies.length > 0) void reply.header('set-cookie', to.cookies);
    return reply.header('cache-control', 'no-store').redirect(to.location, 302);
  };
  r.get('/oauth/:provider', { config: open, schema: { tags, security: [], description: "Starts a sign-in at an OIDC provider (a redirect to its sign-in page).", params: ProviderParamsSchema, querystring: OAuthStartQuerySchema } }, async (request, reply) =>
    redirect(reply, await oidc.start(request.params.provider, request.query, facts(request))),
  );
  r.get('/callback/:provider', { config: open, schema: { tags, security: [], description: "Where the OIDC provider sends the browser back; signs it in.", params: ProviderParamsSchema, querystring: OAuthCallbackQuerySchema } }, async (request, reply) =>
    redirect(reply, await oidc.finish(request.params.provider, request.query, facts(request))),
  );
}

