/**
 * The JWS compact serialization every signature of baton uses (decisions, operators' loosenings,
 * delegation grants, audit heads): the signing input of a payload under an Ed25519 key id, a part
 * read back as JSON, and strict Ed25519 verification.
 *
 * Workflow-safe: no I/O.
 */
import { ed25519 } from '@noble/curves/ed25519';
import { base64url, canonicalJson, fromBase64url, fromUtf8, utf8 } from './canonical';

/** `base64url(header) "." base64url(payload)`, both canonical JSON, the header `{"alg":"EdDSA","kid":…}`: what Ed25519 signs (as ASCII). */
export function jwsSigningInput(kid: string, payload: unknown): string {
  return `${base64url(utf8(canonicalJson({ alg: 'EdDSA', kid })))}.${base64url(utf8(canonicalJson(payload)))}`;
}

/** A base64url part of a compact JWS as JSON; `undefined` when it is not base64url, UTF-8 or JSON. */
export function jsonOfPart(part: string): unknown {
  const bytes = fromBase64url(part);
  const text = bytes ? fromUtf8(bytes) : undefined;
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Whether `signature` is `publicKey`'s Ed25519 signature of `message`, by RFC 8032's strict rules (one valid encoding per signature). */
export function ed25519Verifies(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  try {
    return ed25519.verify(signature, message, publicKey, { zip215: false });
  } catch {
    return false;
  }
}
