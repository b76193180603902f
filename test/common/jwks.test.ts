/**
 * The keys a team takes from an identity provider's JWKS: only the key ids it maps, as Ed25519
 * decision keys or (a set with `webauthn`) passkeys whose assertions verify; a set that publishes
 * private keys, names a key id twice or holds a mapped key of another kind is refused, naming the
 * problem; and the team's `jwks` option is checked field by field.
 */
import { describe, expect, it } from 'vitest';
import { verifyDecisionSignature } from '../../src/client/signing';
import { jwksSourcesProblems, keySetRecordsCheck, keysOfJwks, type JwksSource } from '../../src/common/signatures/jwks';
import { trustedKeys } from '../../src/common/signatures/keys';
import { nodePasskey, passkeySign } from '../helpers/passkeys';
import { testKey } from '../helpers/signing';

const alice = testKey('idp-alice-1', 31);
const okp = { kty: 'OKP', crv: 'Ed25519', kid: alice.kid, x: alice.publicKey };
const source: JwksSource = { url: 'https://idp.example.com/jwks', approvers: { 'idp-alice-1': ['alice'] } };
const webauthn = { rpId: 'approvals.example.com', origins: ['https://approvals.example.com'] };

describe('keys taken from a JWKS', () => {
  it('are the mapped key ids only, as Ed25519 decision keys', () => {
    const taken = keysOfJwks(source, {
      keys: [{ kty: 'RSA', kid: 'tokens', n: 'AQAB', e: 'AQAB' }, okp, { ...okp, kid: 'someone-else' }],
    });
    expect(taken).toEqual({
      ok: true,
      keys: [{ kid: 'idp-alice-1', approvers: ['alice'], publicKey: alice.publicKey }],
    });
    expect(keysOfJwks(source, { keys: [] })).toEqual({ ok: true, keys: [] });
  });

  it('in a set with webauthn are passkeys whose assertions verify', () => {
    for (const crv of ['P-256', 'Ed25519'] as const) {
      const passkey = nodePasskey('idp-pk-1', crv);
      const { d: _private, ...exported } = passkey.privateKey.export({ format: 'jwk' }) as Record<string, string>;
      const jwk = { ...exported, kid: 'idp-pk-1', alg: crv === 'P-256' ? 'ES256' : 'EdDSA' };
      const taken = keysOfJwks({ url: source.url, approvers: { 'idp-pk-1': ['alice'] }, webauthn }, { keys: [jwk] });
      expect(taken).toMatchObject({ ok: true, keys: [{ kid: 'idp-pk-1', publicKey: passkey.publicKey, webauthn }] });
      const keys = trustedKeys({ keySets: [{ keys: taken.ok ? taken.keys : [] }] }, undefined);
      const facts = {
        workflowId: 'w',
        approval: 'a1',
        subject: { kind: 'handoff' as const, from: 'desk', to: 'vault' },
        outcome: 'approve' as const,
        approver: 'alice',
      };
      const now = Date.now();
      const verdict = verifyDecisionSignature(
        passkeySign(passkey, facts, webauthn.origins.map((origin) => ({ origin, rpId: webauthn.rpId }))[0]!),
        facts,
        keys,
        { requestedAt: now - 1000, arrivedAt: now },
      );
      expect(verdict).toMatchObject({
        ok: true,
        identity: { kid: 'idp-pk-1', keySource: 'team', passkey: { origin: webauthn.origins[0] } },
      });
    }
  });

  it('refuse a set that is not one, publishes private keys, repeats a key id or holds a mapped key that does not validate', () => {
    const problem = (doc: unknown, s: JwksSource = source) =>
      (({ ok, ...rest }) => (ok ? undefined : (rest as { problem: string }).problem))(keysOfJwks(s, doc));
    expect(problem([okp])).toMatch(/is not a JWK Set/);
    expect(problem({ keys: [alice.jwk] })).toMatch(
      /publishes private key material \(key 0, kid "idp-alice-1" has "d"\)/,
    );
    expect(problem({ keys: [okp, okp] })).toMatch(/names the key id "idp-alice-1" twice/);
    expect(problem({ keys: [{ ...okp, x: 'AAAA' }] })).toMatch(/"x" must be a valid Ed25519 public key/);
    expect(problem({ keys: [{ ...okp, use: 'enc' }] })).toMatch(/its "use" is "enc"/);
    expect(problem({ keys: [{ ...okp, alg: 'RS256' }] })).toMatch(/its "alg" is "RS256"/);
    expect(problem({ keys: [{ ...okp, key_ops: ['sign'] }] })).toMatch(/do not include "verify"/);
    expect(
      problem(
        { keys: [{ kty: 'EC', crv: 'P-256', kid: alice.kid, x: alice.publicKey, y: alice.publicKey }] },
        { ...source, webauthn },
      ),
    ).toMatch(/must be a point on P-256/);
    expect(problem({ keys: [{ kty: 'RSA', kid: alice.kid, n: 'AQAB', e: 'AQAB' }] })).toMatch(
      /it is "RSA" undefined; accepted: OKP Ed25519/,
    );
  });

  it('come from a team option checked field by field, with no key id from two places', () => {
    expect(jwksSourcesProblems([source])).toEqual([]);
    expect(jwksSourcesProblems([{ ...source, url: 'http://localhost:8080/jwks' }])).toEqual([]);
    expect(
      jwksSourcesProblems([
        { url: 'ftp://x', approvers: { 'a b': ['*'] }, refreshSeconds: 0, maxAgeSeconds: -1, extra: 1 },
      ]),
    ).toEqual([
      expect.stringContaining('"jwks[0].url" must be an https:// URL'),
      expect.stringContaining('"jwks[0].approvers" has the key id "a b"'),
      expect.stringContaining('"jwks[0].approvers.a b" must list the approvers'),
      expect.stringContaining('"jwks[0].refreshSeconds" must be whole seconds from 1 to 86400'),
      expect.stringContaining('"jwks[0].maxAgeSeconds" must be whole seconds from refreshSeconds'),
      expect.stringContaining('"jwks[0]" has unknown field(s) "extra"'),
    ]);
    expect(jwksSourcesProblems([source, { ...source, url: 'https://other.example.com/jwks' }])).toEqual([
      expect.stringContaining('"jwks[1].approvers" names the key id "idp-alice-1", which jwks[0] names too'),
    ]);
    // One URL twice would share the worker's one copy of it: refused, whatever each lists.
    expect(jwksSourcesProblems([source, { ...source, approvers: { 'idp-bob-1': ['bob'] } }])).toEqual([
      expect.stringContaining(`"jwks[1].url" repeats the URL of "jwks[0]" (${source.url})`),
    ]);
    expect(
      keySetRecordsCheck([{ url: source.url, fetchedAt: 'yesterday', keys: [{ kid: 'k' }] }], 'team.keySets'),
    ).toEqual([
      expect.stringContaining('"team.keySets[0].fetchedAt" must be an ISO 8601 time'),
      expect.stringContaining('"team.keySets[0].keys[0].approvers" must list the approvers'),
      expect.stringContaining('"team.keySets[0].keys[0].publicKey" must be a raw Ed25519 public key'),
    ]);
  });
});
