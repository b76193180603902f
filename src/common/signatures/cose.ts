/**
 * Passkeys' public keys as a team lists them: the credential's COSE_Key (RFC 9052, as WebAuthn
 * registration returns it), ES256 on P-256 or EdDSA on Ed25519, and the relying party it answers
 * for (its RP id and the page origins allowed to ask it).
 *
 * Workflow-safe: no I/O.
 */
import { shown } from '../check';
import { fromBase64url } from './canonical';

/** The relying party a passkey answers for: what its assertions must name. */
export interface PasskeyTrust {
  /** The WebAuthn RP id (a domain, e.g. `approvals.example.com`): the assertion's `rpIdHash` is its SHA-256. */
  rpId: string;
  /** The page origins allowed to ask for assertions (`https://approvals.example.com`): the client data's `origin` is one of them. */
  origins: string[];
}

/** A passkey's public key: P-256 (65-byte uncompressed point) or Ed25519 (32 bytes). */
export type PasskeyPublicKey = { alg: 'ES256'; point: Uint8Array } | { alg: 'EdDSA'; point: Uint8Array };

/** The COSE_Key in `bytes`, when it is an ES256 P-256 or EdDSA Ed25519 key; `undefined` otherwise. */
export function coseKeyOf(bytes: Uint8Array): PasskeyPublicKey | undefined {
  const map = cborIntMap(bytes);
  if (!map) return undefined;
  const x = map.get(-2);
  if (map.get(1) === 2 && map.get(3) === -7 && map.get(-1) === 1) {
    const y = map.get(-3);
    if (!(x instanceof Uint8Array) || !(y instanceof Uint8Array) || x.length !== 32 || y.length !== 32)
      return undefined;
    const point = new Uint8Array(65);
    point[0] = 4;
    point.set(x, 1);
    point.set(y, 33);
    return { alg: 'ES256', point };
  }
  if (map.get(1) === 1 && map.get(3) === -8 && map.get(-1) === 6) {
    return x instanceof Uint8Array && x.length === 32 ? { alg: 'EdDSA', point: x } : undefined;
  }
  return undefined;
}

/** The COSE_Key (RFC 9052) of a P-256 point (`x`, `y`, 32 bytes each) or an Ed25519 key (`x`), as WebAuthn writes it. */
export function coseKey(
  key: { crv: 'P-256'; x: Uint8Array; y: Uint8Array } | { crv: 'Ed25519'; x: Uint8Array },
): Uint8Array {
  const bstr = (b: Uint8Array) => [0x58, 32, ...b];
  // Deterministic CBOR map: kty, alg, crv, x (and y), as authenticators encode them.
  if (key.crv === 'P-256')
    return Uint8Array.from([0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, ...bstr(key.x), 0x22, ...bstr(key.y)]);
  return Uint8Array.from([0xa4, 0x01, 0x01, 0x03, 0x27, 0x20, 0x06, 0x21, ...bstr(key.x)]);
}

/** Problems with a passkey key's `publicKey` and `webauthn` fields, each naming the field and what would be valid. */
export function passkeyTrustProblems(v: Record<string, unknown>, key: string): string[] {
  const problems: string[] = [];
  const raw = typeof v.publicKey === 'string' ? fromBase64url(v.publicKey) : undefined;
  if (!raw || !coseKeyOf(raw))
    problems.push(
      `"${key}.publicKey" of a passkey (a key with "webauthn") must be its COSE_Key in base64url without padding, ES256 on P-256 or EdDSA on Ed25519 (the approvals page's "Register a passkey" shows it), got ${shown(v.publicKey)}`,
    );
  problems.push(...webauthnTrustProblems(v.webauthn, `${key}.webauthn`));
  if (v.service === true)
    problems.push(`"${key}" is a passkey: it signs for its approvers, so it cannot be a service key`);
  return problems;
}

/** Problems with a passkey's relying party `{rpId, origins}` at `key`, each naming the field and what would be valid. */
export function webauthnTrustProblems(w: unknown, key: string): string[] {
  if (typeof w !== 'object' || w === null || Array.isArray(w))
    return [`"${key}" must be {rpId, origins}, got ${shown(w)}`];
  const problems: string[] = [];
  const t = w as Record<string, unknown>;
  if (typeof t.rpId !== 'string' || !/^(?=.{1,253}$)[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(t.rpId))
    problems.push(
      `"${key}.rpId" must be the relying party's domain in lower case, such as "approvals.example.com", got ${shown(t.rpId)}`,
    );
  if (
    !Array.isArray(t.origins) ||
    t.origins.length === 0 ||
    t.origins.length > 20 ||
    !t.origins.every((o) => typeof o === 'string' && /^https?:\/\/[^/?#\s]+$/.test(o))
  ) {
    problems.push(
      `"${key}.origins" must list 1 to 20 page origins allowed to ask the passkey, such as "https://approvals.example.com" (scheme, host and port, no path), got ${shown(t.origins)}`,
    );
  }
  const extra = Object.keys(t).filter((k) => k !== 'rpId' && k !== 'origins');
  if (extra.length > 0)
    problems.push(
      `"${key}" has unknown field(s) ${extra
        .slice(0, 5)
        .map((k) => JSON.stringify(k))
        .join(', ')} (valid: rpId, origins)`,
    );
  return problems;
}

type CborValue = number | Uint8Array;

/** A CBOR map of small integer keys to integers or byte strings (what a COSE_Key is); `undefined` for anything else, or trailing bytes. */
function cborIntMap(b: Uint8Array): Map<number, CborValue> | undefined {
  let at = 0;
  const head = (): { major: number; arg: number } | undefined => {
    if (at >= b.length) return undefined;
    const first = b[at++]!;
    const info = first & 0x1f;
    if (info < 24) return { major: first >> 5, arg: info };
    const size = info === 24 ? 1 : info === 25 ? 2 : 0;
    if (size === 0 || at + size > b.length) return undefined;
    let arg = 0;
    for (let i = 0; i < size; i++) arg = arg * 256 + b[at++]!;
    return { major: first >> 5, arg };
  };
  const item = (): CborValue | undefined => {
    const h = head();
    if (!h) return undefined;
    if (h.major === 0) return h.arg;
    if (h.major === 1) return -1 - h.arg;
    if (h.major === 2 && at + h.arg <= b.length) return b.slice(at, (at += h.arg));
    return undefined;
  };
  const top = head();
  if (top?.major !== 5 || top.arg > 16) return undefined;
  const map = new Map<number, CborValue>();
  for (let i = 0; i < top.arg; i++) {
    const k = item();
    const v = item();
    if (typeof k !== 'number' || v === undefined || map.has(k)) return undefined;
    map.set(k, v);
  }
  return at === b.length ? map : undefined;
}
