/**
 * The team's published key sets as a worker holds them, against a JWKS served by a node:http server
 * and a clock the test moves: a copy is fetched again only once it is older than `refreshSeconds`,
 * a rotation reaches the next snapshot, a failed fetch leaves the last good copy's keys with the
 * failure recorded, and past `maxAgeSeconds` none of the set's keys is trusted. A body is read as it
 * arrives, counted in bytes: one over 512 KB is cancelled there, and a body that fails or stalls
 * past the timeout is a `KeySetError` naming the URL.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JwksSource } from '../../src/common/signatures/jwks';
import { fetchKeySet, KeySetError, KeySetResolver } from '../../src/worker/keySets';
import { testKey } from '../helpers/signing';

const idp = { first: testKey('idp-alice-1', 41), second: testKey('idp-alice-2', 42) };
const jwk = (k: typeof idp.first) => ({ kty: 'OKP', crv: 'Ed25519', kid: k.kid, x: k.publicKey });
const approvers = { 'idp-alice-1': ['alice'], 'idp-alice-2': ['alice'] };
const LIMIT = 512 * 1024;

/** What `/jwks` answers now, and how often it was asked. */
const jwks = { status: 200, body: '', requests: 0 };
/** How much of `/huge` the server wrote, and whether it wrote it all. */
const huge = { total: 64 * 1024 * 1024, sent: 0, finished: false, closed: Promise.resolve() };

const server = http.createServer((req, res) => {
  if (req.url === '/jwks') {
    jwks.requests++;
    res.writeHead(jwks.status, { 'content-type': 'application/json' }).end(jwks.body);
  } else if (req.url === '/huge') {
    huge.closed = once(res, 'close').then(() => void (huge.finished = res.writableFinished));
    void writeHuge(res);
  } else if (req.url === '/wide') {
    // 200 000 characters of three bytes each: 600 KB of UTF-8 in under 512 K UTF-16 units.
    const body = JSON.stringify({ keys: [jwk(idp.first)], note: '€'.repeat(200_000) });
    res.writeHead(200, { 'content-type': 'application/json' });
    for (let i = 0; i < body.length; i += 10_000) res.write(body.slice(i, i + 10_000));
    res.end();
  } else if (req.url === '/stall') {
    res.writeHead(200, { 'content-type': 'application/json' }).write('{"keys": [');
  } else if (req.url === '/cut') {
    res.writeHead(200, { 'content-type': 'application/json' }).write('{"keys": [', () => res.destroy());
  } else if (req.url === '/latin1') {
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(Buffer.from('{"keys": [], "note": "caf\xe9"}', 'latin1'));
  } else res.writeHead(404).end();
});

/** 64 MB of spaces in chunks, with no content-length, as fast as the reader takes them. */
async function writeHuge(res: http.ServerResponse): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/json' });
  const chunk = Buffer.alloc(64 * 1024, ' ');
  const closed = once(res, 'close');
  for (huge.sent = 0; huge.sent < huge.total && !res.destroyed; huge.sent += chunk.length)
    if (!res.write(chunk)) await Promise.race([once(res, 'drain'), closed]);
  if (!res.destroyed) res.end();
}

let base = '';
beforeAll(async () => {
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((ok) => server.close(() => ok()));
});

const source = (path: string, more: Partial<JwksSource> = {}): JwksSource => ({
  url: `${base}${path}`,
  approvers,
  ...more,
});
const serve = (keys: (typeof idp.first)[], status = 200) =>
  Object.assign(jwks, {
    status,
    body: status === 200 ? JSON.stringify({ keys: keys.map(jwk) }) : 'down for maintenance',
  });

