/**
 * Who may read what, on a real Temporal server and worker: every read route needs the read
 * permission (a token with no role reads nothing), JWTs without `exp` are refused unless allowed,
 * `/metrics` behind a token or on a port of its own, and the service on loopback unless told otherwise.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type KeyLike } from 'jose';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Baton } from '../../src/client/baton';
import { serveBaton } from '../../src/server';
import { useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { STATIC_TOKENS, TOKENS, withBareService, withService } from './service';
import { connectSse } from './sse';
import { refundTeam } from './team';

const server = useTemporalServer();

let jwks: http.Server;
let jwksUrl: string;
let privateKey: KeyLike;

beforeAll(async () => {
  const pair = await generateKeyPair('RS256');
  privateKey = pair.privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  jwks = http.createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })),
  );
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
  jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/.well-known/jwks.json`;
});
afterAll(() => new Promise<void>((resolve) => jwks.close(() => resolve())));

/** A JWT of the test key set, expiring in `expires` (`null`: no `exp` claim). */
function jwt(claims: Record<string, unknown>, expires: string | null = '5 minutes') {
  const token = new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setIssuer('https://issuer.test')
    .setAudience('baton')
    .setIssuedAt();
  return (expires ? token.setExpirationTime(expires) : token).sign(privateKey);
}

/** Whether something accepts connections at `url`. */
async function reachable(url: string): Promise<boolean> {
  return fetch(url, { signal: AbortSignal.timeout(3_000) }).then(
    () => true,
    () => false,
  );
}

