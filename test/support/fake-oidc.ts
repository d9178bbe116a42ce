// A local OpenID Connect issuer that speaks the real protocol: a discovery document, a JWKS, an
// authorize endpoint that signs in a preset person at once (a redirect back with a code), and a
// token endpoint that checks the client's secret, the redirect URI and the PKCE verifier
// (S256) before it answers an ID token signed with its RS256 key and carrying the nonce.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { closeFake, listenLocal } from './fake-server.js';

export interface FakeOidc {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Who the next sign-in is: the `sub` and claims it gets. */
  person: { sub: string; email?: string };
  /** Token requests refused, with why (a bad verifier, a reused code…). */
  refusals: string[];
  close(): Promise<void>;
}

interface Grant {
  clientId: string;
  redirectUri: string;
  challenge: string;
  nonce: string;
  person: { sub: string; email?: string };
}

const readBody = async (req: IncomingMessage): Promise<string> => {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text;
};

export async function startFakeOidc(): Promise<FakeOidc> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const grants = new Map<string, Grant>();
  const fake = { clientId: 'warren-test', clientSecret: randomBytes(12).toString('hex'), person: { sub: 'subject-1', email: 'Oidc.Person@Example.com' } as FakeOidc['person'], refusals: [] as string[] };
  let issuer = '';

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/.well-known/openid-configuration') {
      json(200, { issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, jwks_uri: `${issuer}/jwks`, response_types_supported: ['code'], code_challenge_methods_supported: ['S256'] });
    } else if (url.pathname === '/jwks') {
      json(200, { keys: [jwk] });
    } else if (url.pathname === '/authorize') {
      const q = url.searchParams;
      if (q.get('response_type') !== 'code' || q.get('client_id') !== fake.clientId || q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge') || !q.get('state') || !q.get('nonce')) {
        json(400, { error: 'invalid_request' });
        return;
      }
      const code = randomBytes(16).toString('hex');
      grants.set(code, { clientId: fake.clientId, redirectUri: q.get('redirect_uri') ?? '', challenge: q.get('code_challenge') ?? '', nonce: q.get('nonce') ?? '', person: { ...fake.person } });
      const back = new URL(q.get('redirect_uri') ?? '');
      back.searchParams.set('code', code);
      back.searchParams.set('state', q.get('state') ?? '');
      res.writeHead(302, { location: back.toString() });
      res.end();
    } else if (url.pathname === '/token' && req.method === 'POST') {
      void (async () => {
        const form = new URLSearchParams(await readBody(req));
        const refuse = (why: string) => {
          fake.refusals.push(why);
          json(400, { error: 'invalid_grant', error_description: why });
        };
        const basic = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString();
        if (basic !== `${fake.clientId}:${fake.clientSecret}`) return refuse('client authentication');
        const code = form.get('code') ?? '';
        const grant = grants.get(code);
        grants.delete(code);
        if (!grant) return refuse('unknown or reused code');
        if (form.get('grant_type') !== 'authorization_code' || form.get('redirect_uri') !== grant.redirectUri) return refuse('redirect_uri');
        if (createHash('sha256').update(form.get('code_verifier') ?? '').digest('base64url') !== grant.challenge) return refuse('code_verifier');
        const idToken = await new SignJWT({ nonce: grant.nonce, ...(grant.person.email ? { email: grant.person.email, email_verified: true } : {}) })
          .setProtectedHeader({ alg: 'RS256', kid: 'test-key' })
          .setIssuer(issuer)
          .setAudience(grant.clientId)
          .setSubject(grant.person.sub)
          .setIssuedAt()
          .setExpirationTime('5m')
          .sign(privateKey);
        json(200, { access_token: randomBytes(8).toString('hex'), token_type: 'Bearer', expires_in: 300, id_token: idToken });
      })();
    } else {
      json(404, { error: 'not_found' });
    }
  });
  const port = await listenLocal(server);
  issuer = `http://127.0.0.1:${port}`;
  return Object.assign(fake, { issuer, close: () => closeFake(server) });
}
