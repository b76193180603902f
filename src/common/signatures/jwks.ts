/**
 * Keys an identity provider publishes (a JWKS, RFC 7517): where a team names them, which JWKs are
 * taken and for whom, and how a chain's snapshot records the keys it trusted from each set. The
 * worker fetches the sets (src/worker/keySets.ts); everything here is pure, so a carried snapshot
 * is checked the same way in the workflow.
 *
 * Workflow-safe: no I/O.
 */
import { ed25519 } from '@noble/curves/ed25519';
import { p256 } from '@noble/curves/nist';
import { type Check, isRecord, shown } from '../check';
import { clipText, LIMITS } from '../limits';
import { base64url, fromBase64url } from './canonical';
import { coseKey, type PasskeyTrust, webauthnTrustProblems } from './cose';
import { type ApproverKey, approverKeysCheck, KEY_ID } from './keys';

/** A JWKS a team trusts for approvers' decisions: the URL the worker fetches, and whose decisions each key id signs. */
export interface JwksSource {
  /** The key set's URL: `https://…`, or `http://` on a loopback host (`localhost`, `127.0.0.1`, `[::1]`). */
  url: string;
  /**
   * Whose decisions each key of the set may sign, by `kid`: `{ "idp-alice-2026": ["alice"] }`. Only
   * the keys named here are trusted; the set's other keys (an identity provider's RSA token keys, say)
   * are left alone. A `kid` may not also be listed in the team's `approverKeys` or in another set.
   */
  approvers: Record<string, string[]>;
  /**
   * The set's keys are passkeys (EC P-256 or OKP Ed25519 JWKs), their decisions WebAuthn assertions
   * for this relying party. Without it the keys are Ed25519 decision keys (OKP Ed25519 JWKs).
   */
  webauthn?: PasskeyTrust;
  /** How old the worker's copy of the set may be when a new chain's snapshot is taken. @default 300 */
  refreshSeconds?: number;
  /** How long a copy serves while the set cannot be fetched again; older, its keys are no longer trusted. @default 3600 */
  maxAgeSeconds?: number;
}

/** The keys a chain trusted from one JWKS, as its snapshot records them. */
export interface KeySetRecord {
  /** The set's URL, as the team names it. */
  url: string;
  /** When the worker fetched the copy these keys came from (ISO 8601). */
  fetchedAt: string;
  /** The keys taken from it, with the approvers the team maps them to. */
  keys: ApproverKey[];
  /** Why the worker's last fetch failed, when it did: the keys are those of the last good copy (none once it is older than `maxAgeSeconds`). */
  error?: string;
}

/** Defaults of a {@link JwksSource}. */
export const JWKS_DEFAULTS = { refreshSeconds: 300, maxAgeSeconds: 3600, sources: 10, jwks: 1000 } as const;

const SOURCE_FIELDS = ['url', 'approvers', 'webauthn', 'refreshSeconds', 'maxAgeSeconds'];
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'oth'];

/** Problems with a team's `jwks`, `inline` being its `approverKeys`: each source's fields, and a key id named twice. */
export function jwksSourcesProblems(v: unknown, inline: readonly ApproverKey[] = [], key = 'jwks'): string[] {
  if (!Array.isArray(v) || v.length > JWKS_DEFAULTS.sources)
    return [
      `"${key}" must be a list of at most ${JWKS_DEFAULTS.sources} key sets {url, approvers, webauthn?, refreshSeconds?, maxAgeSeconds?}, got ${shown(v)}`,
    ];
  const problems = v.flatMap((s, i) => sourceProblems(s, `${key}[${i}]`));
  // A worker holds one copy of each URL's set: a URL listed twice would give both sources one set's keys.
  const urls = v.map((s) => (isRecord(s) ? s.url : undefined));
  urls.forEach((url, i) => {
    const first = urls.indexOf(url);
    if (typeof url === 'string' && first < i)
      problems.push(
        `"${key}[${i}].url" repeats the URL of "${key}[${first}]" (${clipText(url, 200)}): list each key set once, with every key id the team trusts from it in its "approvers"`,
      );
  });
  const seen = new Map<string, string>(inline.map((k) => [k.kid, 'approverKeys']));
  v.forEach((s, i) => {
    for (const kid of isRecord(s) && isRecord(s.approvers) ? Object.keys(s.approvers) : []) {
      const earlier = seen.get(kid);
      if (earlier !== undefined)
        problems.push(
          `"${key}[${i}].approvers" names the key id ${JSON.stringify(kid)}, which ${earlier} names too: a key id is trusted from one place only (rename one, or drop it from ${earlier})`,
        );
      seen.set(kid, `${key}[${i}]`);
    }
  });
  if (seen.size > LIMITS.approverKeys)
    problems.push(`"approverKeys" and "${key}" name ${seen.size} key ids together; at most ${LIMITS.approverKeys}`);
  return problems;
}

