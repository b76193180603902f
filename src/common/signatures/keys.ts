/**
 * Approvers' public keys: who each key speaks for, under which key id, and when it may be used.
 * A team names them (recorded with its snapshot) and a run's options may name more (recorded
 * with its start); the workflow verifies decisions' signatures against them.
 *
 * Workflow-safe: no I/O.
 */
import { type Check, isRecord, shown } from '../check';
import { LIMITS } from '../limits';
import { fromBase64url } from './canonical';
import { type PasskeyTrust, passkeyTrustProblems } from './cose';

/** An Ed25519 public key trusted for approvers' decisions. Plain JSON. */
export interface ApproverKey {
  /** The key id a signature's header names (`kid`). At most 128 characters. */
  kid: string;
  /**
   * Whose decisions the key may sign: approver names as decisions and policies spell them. `"*"`
   * stands for any approver, and only a service key may take it (an HTTP service signing for
   * whoever its tokens prove).
   */
  approvers: string[];
  /**
   * The raw 32-byte Ed25519 public key in base64url without padding: a JWK's `x`. A passkey's
   * (with `webauthn`): its COSE_Key in base64url, ES256 (P-256) or EdDSA (Ed25519).
   */
  publicKey: string;
  /**
   * A service's key: it signs on behalf of the identity a token proved, and its signatures name
   * the token's issuer and subject (identity `token` rather than `signed`). @default false
   */
  service?: boolean;
  /** ISO 8601: signatures made before this time are refused (rotation). */
  notBefore?: string;
  /** ISO 8601: signatures made, or arriving, after this time are refused (rotation, retirement). */
  notAfter?: string;
  /** A passkey: decisions are WebAuthn assertions from these origins for this relying party (docs/signatures.md). */
  webauthn?: PasskeyTrust;
}

/** Where a chain's trusted key was named: the team's snapshot or the run's options. */
export type KeySource = 'team' | 'run';

/** A key a chain trusts, with where it was named. */
export type TrustedKey = ApproverKey & { source: KeySource };

/** A key id (`kid`): 1 to 128 printable ASCII characters without spaces. */
export const KEY_ID = /^[\x21-\x7e]{1,128}$/;
// Every field of ApproverKey, no more: a carried snapshot's keys pass the check that reads them back.
const FIELDS = Object.keys({
  kid: 1,
  approvers: 1,
  publicKey: 1,
  service: 1,
  notBefore: 1,
  notAfter: 1,
  webauthn: 1,
} satisfies Record<keyof ApproverKey, 1>);

/** Problems with one approver key, each naming the field and what would be valid. */
export const approverKeyCheck: Check<ApproverKey> = (v, key) => {
  if (!isRecord(v))
    return [
      `"${key}" must be an approver key {kid, approvers, publicKey, service?, notBefore?, notAfter?, webauthn?}, got ${shown(v)}`,
    ];
  const problems: string[] = [];
  if (typeof v.kid !== 'string' || !KEY_ID.test(v.kid))
    problems.push(`"${key}.kid" must be 1 to 128 printable characters without spaces, got ${shown(v.kid)}`);
  if (
    !Array.isArray(v.approvers) ||
    v.approvers.length === 0 ||
    !v.approvers.every((a) => typeof a === 'string' && a.trim() !== '' && a.length <= LIMITS.approverChars)
  ) {
    problems.push(
      `"${key}.approvers" must list the approvers the key signs for (names of at most ${LIMITS.approverChars} characters, or "*" for a service key), got ${shown(v.approvers)}`,
    );
  } else if (v.approvers.includes('*') && v.service !== true) {
    problems.push(
      `"${key}.approvers" names "*" (any approver), which only a service key (service: true) may: a person's key signs for that person`,
    );
  }
  const raw = typeof v.publicKey === 'string' ? fromBase64url(v.publicKey) : undefined;
  if (v.webauthn !== undefined) problems.push(...passkeyTrustProblems(v, key));
  else if (raw?.length !== 32)
    problems.push(
      `"${key}.publicKey" must be a raw Ed25519 public key, 32 bytes in base64url without padding (a JWK's "x"), got ${shown(v.publicKey)}`,
    );
  if (v.service !== undefined && typeof v.service !== 'boolean')
    problems.push(`"${key}.service" must be true or false, got ${shown(v.service)}`);
  for (const f of ['notBefore', 'notAfter'] as const) {
    if (
      v[f] !== undefined &&
      !(typeof v[f] === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(v[f]) && !Number.isNaN(Date.parse(v[f])))
    ) {
      problems.push(`"${key}.${f}" must be an ISO 8601 time such as "2026-01-31T00:00:00Z", got ${shown(v[f])}`);
    }
  }
  if (
    problems.length === 0 &&
    v.notBefore !== undefined &&
    v.notAfter !== undefined &&
    Date.parse(v.notBefore as string) >= Date.parse(v.notAfter as string)
  ) {
    problems.push(
      `"${key}.notAfter" (${String(v.notAfter)}) must come after "${key}.notBefore" (${String(v.notBefore)})`,
    );
  }
  const extra = Object.keys(v).filter((k) => !FIELDS.includes(k));
  if (extra.length > 0)
    problems.push(
      `"${key}" has unknown field(s) ${extra
        .slice(0, 10)
        .map((k) => JSON.stringify(k))
        .join(', ')} (valid: ${FIELDS.join(', ')})`,
    );
  return problems;
};

/** Problems with a list of approver keys: each key's, and a key id given twice. */
export const approverKeysCheck: Check<ApproverKey[]> = (v, key) => {
  if (!Array.isArray(v))
    return [`"${key}" must be a list of approver keys {kid, approvers, publicKey, …}, got ${shown(v)}`];
  if (v.length > LIMITS.approverKeys) return [`"${key}" lists ${v.length} keys; at most ${LIMITS.approverKeys}`];
  const problems = v.flatMap((k, i) => approverKeyCheck(k, `${key}[${i}]`));
  const seen = new Set<string>();
  for (const k of v) {
    const kid = isRecord(k) && typeof k.kid === 'string' ? k.kid : undefined;
    if (kid !== undefined && seen.has(kid))
      problems.push(`"${key}" lists the key id ${JSON.stringify(kid)} twice: each key needs its own kid`);
    if (kid !== undefined) seen.add(kid);
  }
  return problems;
};

/**
 * The keys a chain trusts: its team's (listed, and taken from its published key sets), then its run's (unless the team refuses keys named by
 * runs). A run's key never replaces a team's of the same id.
 */
export function trustedKeys(
  team: { approverKeys?: ApproverKey[]; runApproverKeys?: boolean; keySets?: { keys: ApproverKey[] }[] },
  runKeys: ApproverKey[] | undefined,
): TrustedKey[] {
  // Keys of a team's published key sets (`keySets`, resolved by the worker into the snapshot) are the team's.
  const own = [...(team.approverKeys ?? []), ...(team.keySets ?? []).flatMap((set) => set.keys)].map((k) => ({
    ...k,
    source: 'team' as const,
  }));
  if (team.runApproverKeys === false || !runKeys) return own;
  const taken = new Set(own.map((k) => k.kid));
  return [...own, ...runKeys.filter((k) => !taken.has(k.kid)).map((k) => ({ ...k, source: 'run' as const }))];
}
