/**
 * Decisions signed with a passkey: assertions a real authenticator made (Chromium's virtual
 * authenticator, `passkeys/vectors.json`) verify against the COSE key its registration returned;
 * the wrong origin or relying party, a replayed assertion, a counter that goes back, a key of another
 * approver or none, and changed bytes are refused with their problem.
 */
import { describe, expect, it } from 'vitest';
import { verifyDecisionSignature, type TrustedKey } from '../../src/client/signing';
import { base64url, fromBase64url } from '../../src/common/signatures/canonical';
import { approverKeysCheck } from '../../src/common/signatures/keys';
import { passkeySignature } from '../../src/common/signatures/passkey';
import { decisionPayload, type DecisionFacts } from '../../src/common/signatures/payload';
import { nodePasskey, passkeyEntry, passkeySign } from '../helpers/passkeys';
import recorded from './passkeys/vectors.json';

interface Vector {
  alg: string;
  rpId: string;
  origin: string;
  facts: DecisionFacts;
  iat: number;
  credentialId: string;
  registrationData: string;
  authenticatorData: string;
  clientDataJSON: string;
  signature: string;
}

/** The credential's COSE_Key, as registration's authenticator data carries it (after the credential id). */
function coseOfRegistration(data: Uint8Array): string {
  const idLength = (data[53]! << 8) + data[54]!;
  return base64url(data.subarray(55 + idLength));
}

const vectors = recorded.vectors as Vector[];
const keyOf = (v: Vector, over: Partial<TrustedKey> = {}): TrustedKey => ({
  kid: v.credentialId,
  approvers: ['alice'],
  publicKey: coseOfRegistration(fromBase64url(v.registrationData)!),
  webauthn: { rpId: v.rpId, origins: [v.origin] },
  source: 'team',
  ...over,
});
const signatureOf = (
  v: Vector,
  change: Partial<Record<'authenticatorData' | 'clientDataJSON' | 'signature', Uint8Array>> = {},
) =>
  passkeySignature(v.credentialId, decisionPayload(v.facts, v.iat), {
    authenticatorData: change.authenticatorData ?? fromBase64url(v.authenticatorData)!,
    clientDataJSON: change.clientDataJSON ?? fromBase64url(v.clientDataJSON)!,
    signature: change.signature ?? fromBase64url(v.signature)!,
  });
const timesOf = (v: Vector) => ({ requestedAt: v.iat * 1000 - 5000, arrivedAt: v.iat * 1000 + 5000 });