function sourceProblems(s: unknown, key: string): string[] {
  if (!isRecord(s))
    return [`"${key}" must be a key set {url, approvers, webauthn?, refreshSeconds?, maxAgeSeconds?}, got ${shown(s)}`];
  const problems: string[] = [];
  if (!jwksUrlOk(s.url))
    problems.push(
      `"${key}.url" must be an https:// URL (http:// only on localhost, 127.0.0.1 or [::1]) of at most 2000 characters, got ${shown(s.url)}`,
    );
  const map = s.approvers;
  if (!isRecord(map) || Object.keys(map).length === 0)
    problems.push(
      `"${key}.approvers" must map each key id the team trusts from the set to the approvers it signs for, such as {"idp-alice-1": ["alice"]}, got ${shown(map)}`,
    );
  else {
    for (const [kid, names] of Object.entries(map)) {
      if (!KEY_ID.test(kid))
        problems.push(
          `"${key}.approvers" has the key id ${shown(kid)}; a key id is 1 to 128 printable characters without spaces`,
        );
      if (
        !Array.isArray(names) ||
        names.length === 0 ||
        !names.every((a) => typeof a === 'string' && a.trim() !== '' && a !== '*' && a.length <= LIMITS.approverChars)
      ) {
        problems.push(
          `"${key}.approvers.${kid}" must list the approvers the key signs for (names of at most ${LIMITS.approverChars} characters; "*" is for service keys, never a published one), got ${shown(names)}`,
        );
      }
    }
  }
  if (s.webauthn !== undefined) problems.push(...webauthnTrustProblems(s.webauthn, `${key}.webauthn`));
  const refresh = s.refreshSeconds ?? JWKS_DEFAULTS.refreshSeconds;
  if (!Number.isSafeInteger(refresh) || (refresh as number) < 1 || (refresh as number) > 86_400)
    problems.push(`"${key}.refreshSeconds" must be whole seconds from 1 to 86400, got ${shown(s.refreshSeconds)}`);
  const maxAge = s.maxAgeSeconds ?? Math.max(JWKS_DEFAULTS.maxAgeSeconds, Number(refresh) || 0);
  if (!Number.isSafeInteger(maxAge) || (maxAge as number) < (refresh as number) || (maxAge as number) > 604_800)
    problems.push(
      `"${key}.maxAgeSeconds" must be whole seconds from refreshSeconds (${shown(refresh)}) to 604800, got ${shown(s.maxAgeSeconds)}`,
    );
  const extra = Object.keys(s).filter((k) => !SOURCE_FIELDS.includes(k));
  if (extra.length > 0)
    problems.push(
      `"${key}" has unknown field(s) ${extra
        .slice(0, 5)
        .map((k) => JSON.stringify(k))
        .join(', ')} (valid: ${SOURCE_FIELDS.join(', ')})`,
    );
  return problems;
}

