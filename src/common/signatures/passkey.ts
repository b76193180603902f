/**
 * Decisions signed with a passkey: a WebAuthn assertion whose challenge is the decision's digest
 * (SHA-256 of the canonical `baton.decision/1` payload, the payload an Ed25519 decision signature
 * carries), checked as a relying party checks one: `webauthn.get`, the challenge, an allowed
 * origin, the RP id's hash, the user-present flag, the signature over `authenticatorData ||
 * SHA-256(clientDataJSON)` (ES256 or EdDSA) and a signature counter that only goes forward.
 *
 * The signature travels as five base64url parts:
 * `header "." payload "." authenticatorData "." clientDataJSON "." signature`, the header
 * `{"alg":"WebAuthn","kid":<key id>}`.
 *
 * Workflow-safe: no I/O.
 */
import { ed25519 } from '@noble/curves/ed25519';
import { p256 } from '@noble/curves/nist';
import { sha256 } from '@noble/hashes/sha2';
import { isRecord } from '../check';
import { clipText } from '../limits';
import { base64url, canonicalJson, fromBase64url, fromUtf8, utf8 } from './canonical';
import { coseKeyOf, type PasskeyTrust } from './cose';

/** The header's `alg` of a passkey-signed decision. */
export const PASSKEY_ALG = 'WebAuthn';

/** What an authenticator returns for `navigator.credentials.get`: the parts a decision's passkey signature carries. */
export interface PasskeyAssertion {
  authenticatorData: Uint8Array;
  clientDataJSON: Uint8Array;
  /** ES256: the DER-encoded ECDSA signature; EdDSA: the 64-byte signature. */
  signature: Uint8Array;
}

/** How a passkey assertion was made: the origin that asked and the authenticator's signature counter. */
export interface PasskeyUse {
  origin: string;
  signCount: number;
}

/** Why an assertion is refused (the problems of `SignatureProblem` it can name), and in words. */
export type AssertionRefusal = {
  problem: 'malformed' | 'bad_signature' | 'mismatch' | 'wrong_origin' | 'replayed';
  reason: string;
};

/** The challenge a passkey signs for a decision: SHA-256 of the payload's canonical JSON (the decision digest). */
export function passkeyChallenge(payload: unknown): Uint8Array {
  return sha256(utf8(canonicalJson(payload)));
}

/** The decision's signature made of a passkey's assertion over {@link passkeyChallenge}`(payload)`, under key `kid`. */
export function passkeySignature(kid: string, payload: unknown, a: PasskeyAssertion): string {
  return [
    utf8(canonicalJson({ alg: PASSKEY_ALG, kid })),
    utf8(canonicalJson(payload)),
    a.authenticatorData,
    a.clientDataJSON,
    a.signature,
  ]
    .map(base64url)
    .join('.');
}

/** The signature counter of a passkey signature's authenticator data; `undefined` when it is not one. */
export function signCountOf(signature: string): number | undefined {
  const parts = signature.split('.');
  const data = parts.length === 5 ? fromBase64url(parts[2]!) : undefined;
  return data && data.length >= 37 ? readCount(data) : undefined;
}

/** The highest passkey signature counter of key `kid` among decision `records` (a chain's records are its memory of the assertions it took). */
export function lastSignCount(
  records: readonly { identity?: { kid?: string; passkey?: { signCount: number } } }[],
  kid: string,
): number | undefined {
  let last: number | undefined;
  for (const r of records) {
    const used = r.identity?.kid === kid ? r.identity.passkey : undefined;
    if (used && (last === undefined || used.signCount > last)) last = used.signCount;
  }
  return last;
}

/**
 * Check the assertion in the parts `[authenticatorData, clientDataJSON, signature]` of a passkey
 * signature whose payload part is `payloadText`, made with `key`; `lastCount` is the highest
 * counter this chain has seen from that key. The use it shows, or why it is refused.
 */
