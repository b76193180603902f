/**
 * The signature over an exported audit's head: a JWS compact serialization with
 * `{"alg":"EdDSA","kid":…}` over the canonical payload `baton.audit-head/1` naming the document
 * (its schema, its chain, its head digest and how many events it chains). Whoever holds the
 * private key vouches for the whole document; a reader trusts it only for a key it was told to
 * trust (its own list of export keys), never for a key the document names.
 *
 * Workflow-safe: pure code, no I/O.
 */
import { type Check, isRecord, shown } from '../check';
import { clipText, LIMITS } from '../limits';
import { base64url, canonicalJson, fromBase64url, utf8 } from './canonical';
import { ed25519Verifies, jsonOfPart, jwsSigningInput } from './jws';
import { KEY_ID } from './keys';

/** The version tag of the head payload (`v`). */
export const HEAD_SIGNATURE_VERSION = 'baton.audit-head/1';

/** Signs bytes with an Ed25519 key: a key held here, or a function that asks an HSM, a KMS or another process. */
export interface Ed25519Signer {
  /** The key id the signatures name (`kid`). */
  readonly kid: string;
  /** The 64-byte Ed25519 signature of `input`. */
  sign(input: Uint8Array): Uint8Array | Promise<Uint8Array>;
}

/**
 * A public key trusted to sign export heads. An approver key entry (`{kid, approvers, publicKey,
 * service?, …}`) fits as it is, so a service's key can be listed once for both jobs.
 */
export interface ExportKey {
  kid: string;
  /** The raw 32-byte Ed25519 public key in base64url without padding: a JWK's `x`. */
  publicKey: string;
  /** ISO 8601: heads signed before this time are refused. */
  notBefore?: string;
  /** ISO 8601: heads signed after this time are refused. */
  notAfter?: string;
}

/** What a head signature names: the document it vouches for. */
export interface HeadFacts {
  schema: string;
  workflowId: string;
  /** The last event's digest. */
  head: string;
  /** How many events the digest chain holds. */
  events: number;
}

/** The signed payload: the facts, the version tag and the time of signing (seconds since 1970-01-01T00:00:00Z). */
export interface HeadPayload extends HeadFacts {
  v: typeof HEAD_SIGNATURE_VERSION;
  iat: number;
}

/** A head signature that holds (the key that made it, when), or why it does not. */
export type HeadVerdict =
  | { ok: true; kid: string; signedAt: string }
  | {
      ok: false;
      problem: 'malformed' | 'untrusted_key' | 'bad_signature' | 'mismatch' | 'key_not_valid';
      kid?: string;
      reason: string;
    };

const EXTRA_FIELDS = ['approvers', 'service'];

/** Problems with a list of export keys, each naming the field and what would be valid. */
export const exportKeysCheck: Check = (v, key) => {
  if (!Array.isArray(v))
    return [`"${key}" must be a list of keys {kid, publicKey, notBefore?, notAfter?}, got ${shown(v)}`];
  if (v.length > LIMITS.approverKeys) return [`"${key}" lists ${v.length} keys; at most ${LIMITS.approverKeys}`];
  return v.flatMap((k, i) => {
    const at = `${key}[${i}]`;
    if (!isRecord(k)) return [`"${at}" must be a key {kid, publicKey, notBefore?, notAfter?}, got ${shown(k)}`];
    const problems: string[] = [];
    if (typeof k.kid !== 'string' || !KEY_ID.test(k.kid))
      problems.push(`"${at}.kid" must be 1 to 128 printable characters without spaces, got ${shown(k.kid)}`);
    if ((typeof k.publicKey === 'string' ? fromBase64url(k.publicKey) : undefined)?.length !== 32)
      problems.push(
        `"${at}.publicKey" must be a raw Ed25519 public key, 32 bytes in base64url without padding (a JWK's "x"), got ${shown(k.publicKey)}`,
      );
    for (const f of ['notBefore', 'notAfter'] as const) {
      if (k[f] !== undefined && (typeof k[f] !== 'string' || Number.isNaN(Date.parse(k[f]))))
        problems.push(`"${at}.${f}" must be an ISO 8601 time, got ${shown(k[f])}`);
    }
    const extra = Object.keys(k).filter(
      (f) => !['kid', 'publicKey', 'notBefore', 'notAfter', ...EXTRA_FIELDS].includes(f),
    );
    if (extra.length > 0)
      problems.push(
        `"${at}" has unknown field(s) ${extra
          .slice(0, 10)
          .map((f) => JSON.stringify(f))
          .join(', ')} (valid: kid, publicKey, notBefore, notAfter)`,
      );
    return problems;
  });
};

