/**
 * Delegation grants: "bob decides for alice until Friday", as a JWS compact serialization
 * (`{"alg":"EdDSA","kid":…}`) over the canonical payload naming the slot, the delegate, who grants
 * it and until when — signed by the slot's owner with a key the chain trusts for them, or by an
 * operator with a key of the team's `operatorKeys`. A decision for another's slot carries its grant
 * (`onBehalfOf`, `delegation`); the workflow verifies it here, in pure code, when the decision
 * arrives, so nothing readable from history or sent unsigned can give anyone a slot.
 *
 * Workflow-safe: no I/O.
 */
import { isRecord } from '../check';
import { clipText, LIMITS } from '../limits';
import { canonicalJson, fromBase64url, utf8 } from './canonical';
import { ed25519Verifies, jsonOfPart, jwsSigningInput } from './jws';
import type { ApproverKey, TrustedKey } from './keys';

/** The version tag of a grant's payload (`v`). */
export const DELEGATION_SIGNATURE_VERSION = 'baton.delegation/1';

/** The longest a grant may run, from its signing to its expiry: 90 days. */
export const MAX_DELEGATION_SECONDS = 90 * 24 * 3600;

/** What a grant says. */
export interface DelegationPayload {
  v: typeof DELEGATION_SIGNATURE_VERSION;
  /** The slot given: the approver name a policy lists. */
  slot: string;
  /** Who may decide for it. */
  delegate: string;
  /** `approver`: the slot's owner grants it (then `by` is the slot); `operator`: an operator does. */
  authority: 'approver' | 'operator';
  /** Who signed it: the slot's owner, or the operator's name as `operatorKeys` lists it. */
  by: string;
  /** Seconds since 1970-01-01T00:00:00Z: signed at, and valid until. */
  iat: number;
  exp: number;
  /** The one chain it is for; every chain that trusts the key when absent. */
  workflowId?: string;
}

/** What a decision claims: the slot, the delegate (the decision's approver), the chain, and when it arrived (ms). */
export interface DelegationClaim {
  grant: string;
  slot: string;
  delegate: string;
  workflowId: string;
  arrivedAt: number;
}

/** The keys a grant may be signed with: those the chain trusts for approvers, and the team's operator keys. */
export interface DelegationKeys {
  approvers: readonly TrustedKey[];
  operators: readonly ApproverKey[];
}

/** A verified grant. */
export interface VerifiedGrant {
  by: string;
  authority: 'approver' | 'operator';
  kid: string;
  /** ISO 8601. */
  until: string;
}

/** The JWS signing input of a grant, which Ed25519 signs as ASCII. */
export function delegationSigningInput(kid: string, payload: DelegationPayload): string {
  return jwsSigningInput(kid, payload);
}