describe.each(vectors.map((v) => [v.alg, v] as const))(
  'a passkey assertion from a real authenticator (%s)',
  (_alg, v) => {
    it('verifies against the key its registration returned, naming the origin and counter', () => {
      const verdict = verifyDecisionSignature(signatureOf(v), v.facts, [keyOf(v)], timesOf(v));
      expect(verdict).toMatchObject({
        ok: true,
        identity: {
          method: 'signed',
          kid: v.credentialId,
          keySource: 'team',
          passkey: { origin: v.origin, signCount: expect.any(Number) },
        },
      });
      expect(approverKeysCheck([(({ source: _s, ...k }) => k)(keyOf(v))], 'approverKeys')).toEqual([]);
    });

    it('is refused from an origin, or for a relying party, its key does not allow', () => {
      expect(
        verifyDecisionSignature(
          signatureOf(v),
          v.facts,
          [keyOf(v, { webauthn: { rpId: v.rpId, origins: ['https://approvals.example.com'] } })],
          timesOf(v),
        ),
      ).toMatchObject({
        ok: false,
        problem: 'wrong_origin',
        reason: expect.stringContaining(`asked for by "${v.origin}"`),
      });
      expect(
        verifyDecisionSignature(
          signatureOf(v),
          v.facts,
          [keyOf(v, { webauthn: { rpId: 'example.com', origins: [v.origin] } })],
          timesOf(v),
        ),
      ).toMatchObject({ ok: false, problem: 'wrong_origin', reason: expect.stringContaining('rpIdHash') });
    });

    it('is refused for another decision, chain or approval, and when its counter does not go forward', () => {
      expect(
        verifyDecisionSignature(signatureOf(v), { ...v.facts, approval: 'a-2' }, [keyOf(v)], timesOf(v)),
      ).toMatchObject({ ok: false, problem: 'mismatch' });
      expect(
        verifyDecisionSignature(signatureOf(v), { ...v.facts, workflowId: 'another-chain' }, [keyOf(v)], timesOf(v)),
      ).toMatchObject({ ok: false, problem: 'mismatch' });
      // The assertion kept, the payload swapped for another decision's: its challenge is not that digest.
      const [, , ...assertion] = signatureOf(v).split('.');
      const swapped = [
        base64url(new TextEncoder().encode(JSON.stringify({ alg: 'WebAuthn', kid: v.credentialId }))),
        base64url(
          new TextEncoder().encode(
            JSON.stringify(
              decisionPayload({ ...v.facts, approval: 'a-2' }, v.iat),
              Object.keys(decisionPayload({ ...v.facts, approval: 'a-2' }, v.iat)).sort(),
            ),
          ),
        ),
        ...assertion,
      ].join('.');
      expect(verifyDecisionSignature(swapped, { ...v.facts, approval: 'a-2' }, [keyOf(v)], timesOf(v))).toMatchObject({
        ok: false,
        problem: 'mismatch',
        reason: expect.stringContaining("challenge is not this decision's digest"),
      });
      const count = (
        verifyDecisionSignature(signatureOf(v), v.facts, [keyOf(v)], timesOf(v)) as {
          identity: { passkey: { signCount: number } };
        }
      ).identity.passkey.signCount;
      expect(count).toBeGreaterThan(0);
      expect(verifyDecisionSignature(signatureOf(v), v.facts, [keyOf(v)], timesOf(v), () => count)).toMatchObject({
        ok: false,
        problem: 'replayed',
      });
      expect(verifyDecisionSignature(signatureOf(v), v.facts, [keyOf(v)], timesOf(v), () => count - 1)).toMatchObject({
        ok: true,
      });
    });

    it('is refused with a key of another approver, a key the chain does not trust, or an Ed25519 key of the same id', () => {
      expect(
        verifyDecisionSignature(signatureOf(v), v.facts, [keyOf(v, { approvers: ['bob'] })], timesOf(v)),
      ).toMatchObject({ ok: false, problem: 'wrong_approver' });
      expect(verifyDecisionSignature(signatureOf(v), v.facts, [keyOf(v, { kid: 'other' })], timesOf(v))).toMatchObject({
        ok: false,
        problem: 'unknown_key',
      });
      const { webauthn: _w, ...plain } = keyOf(v, { publicKey: base64url(new Uint8Array(32).fill(9)) });
      expect(verifyDecisionSignature(signatureOf(v), v.facts, [plain], timesOf(v))).toMatchObject({
        ok: false,
        problem: 'malformed',
        reason: expect.stringContaining('not a passkey'),
      });
    });

    it('is refused when a byte of what it signs changed, or another credential signed', () => {
      const data = fromBase64url(v.authenticatorData)!.slice();
      data[36] = data[36]! ^ 1;
      expect(
        verifyDecisionSignature(signatureOf(v, { authenticatorData: data }), v.facts, [keyOf(v)], timesOf(v)),
      ).toMatchObject({ ok: false, problem: 'bad_signature' });
      const client = new TextEncoder().encode(
        new TextDecoder().decode(fromBase64url(v.clientDataJSON)!).replace(v.origin, 'https://approvals.example.com'),
      );
      expect(
        verifyDecisionSignature(
          signatureOf(v, { clientDataJSON: client }),
          v.facts,
          [keyOf(v, { webauthn: { rpId: v.rpId, origins: ['https://approvals.example.com'] } })],
          timesOf(v),
        ),
      ).toMatchObject({ ok: false, problem: 'bad_signature' });
      const other = vectors.find((o) => o !== v)!;
      expect(
        verifyDecisionSignature(signatureOf(v), v.facts, [keyOf(v, { publicKey: keyOf(other).publicKey })], timesOf(v)),
      ).toMatchObject({ ok: false, problem: 'bad_signature' });
    });
  },
);