/** The JWS signing input of a head payload: `base64url(header) "." base64url(payload)`, both canonical JSON. */
export function headSigningInput(kid: string, payload: HeadPayload): string {
  return jwsSigningInput(kid, payload);
}

/** The head signature of `facts` by `signer`, made at `now` (ms). */
export async function signHead(signer: Ed25519Signer, facts: HeadFacts, now: number): Promise<string> {
  const payload: HeadPayload = { v: HEAD_SIGNATURE_VERSION, ...facts, iat: Math.floor(now / 1000) };
  const input = headSigningInput(signer.kid, payload);
  const signature = await signer.sign(utf8(input));
  if (!(signature instanceof Uint8Array) || signature.length !== 64)
    throw new TypeError(`the signer of key ${signer.kid} must answer a 64-byte Ed25519 signature`);
  return `${input}.${base64url(signature)}`;
}

/** The key id a head signature names, when it is a JWS with a readable header (to say which key made it). */
export function headSignatureKid(jws: string): string | undefined {
  const header = jsonOfPart(jws.split('.')[0] ?? '');
  return isRecord(header) && typeof header.kid === 'string' ? clipText(header.kid, 128) : undefined;
}

/** Verify `jws` as the signature of `facts` by one of `keys` (the keys the reader trusts). */
export function verifyHeadSignature(jws: string, facts: HeadFacts, keys: readonly ExportKey[]): HeadVerdict {
  const parts = jws.length <= LIMITS.signatureChars ? jws.split('.') : [];
  if (parts.length !== 3)
    return {
      ok: false,
      problem: 'malformed',
      reason: 'the head signature must be a JWS compact serialization (header.payload.signature)',
    };
  const [head, body, sig] = parts as [string, string, string];
  const header = jsonOfPart(head);
  if (
    !isRecord(header) ||
    header.alg !== 'EdDSA' ||
    typeof header.kid !== 'string' ||
    header.crit !== undefined ||
    header.b64 !== undefined
  ) {
    return {
      ok: false,
      problem: 'malformed',
      reason: 'the head signature\'s header must be {"alg":"EdDSA","kid":"<key id>"}',
    };
  }
  const kid = clipText(header.kid, 128);
  const key = keys.find((k) => k.kid === header.kid);
  if (!key) {
    const trusted =
      keys.length > 0
        ? `you trust ${keys
            .map((k) => k.kid)
            .slice(0, 20)
            .join(', ')}`
        : 'you named no key to trust';
    return {
      ok: false,
      problem: 'untrusted_key',
      kid,
      reason: `the head is signed with key ${JSON.stringify(kid)}, which you were not told to trust (${trusted})`,
    };
  }
  const signature = fromBase64url(sig);
  const publicKey = fromBase64url(key.publicKey);
  if (
    signature?.length !== 64 ||
    publicKey?.length !== 32 ||
    !ed25519Verifies(signature, utf8(`${head}.${body}`), publicKey)
  ) {
    return {
      ok: false,
      problem: 'bad_signature',
      kid,
      reason: `the head signature does not verify with key ${JSON.stringify(kid)}: the document was changed after it was signed, or another key made the signature`,
    };
  }
  const payload = jsonOfPart(body);
  if (!isRecord(payload) || payload.v !== HEAD_SIGNATURE_VERSION || !Number.isSafeInteger(payload.iat))
    return {
      ok: false,
      problem: 'malformed',
      kid,
      reason: `the head signature's payload must be a ${HEAD_SIGNATURE_VERSION} payload with "iat" in whole seconds`,
    };
  const signed = { schema: payload.schema, workflowId: payload.workflowId, head: payload.head, events: payload.events };
  if (canonicalJson(signed) !== canonicalJson(facts))
    return {
      ok: false,
      problem: 'mismatch',
      kid,
      reason: `the head signature vouches for ${clipText(canonicalJson(signed), 300)}, not this document (${canonicalJson(facts)})`,
    };
  const signedAt = (payload.iat as number) * 1000;
  if (
    (key.notBefore !== undefined && signedAt < Date.parse(key.notBefore)) ||
    (key.notAfter !== undefined && signedAt > Date.parse(key.notAfter))
  ) {
    return {
      ok: false,
      problem: 'key_not_valid',
      kid,
      reason: `key ${JSON.stringify(kid)} was not valid when the head was signed (${new Date(signedAt).toISOString()})`,
    };
  }
  return { ok: true, kid, signedAt: new Date(signedAt).toISOString() };
}
