/**
 * Verifying a decision's signature: a JWS compact serialization with `{"alg":"EdDSA","kid":…}`
 * over the canonical payload of {@link DecisionFacts}, made with a key the chain trusts for the
 * approver, in time. Deterministic and pure (a pure-JS Ed25519), so the workflow runs it, the
 * replay of its history runs it again with the same answer, and `baton audit --verify` runs it
 * offline on an export.
 *
 * Workflow-safe: no I/O.
 */
import type { DecisionIdentity } from '../approvals';
import { isRecord } from '../check';
import { clipText, LIMITS } from '../limits';
import { canonicalJson, fromBase64url, fromUtf8, utf8 } from './canonical';
import { ed25519Verifies } from './jws';
import type { TrustedKey } from './keys';
import { checkAssertion, PASSKEY_ALG, type PasskeyUse } from './passkey';
import {
  type DecisionFacts,
  type DecisionPayload,
  decisionPayload,
  DECISION_SIGNATURE_VERSION,
  type TokenClaims,
} from './payload';

/** Why a signature is refused. */
export const SignatureProblem = {
  /** No signature where the policy requires one. */
  MISSING: 'missing',
  /** Not a JWS compact serialization with an EdDSA header, a key id and a 64-byte signature; or a payload that is not this version's. */
  MALFORMED: 'malformed',
  /** The key id names no key the chain trusts. */
  UNKNOWN_KEY: 'unknown_key',
  /** The key is trusted for other approvers. */
  WRONG_APPROVER: 'wrong_approver',
  /** The signature does not verify with the key: another key made it, or the signed text was changed. */
  BAD_SIGNATURE: 'bad_signature',
  /** It signs something else: another chain, approval, call, arguments, outcome, approver or note (a replay). */
  MISMATCH: 'mismatch',
  /** A passkey assertion asked for by an origin, or for a relying party, its key does not allow. */
  WRONG_ORIGIN: 'wrong_origin',
  /** A passkey's signature counter that does not go forward: an assertion sent again, or a cloned authenticator. */
  REPLAYED: 'replayed',
  /** Signed too long before it arrived, before the approval was asked, or in the future. */
  STALE: 'stale',
  /** The key was not valid at that time (`notBefore`, `notAfter`). */
  KEY_NOT_VALID: 'key_not_valid',
} as const;
export type SignatureProblem = (typeof SignatureProblem)[keyof typeof SignatureProblem];

/** When a decision was asked for and when it arrived (ms since the epoch, workflow time). */
export interface SignatureTimes {
  requestedAt: number;
  arrivedAt: number;
}

/** A verified signature's identity and payload, or why it is refused. */
export type SignatureVerdict =
  | { ok: true; identity: DecisionIdentity; payload: DecisionPayload }
  | { ok: false; problem: SignatureProblem; reason: string };

const refuse = (problem: SignatureProblem, reason: string): SignatureVerdict => ({ ok: false, problem, reason });

/**
 * Verify `jws` as the signature of `facts`, by one of `keys`, at `times`: an Ed25519 JWS, or a
 * passkey's WebAuthn assertion (`passkey.ts`). `lastSignCount(kid)` is the highest passkey signature
 * counter the chain has already recorded for key `kid` (none: nothing to compare with).
 */
