/**
 * The identity provider the harness's team trusts keys of: a node:http server in the harness's
 * process serving a JWK Set (`MODEL_JWKS_URL` for the workers' team), whose key alice signs with
 * rotates when an operation says so. The team maps both of the provider's key ids to alice and
 * lets workers refresh their copy every second.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { testKey } from '../helpers/signing';

/** The provider's two keys for alice: one is published at a time. */
export const IDP_KEYS = [testKey('idp-alice-1', 41), testKey('idp-alice-2', 42)] as const;

/** Which of {@link IDP_KEYS} the provider publishes now. */
const published = { index: 0 };

/** The key the provider publishes now. */
export const publishedKey = () => IDP_KEYS[published.index]!;

/** Publish the other key instead (a rotation at the provider). */
export function rotateIdpKey(): void {
  published.index = 1 - published.index;
}

/** Serve the provider's set on a free loopback port; resolves with its URL. The server does not keep the process alive. */
export async function startModelJwks(): Promise<string> {
  const server = http.createServer((_req, res) => {
    const k = publishedKey();
    res
      .writeHead(200, { 'content-type': 'application/jwk-set+json' })
      .end(JSON.stringify({ keys: [{ kty: 'OKP', crv: 'Ed25519', kid: k.kid, x: k.publicKey, use: 'sig' }] }));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  server.unref();
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
}
