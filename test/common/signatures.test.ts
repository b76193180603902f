/**
 * The pure pieces of signed decisions: canonical JSON and base64url, the payload, verification's
 * refusals with their reasons, and the checks of approver keys where they are declared.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, LIMITS, Team, TeamValidationError } from '../../src';
import {
  approverKey,
  decisionSigner,
  factsOfDecision,
  keyThumbprint,
  signDecision,
  verifyDecisionSignature,
  type TrustedKey,
} from '../../src/client/signing';
import { InputTooLargeError } from '../../src/workflow';
import { base64url, canonicalJson, fromBase64url } from '../../src/common/signatures/canonical';
import { approverKeysCheck } from '../../src/common/signatures/keys';
import { validateRunInput } from '../../src/common/input';
import { chainStateCheck } from '../../src/common/stateChecks';
import { decisionSizes } from '../../src/common/sizes';
import { InvalidRunInputError } from '../../src/common/errors';
import { scriptedAgent } from '../helpers/agents';
import { keys, signedTeam, teamKeys } from '../helpers/signing';
import { judgeDecision, recordOf } from '../../workflows/chain/decisions';
import { startChain } from '../../workflows/chain/state';
import { resolveRunOptions } from '../../src/common/options';

const trusted: TrustedKey[] = teamKeys.map((k) => ({ ...k, source: 'team' }));
const waiting = {
  handoffId: 'h1',
  from: 'desk',
  to: 'tool:payout',
  tool: { name: 'payout', arguments: '{"amount":5,"to":"bob"}', toolCallId: 'c1', callHash: 'abc123' },
};
const decision = { approver: 'alice', decision: 'approve' as const, comment: 'ok' };
const now = Date.parse('2026-06-01T12:00:00Z');
const times = { requestedAt: now - 60_000, arrivedAt: now + 1_000 };

describe('canonical JSON and base64url', () => {
  it('sorts keys at every depth, writes no whitespace, and keeps text as UTF-8', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 'é', c: null }], e: undefined, f: 1.5 })).toBe(
      '{"a":[{"c":null,"d":"é"}],"b":1,"f":1.5}',
    );
    expect(() => canonicalJson({ x: Number.NaN })).toThrow(TypeError);
    const bytes = new Uint8Array([0, 255, 250, 1, 2]);
    expect(base64url(bytes)).toBe('AP_6AQI');
    expect(fromBase64url('AP_6AQI')).toEqual(bytes);
    // One value, one text: padding, other alphabets and stray bits are refused.
    expect([fromBase64url('AP_6AQI='), fromBase64url('AP/6AQI'), fromBase64url('AP_6AQJ')]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe('verifying a decision signature', () => {
  const facts = factsOfDecision('wf-1', waiting, decision);
  const sign = (signer = keys.alice.signer, f = { waiting, decision }, at = now) =>
    signDecision(signer, { workflowId: 'wf-1', ...f, now: at });

  it('accepts a signature over exactly the decision, by the approver’s key, and names the key', async () => {
    const verdict = verifyDecisionSignature(await sign(), facts, trusted, times);
    expect(verdict).toMatchObject({
      ok: true,
      identity: { method: 'signed', kid: 'alice-1', keySource: 'team' },
      payload: { v: 'baton.decision/1', approval: 'h1', subject: { kind: 'tool_call', callHash: 'abc123' } },
    });
  });

  it('refuses every other signature with the problem and a reason', async () => {
    const refused = async (jws: string | Promise<string>, f = facts, t = times) => {
      const v = verifyDecisionSignature(await jws, f, trusted, t);
      return v.ok ? 'accepted' : `${v.problem}: ${v.reason}`;
    };
    expect(await refused('not a jws')).toMatch(/^malformed: the signature must be a JWS compact serialization/);
    expect(await refused(`${base64url(new TextEncoder().encode('{"alg":"HS256","kid":"alice-1"}'))}.e30.AA`)).toMatch(
      /^malformed: the signature's header must be/,
    );
    expect(await refused(sign(keys.mallory.signer))).toBe(
      'unknown_key: no key "mallory-1" is trusted by this chain (trusted: alice-1, alice-0, bob-1, service-1; the team\'s approverKeys or the run\'s options name them)',
    );
    expect(
      await refused(
        sign(keys.bob.signer, { waiting, decision: { ...decision, approver: 'bob' } }),
        factsOfDecision('wf-1', waiting, { ...decision, approver: 'bob' }),
      ),
    ).toBe('accepted');
    expect(
      await refused(
        sign(keys.alice.signer, { waiting, decision: { ...decision, approver: 'bob' } }),
        factsOfDecision('wf-1', waiting, { ...decision, approver: 'bob' }),
      ),
    ).toBe('wrong_approver: key "alice-1" signs for alice, not for bob');
    expect(await refused(sign({ kid: 'alice-1', sign: keys.mallory.signer.sign }))).toMatch(
      /^bad_signature: the signature does not verify with key "alice-1"/,
    );
    expect(
      await refused(sign(keys.alice.signer, { waiting, decision: { ...decision, decision: 'reject' } as never })),
    ).toBe('mismatch: the signature is for reject, not approve');
    expect(await refused(sign(keys.alice.signer, { waiting, decision: { ...decision, comment: 'other' } }))).toMatch(
      /^mismatch: the signature is for a note with digest/,
    );
    expect(await refused(sign(), factsOfDecision('wf-2', waiting, decision))).toBe(
      'mismatch: the signature is for chain wf-1, not wf-2',
    );
    expect(
      await refused(
        sign(keys.alice.signer, { waiting, decision: { ...decision, arguments: { amount: 1, to: 'bob' } } as never }),
      ),
    ).toMatch(/^mismatch: the signature is for arguments with digest [0-9a-f]{64}, but the decision keeps the model's/);
    expect(await refused(sign(keys.alice.signer, undefined, now - 3_600_000))).toMatch(
      /^stale: .*before the approval was asked/,
    );
    expect(await refused(sign(), facts, { requestedAt: now - 3_600_000, arrivedAt: now + 3_600_000 })).toMatch(
      /^stale: .*more than 900 s before it arrived/,
    );
    expect(await refused(sign(keys.alice.signer, undefined, now + 600_000))).toMatch(
      /^stale: the signature claims to be made at .*after it arrived.*check the signer's clock/,
    );
    expect(await refused(sign(keys.aliceOld.signer))).toBe(
      'key_not_valid: key "alice-0" was retired at 2020-01-01T00:00:00Z; the decision arrived at 2026-06-01T12:00:01.000Z',
    );
    // A payload with the right fields but not in canonical form (here: spaced) is refused too.
    const jws = await sign();
    const [head, body] = jws.split('.') as [string, string];
    const spaced = base64url(
      new TextEncoder().encode(JSON.stringify(JSON.parse(new TextDecoder().decode(fromBase64url(body)!)), null, 1)),
    );
    const input = `${head}.${spaced}`;
    expect(
      await refused(`${input}.${base64url(keys.alice.signer.sign(new TextEncoder().encode(input)) as Uint8Array)}`),
    ).toMatch(/^malformed: the signed payload is not the canonical JSON/);
  });

  it('takes a service key only with the token it checked, and records the token', async () => {
    const token = { iss: 'https://id.example', sub: 'u-1' };
    const jws = await signDecision(keys.service.signer, { workflowId: 'wf-1', waiting, decision, now, token });
    expect(verifyDecisionSignature(jws, facts, trusted, times)).toMatchObject({
      ok: true,
      identity: { method: 'token', kid: 'service-1', issuer: 'https://id.example', subject: 'u-1' },
    });
    const bare = await signDecision(keys.service.signer, { workflowId: 'wf-1', waiting, decision, now });
    expect(verifyDecisionSignature(bare, facts, trusted, times)).toMatchObject({
      ok: false,
      problem: 'malformed',
      reason: expect.stringContaining('its signatures name the token it checked'),
    });
  });

  it('takes little time per decision', async () => {
    const jws = await sign();
    const started = performance.now();
    for (let i = 0; i < 20; i++) expect(verifyDecisionSignature(jws, facts, trusted, times).ok).toBe(true);
    console.log(`verifying a decision signature: ${((performance.now() - started) / 20).toFixed(2)} ms`);
  });
});

describe('judging a signed decision in the workflow', () => {
  it('records a claimed approver where no signature is required, and refuses a signature in a chain from before signatures', async () => {
    const state = startChain(signedTeam().spec(), 'desk', 'pay', resolveRunOptions());
    const pending = {
      ...waiting,
      message: 'payout',
      requestedAt: new Date(now - 1000).toISOString(),
      onTimeout: 'reject' as const,
    };
    const withPending = { ...state, approvals: { ...state.approvals, pending: [pending] } };
    const raw = {
      handoffId: 'h1',
      approver: 'alice',
      decision: 'approve',
      signature: await signDecision(keys.alice.signer, {
        workflowId: 'wf-1',
        waiting,
        decision: { approver: 'alice', decision: 'approve' },
        now,
      }),
    };
    const bench = { state: withPending, inSpecialist: () => undefined, bounded: true };
    expect(
      judgeDecision(
        { handoffId: 'h1', approver: 'bob', decision: 'approve' },
        { ...bench, signatures: { workflowId: 'wf-1', at: now } },
      ),
    ).toMatchObject({ kind: 'apply', identity: { method: 'claimed' } });
    expect(judgeDecision(raw, { ...bench, signatures: { workflowId: 'wf-1', at: now } })).toMatchObject({
      kind: 'apply',
      identity: { method: 'signed', kid: 'alice-1' },
    });
    expect(judgeDecision(raw, bench)).toMatchObject({
      kind: 'refused',
      reason: 'this chain started before baton verified signatures: send the decision without one',
    });
    // A chain that continues as new carries its waiting approvals and signed records on.
    const judged = judgeDecision(raw, { ...bench, signatures: { workflowId: 'wf-1', at: now } });
    const record =
      judged.kind === 'apply' ? recordOf(judged.decision, judged.waiting, now, 'update', judged.identity) : undefined;
    expect(record).toMatchObject({ identity: { method: 'signed' }, signature: raw.signature });
    const carried = {
      ...withPending,
      approvals: { pending: [{ ...pending, requireSignature: true }], decided: [record!] },
    };
    expect(chainStateCheck(JSON.parse(JSON.stringify(carried)), 'resume')).toEqual([]);
  });
});

describe('approver keys where they are declared', () => {
  it('are checked by the team, the run options and the helpers, naming each problem', () => {
    expect(
      () =>
        new Team([scriptedAgent('a', [{ text: 'x' }])], {
          approverKeys: [{ kid: 'a b', approvers: ['*'], publicKey: 'short' }],
        }),
    ).toThrow(TeamValidationError);
    expect(
      approverKeysCheck(
        [
          { kid: 'a b', approvers: ['*'], publicKey: 'short', notBefore: 'soon', extra: 1 },
          { ...teamKeys[0], notBefore: '2030-01-01T00:00:00Z', notAfter: '2029-01-01T00:00:00Z' },
          teamKeys[2],
          teamKeys[2],
        ],
        'approverKeys',
      ),
    ).toEqual([
      '"approverKeys[0].kid" must be 1 to 128 printable characters without spaces, got "a b"',
      '"approverKeys[0].approvers" names "*" (any approver), which only a service key (service: true) may: a person\'s key signs for that person',
      '"approverKeys[0].publicKey" must be a raw Ed25519 public key, 32 bytes in base64url without padding (a JWK\'s "x"), got "short"',
      '"approverKeys[0].notBefore" must be an ISO 8601 time such as "2026-01-31T00:00:00Z", got "soon"',
      '"approverKeys[0]" has unknown field(s) "extra" (valid: kid, approvers, publicKey, service, notBefore, notAfter, webauthn)',
      '"approverKeys[1].notAfter" (2029-01-01T00:00:00Z) must come after "approverKeys[1].notBefore" (2030-01-01T00:00:00Z)',
      '"approverKeys" lists the key id "bob-1" twice: each key needs its own kid',
    ]);
    expect(() =>
      validateRunInput({
        agent: 'a',
        input: 'x',
        options: {
          approverKeys: [{ kid: 'k', approvers: [], publicKey: keys.bob.publicKey }],
          requireSignature: 'yes',
        },
      }),
    ).toThrow(InvalidRunInputError);
    expect(() =>
      defineTool({
        name: 't',
        description: 't',
        parameters: z.object({}),
        needsApproval: { requireSignature: 'yes' } as never,
        execute: () => '',
      }),
    ).toThrow(/"needsApproval.requireSignature" must be true or false/);
    expect(decisionSizes({ handoffId: 'h', approver: 'a', signature: 'x'.repeat(LIMITS.signatureChars + 1) })).toEqual([
      {
        field: 'decision.signature',
        size: LIMITS.signatureChars + 1,
        limit: LIMITS.signatureChars,
        unit: 'characters',
      },
    ]);
    expect(
      new InputTooLargeError(decisionSizes({ handoffId: 'h', approver: 'a', signature: 'x'.repeat(5000) })).field,
    ).toBe('decision.signature');
  });

  it('are made from PEM or JWK keys by the helpers, with the key thumbprint as the default id', () => {
    const pem = keys.alice.privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    expect(decisionSigner(pem).kid).toBe(keyThumbprint(keys.alice.jwk));
    expect(decisionSigner(keys.alice.jwk).kid).toBe('alice-1');
    expect(approverKey(pem, { approvers: ['alice'] })).toEqual({
      kid: keyThumbprint(pem),
      approvers: ['alice'],
      publicKey: keys.alice.publicKey,
    });
    expect(() => decisionSigner('not a key')).toThrow(/not an Ed25519 private key/);
  });
});