export function verifyDecisionSignature(
  jws: string,
  facts: DecisionFacts,
  keys: readonly TrustedKey[],
  times: SignatureTimes,
  lastSignCount?: (kid: string) => number | undefined,
): SignatureVerdict {
  const parts = jws.length <= LIMITS.signatureChars ? jws.split('.') : [];
  if (parts.length !== 3 && parts.length !== 5)
    return refuse(
      'malformed',
      `the signature must be a JWS compact serialization (header.payload.signature, at most ${LIMITS.signatureChars} characters), or a passkey's (header.payload.authenticatorData.clientDataJSON.signature)`,
    );
  const [head, body] = parts as [string, string];
  const headBytes = fromBase64url(head);
  const headText = headBytes ? fromUtf8(headBytes) : undefined;
  const header = headText !== undefined ? jsonOf(headText) : undefined;
  const alg = parts.length === 5 ? PASSKEY_ALG : 'EdDSA';
  if (
    !isRecord(header) ||
    header.alg !== alg ||
    typeof header.kid !== 'string' ||
    header.crit !== undefined ||
    header.b64 !== undefined
  ) {
    return refuse(
      'malformed',
      parts.length === 5
        ? `a passkey signature's header must be {"alg":"${PASSKEY_ALG}","kid":"<key id>"}`
        : 'the signature\'s header must be {"alg":"EdDSA","kid":"<key id>"}',
    );
  }
  const kid = header.kid;
  const key = keys.find((k) => k.kid === kid);
  if (!key)
    return refuse(
      'unknown_key',
      `no key ${shownKid(kid)} is trusted by this chain (trusted: ${
        keys.length > 0
          ? keys
              .map((k) => k.kid)
              .slice(0, 20)
              .join(', ')
          : 'none'
      }; the team's approverKeys or the run's options name them)`,
    );
  if (!key.approvers.includes(facts.approver) && !(key.service && key.approvers.includes('*'))) {
    return refuse(
      'wrong_approver',
      `key ${shownKid(kid)} signs for ${key.approvers.join(', ')}, not for ${clipText(facts.approver, 100)}`,
    );
  }
  let passkey: PasskeyUse | undefined;
  if (parts.length === 5) {
    if (!key.webauthn)
      return refuse('malformed', `key ${shownKid(kid)} is an Ed25519 key, not a passkey: sign with it as a JWS`);
    const bodyText = fromUtf8(fromBase64url(body) ?? new Uint8Array([0xff])) ?? '';
    const checked = checkAssertion(
      parts.slice(2),
      bodyText,
      { kid, publicKey: key.publicKey, webauthn: key.webauthn },
      lastSignCount?.(kid),
    );
    if (!checked.ok) return refuse(checked.problem, checked.reason);
    passkey = checked.use;
  } else {
    if (key.webauthn)
      return refuse(
        'malformed',
        `key ${shownKid(kid)} is a passkey: its decisions carry a WebAuthn assertion (header.payload.authenticatorData.clientDataJSON.signature)`,
      );
    const signature = fromBase64url(parts[2]!);
    const publicKey = fromBase64url(key.publicKey);
    if (signature?.length !== 64 || publicKey?.length !== 32)
      return refuse('malformed', 'the signature must be 64 bytes of Ed25519 in base64url');
    if (!ed25519Verifies(signature, utf8(`${head}.${body}`), publicKey)) {
      return refuse(
        'bad_signature',
        `the signature does not verify with key ${shownKid(kid)}: another key made it, or what it signs was changed`,
      );
    }
  }
  const bytes = fromBase64url(body);
  const text = bytes ? fromUtf8(bytes) : undefined;
  const payload = text !== undefined ? jsonOf(text) : undefined;
  if (!isRecord(payload) || payload.v !== DECISION_SIGNATURE_VERSION || !Number.isSafeInteger(payload.iat)) {
    return refuse(
      'malformed',
      `the signed payload must be a ${DECISION_SIGNATURE_VERSION} payload with "iat" in whole seconds`,
    );
  }
  const token = tokenOf(payload.token);
  if (key.service && !token)
    return refuse(
      'malformed',
      `key ${shownKid(kid)} is a service's: its signatures name the token it checked ("token": {"iss", "sub"})`,
    );
  if (!key.service && payload.token !== undefined)
    return refuse('mismatch', `key ${shownKid(kid)} is not a service's key: its signatures name no token`);
  const mismatch = mismatchOf(payload, facts);
  if (mismatch) return refuse('mismatch', mismatch);
  const expected = decisionPayload(facts, payload.iat as number, token);
  if (canonicalJson(expected) !== text)
    return refuse(
      'malformed',
      'the signed payload is not the canonical JSON of the decision (sorted keys, no whitespace, no other fields)',
    );
  const late = timeProblem(expected.iat * 1000, key, times);
  if (late) return refuse(late.problem, late.reason);
  const identity: DecisionIdentity = {
    method: key.service ? 'token' : 'signed',
    kid,
    keySource: key.source,
    ...(token ? { issuer: token.iss, subject: token.sub } : {}),
    ...(passkey ? { passkey } : {}),
  };
  return { ok: true, identity, payload: expected };
}

function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function tokenOf(v: unknown): TokenClaims | undefined {
  if (!isRecord(v) || typeof v.iss !== 'string' || typeof v.sub !== 'string' || v.iss === '' || v.sub === '')
    return undefined;
  if (v.iss.length > LIMITS.approverChars || v.sub.length > LIMITS.approverChars || Object.keys(v).length !== 2)
    return undefined;
  return { iss: v.iss, sub: v.sub };
}