describe('who may read', () => {
  it('refuses every read to a token with no role, a JWT without a roles claim among them, naming the permission; a viewer reads', async () => {
    const auth = { tokens: STATIC_TOKENS, jwt: { jwksUrl, issuer: 'https://issuer.test', audience: 'baton' } };
    await withService(
      server.env,
      refundTeam(),
      async ({ call, service }) => {
        const { workflowId } = (
          await call('POST', '/v1/runs', { token: TOKENS.ops, body: { agent: 'triage', input: 'refund order 42' } })
        ).body;
        await waitFor(
          () => call('GET', '/v1/approvals', { token: TOKENS.viewer }),
          (a) => a.body.approvals.length === 1,
        );
        const chat = `access-chat-${Date.now()}`;
        expect(
          (
            await call('POST', `/v1/conversations/${chat}/messages`, {
              token: TOKENS.ops,
              body: { agent: 'refunds', message: 'hello' },
            })
          ).status,
        ).toBe(200);
        const rolelessJwt = await jwt({ sub: 'dana' });
        expect((await call('GET', '/v1/me', { token: rolelessJwt })).body).toEqual({ name: 'dana', roles: [] });

        const reads = [
          '/v1/approvals',
          `/v1/runs/${workflowId}`,
          `/v1/runs/${workflowId}/audit`,
          `/v1/runs/${workflowId}/audit?format=timeline`,
          `/v1/conversations/${chat}`,
        ];
        for (const token of [rolelessJwt, TOKENS.nobody]) {
          for (const path of reads) {
            const refused = await call('GET', path, { token });
            expect(refused.status, path).toBe(403);
            expect(refused.headers.get('content-type')).toBe('application/problem+json');
            expect(refused.body.detail, path).toMatch(
              /may not read runs, audits, events, approvals or conversations: that needs the "read" permission, which the roles viewer, starter, approver, admin grant \(this token's roles: none\)/,
            );
            expect(refused.text).not.toContain(workflowId.slice(-12));
          }
          for (const path of [`/v1/runs/${workflowId}/events`, '/v1/approvals/events']) {
            const stream = await connectSse(`${service.url}${path}`, { authorization: `Bearer ${token}` });
            expect(stream.status, path).toBe(403);
            stream.close();
          }
        }
        for (const path of reads) expect((await call('GET', path, { token: TOKENS.viewer })).status, path).toBe(200);
        const viewerJwt = await jwt({ sub: 'erin', roles: ['viewer'] });
        expect((await call('GET', '/v1/approvals', { token: viewerJwt })).body.approvals).toHaveLength(1);
        const stream = await connectSse(`${service.url}/v1/runs/${workflowId}/events`, {
          authorization: `Bearer ${viewerJwt}`,
        });
        expect(stream.status).toBe(200);
        expect((await stream.events.next()).value).toMatchObject({ id: expect.stringMatching(/:0$/) });
        stream.close();
      },
      { service: { auth } },
    );
  });

  it('refuses a JWT without exp unless jwt.allowMissingExp is set, saying why', async () => {
    const unexpiring = await jwt({ sub: 'gina', roles: ['viewer'] }, null);
    await withBareService(
      server.env,
      async ({ call }) => {
        const refused = await call('GET', '/v1/approvals', { token: unexpiring });
        expect(refused.status).toBe(401);
        expect(refused.body.detail).toBe(
          'the JWT has no "exp" claim; JWTs that never expire are refused unless the service allows them (jwt.allowMissingExp, BATON_JWT_ALLOW_MISSING_EXP=true)',
        );
        const expired = await call('GET', '/v1/me', {
          token: await jwt({ sub: 'gina', roles: ['viewer'] }, '1 second ago'),
        });
        expect(expired.body.detail).toBe('the JWT has expired');
        expect((await call('GET', '/v1/me', { token: await jwt({ sub: 'gina', roles: ['viewer'] }) })).status).toBe(
          200,
        );
      },
      { auth: { jwt: { jwksUrl, audience: 'baton' } } },
    );
    await withBareService(
      server.env,
      async ({ call }) => {
        const allowed = await call('GET', '/v1/approvals', { token: unexpiring });
        expect(allowed.status).toBe(200);
      },
      { auth: { jwt: { jwksUrl, audience: 'baton', allowMissingExp: true } } },
    );
  });
});

describe('metrics and the address the service listens on', () => {
  it('serves /metrics only with the metrics token when one is set, or on a port of its own', async () => {
    await withBareService(
      server.env,
      async ({ call }) => {
        const open = await call('GET', '/metrics');
        expect(open.status).toBe(401);
        expect(open.headers.get('www-authenticate')).toBe('Bearer');
        expect(open.text).not.toContain('baton_http_requests_total');
        expect((await call('GET', '/metrics', { token: TOKENS.admin })).status).toBe(401);
        const scraped = await call('GET', '/metrics', { token: 'metrics-scrape-token' });
        expect(scraped.status).toBe(200);
        expect(scraped.text).toContain('# TYPE baton_http_requests_total counter');
      },
      { metrics: new Registry(), metricsToken: 'metrics-scrape-token' },
    );
    await withBareService(
      server.env,
      async ({ call, service }) => {
        expect((await call('GET', '/metrics')).status).toBe(404);
        expect(service.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
        const metrics = await fetch(service.metricsUrl!);
        expect(await metrics.text()).toContain('# TYPE baton_http_requests_total counter');
        expect((await fetch(service.metricsUrl!.replace(/metrics$/, 'v1/approvals'))).status).toBe(404);
      },
      { metrics: new Registry(), metricsPort: 0 },
    );
  });

  it('listens on 127.0.0.1 unless told otherwise', async () => {
    const baton = new Baton({ client: server.env.client });
    const local = await serveBaton({
      baton,
      auth: { tokens: STATIC_TOKENS },
      port: 0,
      metrics: false,
      log: () => undefined,
    });
    try {
      expect(await reachable(`${local.url}/healthz`)).toBe(true);
      // Another loopback address: reached by a service on every interface, not by one on 127.0.0.1.
      expect(await reachable(`${local.url.replace('127.0.0.1', '127.0.0.2')}/healthz`)).toBe(false);
    } finally {
      await local.close();
    }
    const everywhere = await serveBaton({
      baton,
      auth: { tokens: STATIC_TOKENS },
      port: 0,
      host: '0.0.0.0',
      metrics: false,
      log: () => undefined,
    });
    try {
      expect(await reachable(`${everywhere.url.replace('127.0.0.1', '127.0.0.2')}/healthz`)).toBe(true);
    } finally {
      await everywhere.close();
    }
  });
});