/** Verify the grant a decision carries: who gave the slot and until when, or why it is refused. */
export function verifyDelegation(
  claim: DelegationClaim,
  keys: DelegationKeys,
): { ok: true; grant: VerifiedGrant } | { ok: false; reason: string } {
  const refuse = (reason: string) => ({ ok: false as const, reason: `delegation refused: ${reason}` });
  const parts = claim.grant.length <= LIMITS.signatureChars ? claim.grant.split('.') : [];
  if (parts.length !== 3)
    return refuse(
      `the grant must be a JWS compact serialization (header.payload.signature, at most ${LIMITS.signatureChars} characters)`,
    );
  const [head, body, sig] = parts as [string, string, string];
  const header = jsonOfPart(head);
  if (!isRecord(header) || header.alg !== 'EdDSA' || typeof header.kid !== 'string' || Object.keys(header).length !== 2)
    return refuse('the grant\'s header must be {"alg":"EdDSA","kid":"<key id>"}');
  const payload = jsonOfPart(body);
  if (!isRecord(payload) || payload.v !== DELEGATION_SIGNATURE_VERSION)
    return refuse(
      `the grant's payload must be a ${DELEGATION_SIGNATURE_VERSION} payload {v, slot, delegate, authority, by, iat, exp, workflowId?}`,
    );
  const p = payload as Partial<DelegationPayload>;
  if (p.authority !== 'approver' && p.authority !== 'operator')
    return refuse('the grant\'s "authority" must be "approver" (the slot\'s owner signs) or "operator"');
  const kid = header.kid;
  const key =
    p.authority === 'approver'
      ? keys.approvers.find((k) => k.kid === kid && !k.service)
      : keys.operators.find((k) => k.kid === kid);
  const whose =
    p.authority === 'approver'
      ? "an approver's key the chain trusts (the team's or the run's approverKeys)"
      : "a key of the team's operatorKeys";
  if (!key) return refuse(`key ${shown(kid)} is not ${whose}`);
  if (typeof p.by !== 'string' || !key.approvers.includes(p.by))
    return refuse(`key ${shown(kid)} signs for ${key.approvers.join(', ')}, not for ${shown(p.by)}`);
  const signature = fromBase64url(sig);
  const publicKey = fromBase64url(key.publicKey);
  if (
    signature?.length !== 64 ||
    publicKey?.length !== 32 ||
    !ed25519Verifies(signature, utf8(`${head}.${body}`), publicKey)
  ) {
    return refuse(
      `the grant does not verify with key ${shown(kid)}: another key made it, or what it grants was changed`,
    );
  }
  if (!Number.isSafeInteger(p.iat) || !Number.isSafeInteger(p.exp))
    return refuse('the grant\'s "iat" and "exp" must be whole seconds');
  const expected: DelegationPayload = {
    v: DELEGATION_SIGNATURE_VERSION,
    slot: String(p.slot),
    delegate: String(p.delegate),
    authority: p.authority,
    by: p.by,
    iat: p.iat!,
    exp: p.exp!,
    ...(p.workflowId !== undefined ? { workflowId: String(p.workflowId) } : {}),
  };
  if (canonicalJson(payload) !== canonicalJson(expected))
    return refuse("the grant's payload names fields it must not, or is not its canonical JSON");
  if (p.authority === 'approver' && p.by !== p.slot)
    return refuse(
      `${shown(p.by)} may give only their own slot, not ${shown(p.slot)}; an operator's key may give another's`,
    );
  if (p.slot !== claim.slot) return refuse(`the grant gives the slot of ${shown(p.slot)}, not of ${shown(claim.slot)}`);
  if (p.delegate !== claim.delegate)
    return refuse(`the grant is for ${shown(p.delegate)} to decide, not ${shown(claim.delegate)}`);
  if (p.workflowId !== undefined && p.workflowId !== claim.workflowId)
    return refuse(`the grant is for chain ${shown(p.workflowId)}, not ${claim.workflowId}`);
  const iat = expected.iat * 1000;
  const exp = expected.exp * 1000;
  if (exp <= iat || expected.exp - expected.iat > MAX_DELEGATION_SECONDS)
    return refuse(`a grant runs from "iat" to a later "exp", at most ${MAX_DELEGATION_SECONDS / 86400} days`);
  if (iat > claim.arrivedAt + LIMITS.signatureClockSkewSeconds * 1000)
    return refuse("the grant claims to be signed after the decision arrived: check the signer's clock");
  if (claim.arrivedAt > exp)
    return refuse(
      `the grant expired at ${new Date(exp).toISOString()}; the decision arrived at ${new Date(claim.arrivedAt).toISOString()}`,
    );
  if (key.notBefore !== undefined && iat < Date.parse(key.notBefore))
    return refuse(`key ${shown(kid)} is valid from ${key.notBefore}`);
  if (key.notAfter !== undefined && Math.max(iat, claim.arrivedAt) > Date.parse(key.notAfter))
    return refuse(`key ${shown(kid)} was retired at ${key.notAfter}`);
  return { ok: true, grant: { by: p.by, authority: p.authority, kid, until: new Date(exp).toISOString() } };
}

function shown(v: unknown): string {
  return JSON.stringify(clipText(typeof v === 'string' ? v : (JSON.stringify(v) ?? 'nothing'), 100));
}
