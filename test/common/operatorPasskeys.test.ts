/**
 * Operators' decisions signed with a passkey: a WebAuthn assertion whose challenge is SHA-256 of the
 * canonical `baton.override/1` payload, by an `operatorKeys` entry with `webauthn`. It is taken with
 * its origin and counter; the wrong origin, a counter that does not go forward, a payload not in
 * canonical form, a passkey signature under an Ed25519 key (and the reverse) are refused; a team that
 * requires passkeys refuses Ed25519 operator signatures; a run from before the patch refuses a
 * passkey's signature as its code did.
 */
import { describe, expect, it } from 'vitest';
import { judgeOverrides } from '../../src/common/authority/overrides';
import { canonicalJson } from '../../src/common/signatures/canonical';
import {
  OPERATOR_SIGNATURE_VERSION,
  overridesDigest,
  verifyOperatorSignature,
} from '../../src/common/signatures/operator';
import { resolveRunOptions } from '../../src/common/options';
import type { TeamSpec } from '../../src/common/team';
import { overrideVerdict } from '../../workflows/chain/overrideVerdict';
import { applyOverrides } from '../../workflows/chain/state';
import type { ChainState } from '../../src/common/state';
import { nodePasskey, passkeyAssert, passkeyEntry } from '../helpers/passkeys';
import { testKey } from '../helpers/signing';
import { signOverrides } from '../../src/client/signing';
import { Team } from '../../src';

const AT = { rpId: 'ops.example.com', origin: 'https://ops.example.com' };
const workflowId = 'wf-ops-1';
const overrides = { options: { maxHandoffs: 9 } };
const payload = (iat = Math.floor(Date.now() / 1000)) => ({
  v: OPERATOR_SIGNATURE_VERSION,
  workflowId,
  operator: 'ops',
  overrides: overridesDigest(overrides),
  iat,
});

describe.each(['P-256', 'Ed25519'] as const)('an operator passkey (%s)', (crv) => {
  const passkey = nodePasskey('ops-passkey', crv);
  const keys = [passkeyEntry(passkey, ['ops'], AT.rpId, [AT.origin])];
  const claim = (signature: string) => ({ workflowId, overrides, operator: 'ops', signature, arrivedAt: Date.now() });

  it('signs an override with an assertion over the payload digest, recorded with origin and counter', () => {
    const verdict = verifyOperatorSignature(claim(passkeyAssert(passkey, payload(), AT)), keys);
    expect(verdict).toEqual({
      ok: true,
      identity: {
        method: 'signed',
        operator: 'ops',
        kid: 'ops-passkey',
        passkey: { origin: AT.origin, signCount: passkey.signCount },
      },
    });
  });

  it('is refused from another origin or relying party, with a counter that does not go forward, or over a payload not in canonical form', () => {
    expect(
      verifyOperatorSignature(
        claim(passkeyAssert(passkey, payload(), { ...AT, origin: 'https://evil.example.com' })),
        keys,
      ),
    ).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/asked for by "https:\/\/evil.example.com".*\(wrong_origin\)/),
    });
    expect(
      verifyOperatorSignature(claim(passkeyAssert(passkey, payload(), { ...AT, rpId: 'example.com' })), keys),
    ).toMatchObject({ ok: false, reason: expect.stringContaining('rpIdHash') });
    const again = passkeyAssert(passkey, payload(), AT);
    expect(verifyOperatorSignature(claim(again), keys, { lastSignCount: () => passkey.signCount })).toMatchObject({
      ok: false,
      reason: expect.stringContaining('(replayed)'),
    });
    const [h, , ...rest] = passkeyAssert(passkey, payload(), AT).split('.');
    const spaced = Buffer.from(JSON.stringify(payload(), null, 1)).toString('base64url');
    expect(verifyOperatorSignature(claim([h, spaced, ...rest].join('.')), keys)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('canonical JSON'),
    });
    const other = passkeyAssert(
      passkey,
      { ...payload(), overrides: overridesDigest({ options: { maxHandoffs: 99 } }) },
      AT,
    );
    expect(verifyOperatorSignature(claim(other), keys)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('for other overrides'),
    });
  });
});

