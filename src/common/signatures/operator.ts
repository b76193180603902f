/**
 * An operator's signed decision to loosen what protects a chain: a JWS compact serialization
 * (`{"alg":"EdDSA","kid":…}`) over the canonical payload naming the chain, the operator and the
 * digest of exactly the overrides it allows, made with a key the team trusts for operators
 * (`operatorKeys`, recorded with its snapshot; never a key a run or an override names).
 * docs/authority.md spells out the bytes.
 *
 * Workflow-safe: no I/O.
 */
import { isRecord } from '../check';
import { clipText, LIMITS } from '../limits';
import { canonicalJson, fromBase64url, fromUtf8, sha256Hex, utf8 } from './canonical';
import { ed25519Verifies, jsonOfPart, jwsSigningInput } from './jws';
import type { ApproverKey } from './keys';
import { checkAssertion, PASSKEY_ALG, type PasskeyUse } from './passkey';

/** The version tag of an operator's payload (`v`). */
export const OPERATOR_SIGNATURE_VERSION = 'baton.override/1';

/** What an operator signs: the chain, who they are, the overrides' digest and when. */
export interface OperatorPayload {
  v: typeof OPERATOR_SIGNATURE_VERSION;
  /** The workflow id of the chain the overrides apply to. */
  workflowId: string;
  /** The operator's name, as the team's `operatorKeys` list it for the key. */
  operator: string;
  /** SHA-256 (hex) of the canonical JSON of `{options, models}` as sent (absent fields left out). */
  overrides: string;
  /** Seconds since 1970-01-01T00:00:00Z. */
  iat: number;
}

/** How an operator's loosening was established, for the record. */
export interface OperatorIdentity {
  method: 'signed';
  operator: string;
  kid: string;
  /** A passkey's assertion signed it: the origin that asked and the authenticator's counter. */
  passkey?: PasskeyUse;
  /** When it was signed (its `iat`, seconds), where the chain takes each signature once: a later one from the key must be newer. */
  iat?: number;
}

/** How an operator's signature is weighed: whether the team requires a passkey, and the highest counter the chain took from each passkey. */
export interface OperatorTrust {
  /** The team's `requireOperatorPasskey`: an Ed25519 operator signature is refused. */
  requirePasskey?: boolean;
  /** The highest passkey counter the chain has taken from operator key `kid` (none: nothing to compare with). */
  lastSignCount?: (kid: string) => number | undefined;
  /**
   * The `iat` of the newest signature the chain took from operator key `kid`. Given, a signature is
   * taken once: one not newer than that is refused, whatever its kind (an Ed25519 JWS sent again, or
   * a passkey whose counter stays 0, as synced passkeys' do).
   */
  lastSignedAt?: (kid: string) => number | undefined;
}

/** The digest an operator's signature names: of the overrides' `options` and `models`, nothing else. */
export function overridesDigest(overrides: { options?: unknown; models?: unknown }): string {
  const { options, models } = overrides;
  return sha256Hex(
    canonicalJson({ ...(options !== undefined ? { options } : {}), ...(models !== undefined ? { models } : {}) }),
  );
}

/** The JWS signing input of an operator's payload, which Ed25519 signs as ASCII. */
export function operatorSigningInput(kid: string, payload: OperatorPayload): string {
  return jwsSigningInput(kid, payload);
}

/** What is verified: the chain, the overrides as they arrived, the operator they claim, and when they arrived (ms). */
export interface OperatorClaim {
  workflowId: string;
  overrides: { options?: unknown; models?: unknown };
  operator: string;
  signature: string;
  arrivedAt: number;
}

/**
 * Verify an operator's signature against the team's operator keys: who made it, or why it is
 * refused. An Ed25519 JWS, or a passkey's WebAuthn assertion whose challenge is SHA-256 of the
 * canonical payload (`header.payload.authenticatorData.clientDataJSON.signature`, header
 * `{"alg":"WebAuthn","kid":…}`), by a key of `operatorKeys` with `webauthn`.
 */