describe('passkey assertions made in Node', () => {
  const facts: DecisionFacts = {
    workflowId: 'w-1',
    approval: 'a-1',
    subject: { kind: 'tool_call', from: 'desk', tool: 'payout', callHash: 'abc' },
    outcome: 'reject',
    approver: 'alice',
    note: 'f'.repeat(64),
  };
  const at = { origin: 'https://approvals.example.com', rpId: 'approvals.example.com' };
  const now = { requestedAt: Date.now() - 1000, arrivedAt: Date.now() + 1000 };

  it.each(['P-256', 'Ed25519'] as const)(
    'verify on %s, and are refused for a registration, without user presence, or when stale',
    (crv) => {
      const p = nodePasskey('alice-pk', crv);
      const key: TrustedKey = { ...passkeyEntry(p, ['alice'], at.rpId, [at.origin]), source: 'run' };
      expect(verifyDecisionSignature(passkeySign(p, facts, at), facts, [key], now)).toMatchObject({
        ok: true,
        identity: { kid: 'alice-pk', keySource: 'run', passkey: { origin: at.origin, signCount: 1 } },
      });
      expect(
        verifyDecisionSignature(passkeySign(p, facts, { ...at, type: 'webauthn.create' }), facts, [key], now),
      ).toMatchObject({ ok: false, problem: 'malformed', reason: expect.stringContaining('webauthn.get') });
      expect(
        verifyDecisionSignature(passkeySign(p, facts, { ...at, present: false }), facts, [key], now),
      ).toMatchObject({ ok: false, problem: 'malformed', reason: expect.stringContaining('UP flag') });
      expect(
        verifyDecisionSignature(
          passkeySign(p, facts, { ...at, iat: Math.floor(Date.now() / 1000) - 3600 }),
          facts,
          [key],
          now,
        ),
      ).toMatchObject({ ok: false, problem: 'stale' });
    },
  );

  it('from an authenticator that keeps no counter (always 0) are taken, their replays refused by the approval they decide', () => {
    const p = nodePasskey('alice-pk');
    const key: TrustedKey = { ...passkeyEntry(p, ['alice'], at.rpId, [at.origin]), source: 'team' };
    expect(
      verifyDecisionSignature(passkeySign(p, facts, { ...at, signCount: 0 }), facts, [key], now, () => 0),
    ).toMatchObject({ ok: true });
    expect(
      verifyDecisionSignature(passkeySign(p, facts, { ...at, signCount: 0 }), facts, [key], now, () => 4),
    ).toMatchObject({ ok: false, problem: 'replayed' });
  });

  it('keys are checked where they are declared, naming what would be valid', () => {
    const p = nodePasskey('alice-pk');
    expect(approverKeysCheck([passkeyEntry(p, ['alice'], at.rpId, [at.origin])], 'approverKeys')).toEqual([]);
    const problems = approverKeysCheck(
      [
        {
          kid: 'k',
          approvers: ['alice'],
          publicKey: 'AAAA',
          webauthn: { rpId: 'Approvals.Example.com', origins: ['https://a.example/path'], extra: 1 } as never,
          service: true,
        },
      ],
      'approverKeys',
    );
    expect(problems.join('\n')).toMatch(/publicKey" of a passkey .* must be its COSE_Key/);
    expect(problems.join('\n')).toContain('"approverKeys[0].webauthn.rpId" must be the relying party\'s domain');
    expect(problems.join('\n')).toContain('"approverKeys[0].webauthn.origins" must list 1 to 20 page origins');
    expect(problems.join('\n')).toContain('unknown field(s) "extra"');
    expect(problems.join('\n')).toContain('cannot be a service key');
  });
});