describe('operator keys of both kinds', () => {
  const passkey = nodePasskey('ops-passkey', 'P-256');
  const ed = testKey('ops-1', 11);
  const keys = [
    passkeyEntry(passkey, ['ops'], AT.rpId, [AT.origin]),
    { kid: ed.kid, approvers: ['ops'], publicKey: ed.publicKey },
  ];
  const claim = (signature: string) => ({ workflowId, overrides, operator: 'ops', signature, arrivedAt: Date.now() });

  it('refuse a signature of the other kind, and an Ed25519 one where the team requires passkeys', async () => {
    const jws = (await signOverrides(ed.signer, { workflowId, operator: 'ops', overrides })).signature!;
    expect(verifyOperatorSignature(claim(jws), keys)).toMatchObject({ ok: true, identity: { kid: 'ops-1' } });
    expect(verifyOperatorSignature(claim(jws), keys, { requirePasskey: true })).toMatchObject({
      ok: false,
      reason: expect.stringContaining('requires operators to sign with a passkey'),
    });
    const asEd = passkeyAssert({ ...passkey, kid: 'ops-1' }, payload(), AT);
    expect(verifyOperatorSignature(claim(asEd), keys)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('is an Ed25519 key, not a passkey'),
    });
    const [, body, sig] = jws.split('.');
    const header = Buffer.from(canonicalJson({ alg: 'EdDSA', kid: 'ops-passkey' })).toString('base64url');
    expect(verifyOperatorSignature(claim([header, body, sig].join('.')), keys)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('is a passkey'),
    });
    expect(() => new Team([], { operatorKeys: [keys[1]!], requireOperatorPasskey: true })).toThrow(
      /requireOperatorPasskey needs an operatorKeys entry with "webauthn"/,
    );
    expect(() => new Team([], { operatorKeys: keys, requireOperatorPasskey: 'yes' as never })).toThrow(
      /requireOperatorPasskey must be true or false, got "yes"/,
    );
  });

  it('are judged against the counters a chain took, and refused as before in a run from before the patch', () => {
    const team = {
      agents: {},
      approvals: [],
      hasHandoffListeners: false,
      operatorKeys: keys,
      requireOperatorPasskey: true,
    } as TeamSpec;
    const state = { team, options: resolveRunOptions({ maxHandoffs: 3 }) } as ChainState;
    const signed = { ...overrides, operator: 'ops', signature: passkeyAssert(passkey, payload(), AT) };
    const bench = { workflowId, at: Date.now() };
    const taken = judgeOverrides(state, signed, bench);
    expect(taken).toMatchObject({
      ok: true,
      operator: { passkey: { signCount: passkey.signCount } },
      loosened: [expect.stringContaining('maxHandoffs')],
    });
    expect(
      judgeOverrides({ ...state, operatorSignCounts: { 'ops-passkey': passkey.signCount } }, signed, bench),
    ).toMatchObject({ ok: false, problems: [expect.stringContaining('(replayed)')] });
    const rules = { bounded: true, authority: true, workflowId, at: bench.at };
    expect(overrideVerdict(signed, state, { ...rules, patched: () => true })).toMatchObject({
      kind: 'applied',
      applied: { identity: { kid: 'ops-passkey' } },
    });
    expect(overrideVerdict(signed, state, { ...rules, patched: () => false })).toMatchObject({
      kind: 'refused',
      refusal: {
        type: 'overrides_refused',
        operator: 'ops',
        problems: [
          "the operator's signature is refused: the operator's signature must be a JWS compact serialization (header.payload.signature, at most 4096 characters)",
        ],
      },
    });
  });
});

describe('operator signatures in a run with the patch', () => {
  const passkey = nodePasskey('ops-passkey', 'P-256');
  const ed = testKey('ops-1', 11);
  const team = {
    agents: {},
    approvals: [],
    hasHandoffListeners: false,
    operatorKeys: [
      passkeyEntry(passkey, ['ops'], AT.rpId, [AT.origin]),
      { kid: ed.kid, approvers: ['ops'], publicKey: ed.publicKey },
    ],
  } as TeamSpec;
  const state = { team, options: resolveRunOptions({ maxHandoffs: 3 }) } as ChainState;
  const rules = { bounded: true, authority: true, workflowId, at: Date.now() };
  /** The overrides applied to `s`, and the state after them. */
  const take = (s: ChainState, raw: unknown, patched = true) => {
    const v = overrideVerdict(raw, s, { ...rules, patched: () => patched });
    return {
      v,
      after: v.kind === 'applied' ? applyOverrides(s, v.applied as Parameters<typeof applyOverrides>[1]) : s,
    };
  };

  it('are each taken once: an Ed25519 JWS or a passkey whose counter stays 0, sent again, is refused; a newer one is taken', async () => {
    const signedAt = Date.now() - 5_000;
    const jws = await signOverrides(ed.signer, { workflowId, operator: 'ops', overrides, now: signedAt });
    const first = take(state, jws);
    expect(first.v).toMatchObject({
      kind: 'applied',
      applied: { identity: { kid: 'ops-1', iat: expect.any(Number) } },
    });
    expect(first.after.operatorSignedAt).toEqual({ 'ops-1': Math.floor(signedAt / 1000) });
    expect(take(first.after, jws).v).toMatchObject({
      kind: 'refused',
      refusal: { problems: [expect.stringContaining('each signature is taken once')] },
    });
    const newer = await signOverrides(ed.signer, { workflowId, operator: 'ops', overrides });
    expect(take(first.after, newer).v).toMatchObject({ kind: 'applied' });

    // Synced passkeys report a counter of 0 every time: the counter cannot tell a replay, the time can.
    const zero = {
      ...overrides,
      operator: 'ops',
      signature: passkeyAssert(passkey, payload(Math.floor(Date.now() / 1000) - 5), { ...AT, signCount: 0 }),
    };
    const taken = take(first.after, zero);
    expect(taken.v).toMatchObject({
      kind: 'applied',
      applied: { identity: { kid: 'ops-passkey', passkey: { signCount: 0 } } },
    });
    expect(take(taken.after, zero).v).toMatchObject({
      kind: 'refused',
      refusal: { problems: [expect.stringContaining('(replayed)')] },
    });
  });

  it('are taken again within their age in a run from before the patch, as its code did', async () => {
    const jws = await signOverrides(ed.signer, { workflowId, operator: 'ops', overrides });
    const first = take(state, jws, false);
    expect(first.v).toMatchObject({ kind: 'applied' });
    expect(first.after.operatorSignedAt).toBeUndefined();
    expect(take(first.after, jws, false).v).toMatchObject({ kind: 'applied' });
  });
});