export function verifyOperatorSignature(
  claim: OperatorClaim,
  keys: readonly ApproverKey[],
  trust: OperatorTrust = {},
): { ok: true; identity: OperatorIdentity } | { ok: false; reason: string } {
  const refuse = (reason: string) => ({ ok: false as const, reason });
  if (keys.length === 0)
    return refuse(
      'the team trusts no operator keys (Team option operatorKeys), so no loosening can be signed for this chain',
    );
  const parts = claim.signature.length <= LIMITS.signatureChars ? claim.signature.split('.') : [];
  if (parts.length !== 3 && parts.length !== 5)
    return refuse(
      `the operator's signature must be a JWS compact serialization (header.payload.signature, at most ${LIMITS.signatureChars} characters), or a passkey's (header.payload.authenticatorData.clientDataJSON.signature)`,
    );
  const [head, body] = parts as [string, string];
  const header = jsonOfPart(head);
  const alg = parts.length === 5 ? PASSKEY_ALG : 'EdDSA';
  if (!isRecord(header) || header.alg !== alg || typeof header.kid !== 'string' || Object.keys(header).length !== 2)
    return refuse(`the operator's signature header must be {"alg":"${alg}","kid":"<key id>"}`);
  const kid = header.kid;
  const key = keys.find((k) => k.kid === kid);
  if (!key)
    return refuse(
      `no operator key ${JSON.stringify(clipText(kid, 128))} is trusted by this team (trusted: ${keys
        .map((k) => k.kid)
        .slice(0, 20)
        .join(', ')})`,
    );
  if (!key.approvers.includes(claim.operator))
    return refuse(
      `operator key ${JSON.stringify(kid)} signs for ${key.approvers.join(', ')}, not for ${clipText(claim.operator, 100)}`,
    );
  let passkey: PasskeyUse | undefined;
  if (parts.length === 5) {
    if (!key.webauthn)
      return refuse(`operator key ${JSON.stringify(kid)} is an Ed25519 key, not a passkey: sign with it as a JWS`);
    const text = fromUtf8(fromBase64url(body) ?? new Uint8Array([0xff])) ?? '';
    if (canonicalJson(jsonOf(text) ?? null) !== text)
      return refuse(
        `the signed payload must be the canonical JSON of a ${OPERATOR_SIGNATURE_VERSION} payload (sorted keys, no whitespace)`,
      );
    const checked = checkAssertion(
      parts.slice(2),
      text,
      { kid, publicKey: key.publicKey, webauthn: key.webauthn },
      trust.lastSignCount?.(kid),
    );
    if (!checked.ok) return refuse(`${checked.reason} (${checked.problem})`);
    passkey = checked.use;
  } else {
    if (key.webauthn)
      return refuse(
        `operator key ${JSON.stringify(kid)} is a passkey: its signatures are WebAuthn assertions (header.payload.authenticatorData.clientDataJSON.signature)`,
      );
    if (trust.requirePasskey)
      return refuse(
        `the team requires operators to sign with a passkey (requireOperatorPasskey); key ${JSON.stringify(kid)} signed a JWS`,
      );
    const signature = fromBase64url(parts[2]!);
    const publicKey = fromBase64url(key.publicKey);
    if (
      signature?.length !== 64 ||
      publicKey?.length !== 32 ||
      !ed25519Verifies(signature, utf8(`${head}.${body}`), publicKey)
    ) {
      return refuse(
        `the operator's signature does not verify with key ${JSON.stringify(kid)}: another key made it, or what it signs was changed`,
      );
    }
  }
  const payload = jsonOfPart(body);
  if (!isRecord(payload) || payload.v !== OPERATOR_SIGNATURE_VERSION || !Number.isSafeInteger(payload.iat))
    return refuse(`the signed payload must be a ${OPERATOR_SIGNATURE_VERSION} payload with "iat" in whole seconds`);
  const expected: OperatorPayload = {
    v: OPERATOR_SIGNATURE_VERSION,
    workflowId: claim.workflowId,
    operator: claim.operator,
    overrides: overridesDigest(claim.overrides),
    iat: payload.iat as number,
  };
  if (canonicalJson(payload) !== canonicalJson(expected)) {
    if (payload.workflowId !== claim.workflowId)
      return refuse(
        `the operator's signature is for chain ${clipText(String(payload.workflowId), 120)}, not ${claim.workflowId}`,
      );
    if (payload.overrides !== expected.overrides)
      return refuse(
        "the operator's signature is for other overrides: it signs the digest of exactly the options and models sent",
      );
    return refuse(
      `the operator's signature is for ${clipText(String(payload.operator), 100)}, or names fields it must not; it must sign {v, workflowId, operator, overrides, iat} of this override`,
    );
  }
  const signedAt = expected.iat * 1000;
  const skew = LIMITS.signatureClockSkewSeconds * 1000;
  if (signedAt < claim.arrivedAt - LIMITS.signatureMaxAgeSeconds * 1000)
    return refuse(
      `the operator's signature was made more than ${LIMITS.signatureMaxAgeSeconds} s before it arrived; sign again`,
    );
  if (signedAt > claim.arrivedAt + skew)
    return refuse("the operator's signature claims a time after it arrived: check the signer's clock");
  if (key.notBefore !== undefined && signedAt < Date.parse(key.notBefore))
    return refuse(`operator key ${JSON.stringify(kid)} is valid from ${key.notBefore}`);
  if (key.notAfter !== undefined && Math.max(signedAt, claim.arrivedAt) > Date.parse(key.notAfter))
    return refuse(`operator key ${JSON.stringify(kid)} was retired at ${key.notAfter}`);
  const last = trust.lastSignedAt?.(kid);
  if (last !== undefined && expected.iat <= last) {
    return refuse(
      `the operator's signature was made at ${new Date(signedAt).toISOString()}, not after the last one this chain took from key ${JSON.stringify(kid)} (${new Date(last * 1000).toISOString()}): each signature is taken once; sign the override again (replayed)`,
    );
  }
  const once = trust.lastSignedAt ? { iat: expected.iat } : {};
  return {
    ok: true,
    identity: { method: 'signed', operator: claim.operator, kid, ...(passkey ? { passkey } : {}), ...once },
  };
}

function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