/** What the payload signs that differs from the decision: the first difference, in words. */
function mismatchOf(p: Record<string, unknown>, f: DecisionFacts): string | undefined {
  const said = (v: unknown) => clipText(typeof v === 'string' ? v : (JSON.stringify(v) ?? 'nothing'), 120);
  if (p.workflowId !== f.workflowId)
    return `the signature is for chain ${said(p.workflowId)}, not ${said(f.workflowId)}`;
  if (p.approval !== f.approval)
    return `the signature is for approval ${said(p.approval)}, not ${said(f.approval)}: a signature decides one approval only`;
  const s = isRecord(p.subject) ? p.subject : {};
  if (s.kind !== f.subject.kind)
    return `the signature is for a ${said(s.kind)}, but ${f.approval} is a ${f.subject.kind}`;
  if (f.subject.kind === 'handoff' && (s.from !== f.subject.from || s.to !== f.subject.to))
    return `the signature is for the handoff ${said(s.from)} → ${said(s.to)}, not ${f.subject.from} → ${f.subject.to}`;
  if (f.subject.kind === 'tool_call') {
    if (s.callHash !== f.subject.callHash || s.tool !== f.subject.tool || s.from !== f.subject.from)
      return `the signature is for call ${said(s.callHash)} of ${said(s.tool)} by ${said(s.from)}, not the waiting call ${f.subject.callHash} of ${f.subject.tool} by ${f.subject.from}`;
    if (s.arguments !== f.subject.arguments)
      return `the signature is for ${s.arguments === undefined ? "the model's arguments" : `arguments with digest ${said(s.arguments)}`}, but the decision ${f.subject.arguments === undefined ? "keeps the model's" : `edits them (digest ${f.subject.arguments})`}`;
  }
  if (p.outcome !== f.outcome) return `the signature is for ${said(p.outcome)}, not ${f.outcome}`;
  if (p.approver !== f.approver)
    return `the signature is for approver ${said(p.approver)}, not ${clipText(f.approver, 100)}`;
  if (p.onBehalfOf !== f.onBehalfOf)
    return `the signature is for ${p.onBehalfOf === undefined ? "the approver's own slot" : `the slot of ${said(p.onBehalfOf)}`}, but the decision is for ${f.onBehalfOf === undefined ? 'their own' : `that of ${clipText(f.onBehalfOf, 100)}`}`;
  if (p.note !== f.note)
    return `the signature is for ${p.note === undefined ? 'no note' : `a note with digest ${said(p.note)}`}, but the decision ${f.note === undefined ? 'has none' : `has one with digest ${f.note}`}`;
  return undefined;
}

function timeProblem(
  signedAt: number,
  key: TrustedKey,
  t: SignatureTimes,
): { problem: SignatureProblem; reason: string } | undefined {
  const skew = LIMITS.signatureClockSkewSeconds * 1000;
  const at = (ms: number) => new Date(ms).toISOString();
  if (signedAt < t.requestedAt - skew)
    return {
      problem: 'stale',
      reason: `the signature was made at ${at(signedAt)}, before the approval was asked (${at(t.requestedAt)})`,
    };
  if (signedAt < t.arrivedAt - LIMITS.signatureMaxAgeSeconds * 1000)
    return {
      problem: 'stale',
      reason: `the signature was made at ${at(signedAt)}, more than ${LIMITS.signatureMaxAgeSeconds} s before it arrived (${at(t.arrivedAt)}); sign again`,
    };
  if (signedAt > t.arrivedAt + skew)
    return {
      problem: 'stale',
      reason: `the signature claims to be made at ${at(signedAt)}, after it arrived (${at(t.arrivedAt)}): check the signer's clock`,
    };
  if (key.notBefore !== undefined && signedAt < Date.parse(key.notBefore))
    return {
      problem: 'key_not_valid',
      reason: `key ${shownKid(key.kid)} is valid from ${key.notBefore}; the signature was made at ${at(signedAt)}`,
    };
  if (key.notAfter !== undefined && Math.max(signedAt, t.arrivedAt) > Date.parse(key.notAfter))
    return {
      problem: 'key_not_valid',
      reason: `key ${shownKid(key.kid)} was retired at ${key.notAfter}; the decision arrived at ${at(t.arrivedAt)}`,
    };
  return undefined;
}

function shownKid(kid: string): string {
  return JSON.stringify(clipText(kid, 128));
}
