/** Tokens to identities: static tokens and their digests, JWTs against a JWKS served over HTTP, roles; the start limiter. */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type KeyLike } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { Baton } from '../../src/client/baton';
import { authOptionsFromEnv, createBatonApp } from '../../src/server';
import { Authenticator, mayDecide, parseTokens, requirePermission } from '../../src/server/auth';
import { HttpProblem } from '../../src/server/problems';
import { StartLimiter } from '../../src/server/rateLimit';

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

function jwt(claims: Record<string, unknown>, options: { audience?: string; expires?: string } = {}) {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setIssuer('https://issuer.test')
    .setAudience(options.audience ?? 'baton')
    .setIssuedAt()
    .setExpirationTime(options.expires ?? '5 minutes')
    .sign(privateKey);
}

async function status(promise: Promise<unknown>): Promise<number | 'ok'> {
  try {
    await promise;
    return 'ok';
  } catch (err) {
    if (err instanceof HttpProblem) return err.status;
    throw err;
  }
}

describe('authentication', () => {
  it('maps static tokens, given plainly or as a SHA-256 digest, to identities', async () => {
    const digest = createHash('sha256').update('carol-secret-token').digest('hex');
    const auth = new Authenticator({
      tokens: [
        { token: 'alice-secret-token', identity: 'alice', roles: ['approver'] },
        { sha256: digest, identity: 'carol', roles: ['viewer'] },
      ],
    });
    expect(await auth.identify('Bearer alice-secret-token')).toEqual({ name: 'alice', roles: ['approver'] });
    expect(await auth.identify('bearer   carol-secret-token')).toEqual({ name: 'carol', roles: ['viewer'] });
    expect(await status(auth.identify(undefined))).toBe(401);
    expect(await status(auth.identify('Basic YWxpY2U6eA=='))).toBe(401);
    expect(await status(auth.identify('Bearer alice-secret-tokeN'))).toBe(401);
  });

  it('verifies JWTs against the JWKS: issuer, audience, expiry, the identity and roles claims', async () => {
    const auth = new Authenticator({ jwt: { jwksUrl, issuer: 'https://issuer.test', audience: 'baton' } });
    expect(await auth.identify(`Bearer ${await jwt({ sub: 'dana', roles: ['approver', 'unknown-role'] })}`)).toEqual({
      name: 'dana',
      roles: ['approver'],
    });
    expect(await auth.identify(`Bearer ${await jwt({ sub: 'erin', roles: 'starter viewer' })}`)).toEqual({
      name: 'erin',
      roles: ['starter', 'viewer'],
    });
    expect(
      await status(auth.identify(`Bearer ${await jwt({ sub: 'dana', roles: ['admin'] }, { audience: 'other' })}`)),
    ).toBe(401);
    expect(
      await status(
        auth.identify(`Bearer ${await jwt({ sub: 'dana', roles: ['admin'] }, { expires: '1 second ago' })}`),
      ),
    ).toBe(401);
    expect(await status(auth.identify(`Bearer ${await jwt({ roles: ['admin'] })}`))).toBe(401);
    const named = new Authenticator({ jwt: { jwksUrl, identityClaim: 'email', rolesClaim: 'baton_roles' } });
    expect(
      await named.identify(`Bearer ${await jwt({ sub: 'x', email: 'frank@example.com', baton_roles: ['admin'] })}`),
    ).toEqual({ name: 'frank@example.com', roles: ['admin'] });
  });

  it("carries the caller's tenant from a static token or a JWT claim, and refuses a tenant it cannot scope by", async () => {
    const auth = new Authenticator({
      tokens: [{ token: 'acme-alice-token', identity: 'alice', roles: ['approver'], tenant: 'acme' }],
      jwt: { jwksUrl },
    });
    expect(await auth.identify('Bearer acme-alice-token')).toEqual({
      name: 'alice',
      roles: ['approver'],
      tenant: 'acme',
    });
    expect(await auth.identify(`Bearer ${await jwt({ sub: 'dana', roles: ['viewer'], tenant: 'globex' })}`)).toEqual({
      name: 'dana',
      roles: ['viewer'],
      tenant: 'globex',
    });
    // A tenant claim that is not a tenant id must not fall back to no tenant (the chains without one).
    await expect(
      auth.check(`Bearer ${await jwt({ sub: 'dana', roles: ['viewer'], tenant: 'a/b' })}`),
    ).rejects.toMatchObject({
      status: 401,
      message: expect.stringMatching(/the JWT's "tenant" claim must be a tenant id/),
    });
    await expect(
      auth.check(`Bearer ${await jwt({ sub: 'dana', roles: ['viewer'], tenant: ['acme'] })}`),
    ).rejects.toMatchObject({ status: 401 });
    const claimed = new Authenticator({ jwt: { jwksUrl, tenantClaim: 'org' } });
    expect(
      await claimed.identify(`Bearer ${await jwt({ sub: 'dana', roles: ['viewer'], org: 'initech', tenant: 'acme' })}`),
    ).toEqual({ name: 'dana', roles: ['viewer'], tenant: 'initech' });
    expect(() =>
      parseTokens('[{"token":"long-enough-token","identity":"a","roles":["viewer"],"tenant":""}]', 'f'),
    ).toThrow(/f\[0\]: "tenant" must be a tenant id of 1-64 letters/);
  });

  it('serves the identity of a JWT through the app', async () => {
    const connection = Connection.lazy({ address: '127.0.0.1:1' });
    const baton = new Baton({ client: new Client({ connection }) });
    const app = createBatonApp({ baton, auth: { jwt: { jwksUrl, audience: 'baton' } }, metrics: false });
    const res = await app.request('/v1/me', {
      headers: { authorization: `Bearer ${await jwt({ sub: 'gina', roles: ['viewer'] })}` },
    });
    expect(await res.json()).toEqual({ name: 'gina', roles: ['viewer'] });
    expect((await app.request('/v1/me')).status).toBe(401);
    await connection.close();
  });

  it('reads JWT options from the environment, accepting JWTs without exp only when BATON_JWT_ALLOW_MISSING_EXP says so', () => {
    const base = { BATON_JWKS_URL: jwksUrl, BATON_JWT_AUDIENCE: 'baton,other' };
    expect(authOptionsFromEnv(base)).toEqual({ jwt: { jwksUrl, audience: ['baton', 'other'] } });
    expect(authOptionsFromEnv({ ...base, BATON_JWT_ALLOW_MISSING_EXP: 'true' })?.jwt?.allowMissingExp).toBe(true);
    expect(authOptionsFromEnv({ ...base, BATON_JWT_ALLOW_MISSING_EXP: 'false' })?.jwt?.allowMissingExp).toBeUndefined();
    expect(() => authOptionsFromEnv({ ...base, BATON_JWT_ALLOW_MISSING_EXP: 'sometimes' })).toThrow(
      'BATON_JWT_ALLOW_MISSING_EXP must be true or false, got "sometimes"',
    );
    expect(authOptionsFromEnv({})).toBeUndefined();
  });

  it('grants by role, and lets only the policy’s approvers decide', () => {
    expect(() => requirePermission({ name: 'v', roles: ['viewer'] }, 'read')).not.toThrow();
    expect(() => requirePermission({ name: 'v', roles: ['viewer'] }, 'start')).toThrow(HttpProblem);
    expect(() => requirePermission({ name: 'a', roles: ['approver'] }, 'start')).toThrow(HttpProblem);
    expect(() => requirePermission({ name: 'o', roles: ['starter'] }, 'decide')).toThrow(HttpProblem);
    expect(() => requirePermission({ name: 'root', roles: ['admin'] }, 'decide')).not.toThrow();
    expect(mayDecide({ name: 'alice', roles: ['approver'] }, ['alice', 'bob'])).toBe(true);
    expect(mayDecide({ name: 'carl', roles: ['approver'] }, ['alice', 'bob'])).toBe(false);
    expect(mayDecide({ name: 'carl', roles: ['approver'] }, undefined)).toBe(true);
    expect(mayDecide({ name: 'alice', roles: ['viewer'] }, ['alice'])).toBe(false);
  });

  it('refuses token files that cannot work, naming the entry', () => {
    expect(parseTokens('[{"token":"long-enough-token","identity":"a","roles":["viewer"]}]', 'f')).toHaveLength(1);
    expect(() => parseTokens('{', 'f')).toThrow(/f is not JSON/);
    expect(() => parseTokens('{"token":"x"}', 'f')).toThrow(/JSON array/);
    expect(() => parseTokens('[{"token":"short","identity":"a","roles":["viewer"]}]', 'f')).toThrow(
      /f\[0\] needs "token"/,
    );
    expect(() => parseTokens('[{"token":"long-enough-token","identity":"a","roles":["root"]}]', 'f')).toThrow(
      /f\[0\]: "roles"/,
    );
    expect(() => parseTokens('[{"sha256":"abc","identity":"a","roles":["viewer"]}]', 'f')).toThrow(/64 hex digits/);
    expect(() => new Authenticator({})).toThrow(/authenticate callers/);
  });
});

describe('the start limiter', () => {
  it('allows a burst, then one start per interval, per identity, with the wait in Retry-After', () => {
    let now = 0;
    const limiter = new StartLimiter({ startsPerMinute: 6, burst: 2 }, () => now);
    limiter.take('ops');
    limiter.take('ops');
    let refused: HttpProblem | undefined;
    try {
      limiter.take('ops');
    } catch (err) {
      refused = err as HttpProblem;
    }
    expect(refused?.status).toBe(429);
    expect(refused?.headers['retry-after']).toBe('10');
    limiter.take('alice');
    now += 10_000;
    expect(() => limiter.take('ops')).not.toThrow();
    expect(() => limiter.take('ops')).toThrow(HttpProblem);
  });
});