describe('a worker’s copy of a published key set', () => {
  it('is fetched again after refreshSeconds, kept through a failure, and trusted no more past maxAgeSeconds', async () => {
    const t0 = Date.parse('2026-03-01T12:00:00.000Z');
    let clock = t0;
    const at = (seconds: number) => (clock = t0 + seconds * 1000);
    const iso = (seconds: number) => new Date(t0 + seconds * 1000).toISOString();
    const resolver = new KeySetResolver([source('/jwks', { refreshSeconds: 60, maxAgeSeconds: 600 })], {
      now: () => clock,
    });
    const record = async () => (await resolver.records())[0]!;
    const kids = (r: { keys: { kid: string }[] }) => r.keys.map((k) => k.kid);
    serve([idp.first]);
    jwks.requests = 0;

    await resolver.start();
    at(59);
    expect(await record()).toEqual({
      url: `${base}/jwks`,
      fetchedAt: iso(0),
      keys: [{ kid: 'idp-alice-1', approvers: ['alice'], publicKey: idp.first.publicKey }],
    });
    expect(jwks.requests).toBe(1);

    // The identity provider rotates; the copy is fetched again once it is older than refreshSeconds.
    serve([idp.second]);
    at(60);
    expect(kids(await record())).toEqual(['idp-alice-1']);
    expect(jwks.requests).toBe(1);
    at(61);
    expect(await record()).toMatchObject({ fetchedAt: iso(61), keys: [{ kid: 'idp-alice-2' }] });
    expect(jwks.requests).toBe(2);

    // The set fails: the last good copy serves, the failure recorded; it is tried again no sooner than a good copy would be.
    serve([], 503);
    at(122);
    const failing = await record();
    expect(failing).toMatchObject({ fetchedAt: iso(61), keys: [{ kid: 'idp-alice-2' }] });
    expect(failing.error).toContain(
      `answered HTTP 503 instead of 200 with a JWK Set; its keys are those of the copy fetched at ${iso(61)}`,
    );
    at(181);
    expect(await record()).toEqual(failing);
    expect(jwks.requests).toBe(3);

    // A copy maxAgeSeconds old still serves; past that none of its keys is trusted, fetched again or not.
    at(61 + 600);
    expect(await record()).toMatchObject({ fetchedAt: iso(61), keys: [{ kid: 'idp-alice-2' }] });
    expect(jwks.requests).toBe(4);
    at(61 + 601);
    const expired = await record();
    expect(expired).toMatchObject({ fetchedAt: iso(61), keys: [] });
    expect(jwks.requests).toBe(4);
    expect(expired.error).toContain('answered HTTP 503');
    expect(expired.error).toContain('its last good copy is older than 600 s, so none of its keys is trusted');

    // It answers again: the next snapshot after refreshSeconds trusts what it serves, and records no error.
    serve([idp.first]);
    at(61 + 661);
    expect(await record()).toEqual({
      url: `${base}/jwks`,
      fetchedAt: iso(61 + 661),
      keys: [{ kid: 'idp-alice-1', approvers: ['alice'], publicKey: idp.first.publicKey }],
    });
    expect(jwks.requests).toBe(5);
  });
});

describe('fetching a published key set', () => {
  const refusal = (path: string, timeoutMs?: number) =>
    fetchKeySet(source(path), timeoutMs === undefined ? {} : { timeoutMs }).then(
      () => undefined,
      (e: unknown) => e,
    );

  it('cancels a body with no content-length once it is past 512 KB, without reading the rest', async () => {
    const err = await refusal('/huge');
    expect(err).toBeInstanceOf(KeySetError);
    expect(err).toMatchObject({
      url: `${base}/huge`,
      problem: `is longer than ${LIMIT} bytes; a key set may be at most ${LIMIT}`,
    });
    await huge.closed;
    expect(huge.finished).toBe(false);
    expect(huge.sent).toBeLessThan(huge.total);
  });

  it('counts the body in bytes, not characters', async () => {
    expect(await refusal('/wide')).toMatchObject({
      url: `${base}/wide`,
      problem: expect.stringContaining(`longer than ${LIMIT} bytes`),
    });
    expect(await refusal('/latin1')).toMatchObject({
      url: `${base}/latin1`,
      problem: expect.stringContaining('is not UTF-8 text'),
    });
  });

  it('refuses a body that stalls past the timeout or is cut off, naming the URL', { timeout: 20_000 }, async () => {
    const stalled = await refusal('/stall', 300);
    expect(stalled).toBeInstanceOf(KeySetError);
    expect(stalled).toMatchObject({
      url: `${base}/stall`,
      problem: expect.stringMatching(
        /could not be read to its end \(.*\); check the URL and that the identity provider answers within 0.3 s/,
      ),
    });
    const cut = await refusal('/cut');
    expect(cut).toBeInstanceOf(KeySetError);
    expect(cut).toMatchObject({ url: `${base}/cut`, problem: expect.stringContaining('could not be read to its end') });
  });
});