function jwksUrlOk(url: unknown): boolean {
  if (typeof url !== 'string' || url.length > 2000) return false;
  const m = /^(https?):\/\/([^/?#@\s]+)(?:[/?][^\s#]*)?$/.exec(url);
  if (!m) return false;
  const host = m[2]!.replace(/:\d+$/, '');
  return m[1] === 'https' || ['localhost', '127.0.0.1', '[::1]'].includes(host);
}

/**
 * The keys `source` takes from the JWKS document `doc`: each key id its `approvers` names, as an
 * approver key, or the problem that refuses the whole set (a set that publishes private key
 * material, names a key id twice, or whose named key is not a valid key of an accepted kind).
 * A named key id the set does not hold is simply not trusted (rotated out).
 */
export function keysOfJwks(
  source: JwksSource,
  doc: unknown,
): { ok: true; keys: ApproverKey[] } | { ok: false; problem: string } {
  const refuse = (problem: string) => ({ ok: false as const, problem });
  if (!isRecord(doc) || !Array.isArray(doc.keys))
    return refuse('is not a JWK Set: it must be a JSON object {"keys": [...]}');
  if (doc.keys.length > JWKS_DEFAULTS.jwks)
    return refuse(`holds ${doc.keys.length} keys; at most ${JWKS_DEFAULTS.jwks}`);
  const keys: ApproverKey[] = [];
  const kids = new Set<string>();
  for (const [i, jwk] of doc.keys.entries()) {
    if (!isRecord(jwk)) return refuse(`has a key ${i} that is not a JSON object`);
    const secret = PRIVATE_MEMBERS.filter((m) => jwk[m] !== undefined);
    if (secret.length > 0)
      return refuse(
        `publishes private key material (key ${i}${typeof jwk.kid === 'string' ? `, kid ${JSON.stringify(jwk.kid)}` : ''} has ${secret.map((m) => `"${m}"`).join(', ')}): a published set holds public keys only`,
      );
    const kid = typeof jwk.kid === 'string' ? jwk.kid : undefined;
    const approvers = kid !== undefined && Object.hasOwn(source.approvers, kid) ? source.approvers[kid] : undefined;
    if (!approvers || kid === undefined) continue;
    if (kids.has(kid)) return refuse(`names the key id ${JSON.stringify(kid)} twice`);
    kids.add(kid);
    const publicKey = publicKeyOf(jwk, source.webauthn !== undefined);
    if (typeof publicKey !== 'string')
      return refuse(`has key ${JSON.stringify(kid)} that does not validate: ${publicKey.problem}`);
    keys.push({
      kid,
      approvers: [...approvers],
      publicKey,
      ...(source.webauthn ? { webauthn: { rpId: source.webauthn.rpId, origins: [...source.webauthn.origins] } } : {}),
    });
  }
  const problems = approverKeysCheck(keys, 'keys');
  return problems.length > 0 ? refuse(`has keys that do not validate: ${problems.join('; ')}`) : { ok: true, keys };
}

/** A JWK's public key as an approver key's `publicKey`: raw Ed25519, or (a passkey set) its COSE_Key. */
function publicKeyOf(jwk: Record<string, unknown>, passkey: boolean): string | { problem: string } {
  if (jwk.use !== undefined && jwk.use !== 'sig')
    return { problem: `its "use" is ${shown(jwk.use)}; a decision key is for signatures ("sig")` };
  if (jwk.key_ops !== undefined && !(Array.isArray(jwk.key_ops) && jwk.key_ops.includes('verify')))
    return { problem: `its "key_ops" ${shown(jwk.key_ops)} do not include "verify"` };
  const x = typeof jwk.x === 'string' ? fromBase64url(jwk.x) : undefined;
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519') {
    if (jwk.alg !== undefined && jwk.alg !== 'EdDSA' && jwk.alg !== 'Ed25519')
      return { problem: `its "alg" is ${shown(jwk.alg)}; an Ed25519 key's is "EdDSA" (or "Ed25519")` };
    if (x?.length !== 32 || !onCurve(() => ed25519.Point.fromHex(x)))
      return { problem: '"x" must be a valid Ed25519 public key, 32 bytes in base64url' };
    return passkey ? base64url(coseKey({ crv: 'Ed25519', x })) : base64url(x);
  }
  if (passkey && jwk.kty === 'EC' && jwk.crv === 'P-256') {
    if (jwk.alg !== undefined && jwk.alg !== 'ES256')
      return { problem: `its "alg" is ${shown(jwk.alg)}; a P-256 passkey's is "ES256"` };
    const y = typeof jwk.y === 'string' ? fromBase64url(jwk.y) : undefined;
    if (x?.length !== 32 || y?.length !== 32 || !onCurve(() => p256.Point.fromHex(Uint8Array.from([4, ...x, ...y]))))
      return { problem: '"x" and "y" must be a point on P-256, 32 bytes each in base64url' };
    return base64url(coseKey({ crv: 'P-256', x, y }));
  }
  const accepted = passkey
    ? 'OKP Ed25519 or EC P-256 (a passkey set)'
    : 'OKP Ed25519 (a set without "webauthn"; EC P-256 keys are passkeys, taken by a set with "webauthn")';
  return { problem: `it is ${shown(jwk.kty)} ${shown(jwk.crv)}; accepted: ${accepted}` };
}

function onCurve(point: () => { assertValidity(): void }): boolean {
  try {
    point().assertValidity();
    return true;
  } catch {
    return false;
  }
}

/** Problems with a snapshot's `keySets` (a carried snapshot's are checked as they are read back). */
export const keySetRecordsCheck: Check<KeySetRecord[]> = (v, key) => {
  if (!Array.isArray(v) || v.length > JWKS_DEFAULTS.sources)
    return [
      `"${key}" must be a list of at most ${JWKS_DEFAULTS.sources} key set records {url, fetchedAt, keys, error?}, got ${shown(v)}`,
    ];
  return v.flatMap((r, i) => {
    const at = `${key}[${i}]`;
    if (!isRecord(r)) return [`"${at}" must be a key set record {url, fetchedAt, keys, error?}, got ${shown(r)}`];
    const problems = jwksUrlOk(r.url) ? [] : [`"${at}.url" must be the key set's URL, got ${shown(r.url)}`];
    if (typeof r.fetchedAt !== 'string' || Number.isNaN(Date.parse(r.fetchedAt)))
      problems.push(`"${at}.fetchedAt" must be an ISO 8601 time, got ${shown(r.fetchedAt)}`);
    problems.push(...approverKeysCheck(r.keys, `${at}.keys`));
    if (r.error !== undefined && (typeof r.error !== 'string' || r.error.length > 2000))
      problems.push(`"${at}.error" must be text of at most 2000 characters, got ${shown(r.error)}`);
    const extra = Object.keys(r).filter((k) => !['url', 'fetchedAt', 'keys', 'error'].includes(k));
    if (extra.length > 0)
      problems.push(
        `"${at}" has unknown field(s) ${extra
          .slice(0, 5)
          .map((k) => JSON.stringify(k))
          .join(', ')} (valid: url, fetchedAt, keys, error)`,
      );
    return problems;
  });
};

/** A check of a snapshot's `jwks` (the sources as the team named them). */
export const jwksSourcesCheck: Check<JwksSource[]> = (v, key) => jwksSourcesProblems(v, [], key);