export function checkAssertion(
  parts: readonly string[],
  payloadText: string,
  key: { kid: string; publicKey: string; webauthn: PasskeyTrust },
  lastCount: number | undefined,
): { ok: true; use: PasskeyUse } | ({ ok: false } & AssertionRefusal) {
  const refuse = (problem: AssertionRefusal['problem'], reason: string) => ({ ok: false as const, problem, reason });
  const [data, client, sig] = parts.map(fromBase64url);
  const publicKey = coseKeyOf(fromBase64url(key.publicKey) ?? new Uint8Array());
  if (!data || !client || !sig || data.length < 37 || !publicKey)
    return refuse(
      'malformed',
      'a passkey signature must be header.payload.authenticatorData.clientDataJSON.signature, each base64url, with authenticator data of at least 37 bytes',
    );
  const text = fromUtf8(client);
  const clientData = text !== undefined ? jsonOf(text) : undefined;
  if (
    !isRecord(clientData) ||
    typeof clientData.type !== 'string' ||
    typeof clientData.challenge !== 'string' ||
    typeof clientData.origin !== 'string'
  ) {
    return refuse('malformed', 'the passkey\'s client data must be JSON with "type", "challenge" and "origin"');
  }
  if (clientData.type !== 'webauthn.get')
    return refuse(
      'malformed',
      `the passkey's client data is of type ${JSON.stringify(clipText(clientData.type, 40))}; a decision is signed with an assertion (navigator.credentials.get, type "webauthn.get")`,
    );
  // Verified before anything that a signed assertion says, so only the key's holder learns what else is wrong.
  const signed = concat(data, sha256(client));
  if (!verifies(publicKey, sig, signed))
    return refuse(
      'bad_signature',
      `the passkey assertion does not verify with key ${JSON.stringify(key.kid)}: another credential made it, or its data was changed`,
    );
  if (clientData.challenge !== base64url(sha256(utf8(payloadText)))) {
    return refuse(
      'mismatch',
      "the passkey assertion's challenge is not this decision's digest: it was made for another decision (a replayed assertion)",
    );
  }
  const origin = clipText(clientData.origin, 200);
  if (!key.webauthn.origins.includes(clientData.origin))
    return refuse(
      'wrong_origin',
      `the passkey assertion was asked for by ${JSON.stringify(origin)}, which key ${JSON.stringify(key.kid)} does not allow (allowed: ${key.webauthn.origins.join(', ')})`,
    );
  if (clientData.crossOrigin === true)
    return refuse(
      'wrong_origin',
      `the passkey assertion was asked for from a frame of another origin inside ${JSON.stringify(origin)}`,
    );
  if (!equal(data.subarray(0, 32), sha256(utf8(key.webauthn.rpId))))
    return refuse(
      'wrong_origin',
      `the passkey assertion is for another relying party than ${JSON.stringify(key.webauthn.rpId)} (its rpIdHash differs)`,
    );
  if ((data[32]! & 0x01) === 0)
    return refuse(
      'malformed',
      'the authenticator did not confirm that the user was present (the UP flag of its data is not set)',
    );
  const signCount = readCount(data);
  if (lastCount !== undefined && (signCount !== 0 || lastCount !== 0) && signCount <= lastCount) {
    return refuse(
      'replayed',
      `the passkey's signature counter is ${signCount}, not above ${lastCount}, which this chain has already seen from key ${JSON.stringify(key.kid)}: an assertion sent again, or a cloned authenticator`,
    );
  }
  return { ok: true, use: { origin: clientData.origin, signCount } };
}

function verifies(key: NonNullable<ReturnType<typeof coseKeyOf>>, sig: Uint8Array, message: Uint8Array): boolean {
  try {
    if (key.alg === 'EdDSA') return ed25519.verify(sig, message, key.point, { zip215: false });
    // WebAuthn's ES256 signatures are DER, and authenticators need not make low-S ones.
    return p256.verify(sig, message, key.point, { prehash: true, lowS: false, format: 'der' });
  } catch {
    return false;
  }
}

function readCount(data: Uint8Array): number {
  return ((data[33]! << 24) >>> 0) + (data[34]! << 16) + (data[35]! << 8) + data[36]!;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
