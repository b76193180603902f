/**
 * Passkeys made in Node, for the tests and the model harness: a P-256 (or Ed25519) credential and
 * WebAuthn assertions over a decision's digest, made as an authenticator makes them
 * (`authenticatorData || SHA-256(clientDataJSON)` signed with node:crypto).
 */
import { createHash, createPrivateKey, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { p256 } from '@noble/curves/nist';
import type { ApproverKey } from '../../src/client/signing';
import { base64url, fromBase64url } from '../../src/common/signatures/canonical';
import { coseKey } from '../../src/common/signatures/cose';
import { passkeyChallenge, passkeySignature } from '../../src/common/signatures/passkey';
import { decisionPayload, type DecisionFacts } from '../../src/common/signatures/payload';

/** A passkey held in Node: its key id, private key, COSE public key and counter. */
export interface NodePasskey {
  kid: string;
  privateKey: KeyObject;
  /** The credential's COSE_Key, base64url. */
  publicKey: string;
  crv: 'P-256' | 'Ed25519';
  signCount: number;
}

/** A new passkey on `crv`, counting from `signCount`. */
export function nodePasskey(kid: string, crv: 'P-256' | 'Ed25519' = 'P-256', signCount = 0): NodePasskey {
  const pair = crv === 'P-256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('ed25519');
  const jwk = pair.publicKey.export({ format: 'jwk' }) as { x: string; y?: string };
  const x = fromBase64url(jwk.x)!;
  const cose = crv === 'P-256' ? coseKey({ crv, x, y: fromBase64url(jwk.y!)! }) : coseKey({ crv, x });
  return { kid, privateKey: pair.privateKey, publicKey: base64url(cose), crv, signCount };
}

/** A P-256 passkey made from a private scalar of 32 bytes of `seed`: the same in every process (a team's key, which workers build too). */
export function seededPasskey(kid: string, seed: number): NodePasskey {
  const d = new Uint8Array(32).fill(seed);
  const point = p256.getPublicKey(d, false);
  const [x, y] = [point.slice(1, 33), point.slice(33)];
  const privateKey = createPrivateKey({
    key: { kty: 'EC', crv: 'P-256', d: base64url(d), x: base64url(x), y: base64url(y) },
    format: 'jwk',
  });
  return { kid, privateKey, publicKey: base64url(coseKey({ crv: 'P-256', x, y })), crv: 'P-256', signCount: 0 };
}

/** The entry a team lists for `p`: a passkey of `approvers` for the relying party `rpId` at `origins`. */
export function passkeyEntry(p: NodePasskey, approvers: string[], rpId: string, origins: string[]): ApproverKey {
  return { kid: p.kid, approvers, publicKey: p.publicKey, webauthn: { rpId, origins } };
}

/** What an assertion may get wrong on purpose. */
export interface AssertionOptions {
  origin: string;
  rpId: string;
  /** @default 'webauthn.get' */
  type?: string;
  /** The user-present flag. @default true */
  present?: boolean;
  /** The counter to report instead of the next one. */
  signCount?: number;
  /** Seconds since the epoch. @default now */
  iat?: number;
}

/** `p`'s passkey signature of `facts`: an assertion over the decision's digest, its counter one up. */
export function passkeySign(p: NodePasskey, facts: DecisionFacts, o: AssertionOptions): string {
  return passkeyAssert(p, decisionPayload(facts, o.iat ?? Math.floor(Date.now() / 1000)), o);
}

/** `p`'s passkey signature of any payload (an operator's, say): an assertion over SHA-256 of its canonical JSON, its counter one up. */
export function passkeyAssert(p: NodePasskey, payload: unknown, o: AssertionOptions): string {
  const count = o.signCount ?? ++p.signCount;
  const authenticatorData = Buffer.alloc(37);
  createHash('sha256').update(o.rpId).digest().copy(authenticatorData, 0);
  authenticatorData[32] = (o.present ?? true) ? 0x05 : 0x04;
  authenticatorData.writeUInt32BE(count, 33);
  const clientDataJSON = Buffer.from(
    JSON.stringify({
      type: o.type ?? 'webauthn.get',
      challenge: base64url(passkeyChallenge(payload)),
      origin: o.origin,
      crossOrigin: false,
    }),
  );
  const signed = Buffer.concat([authenticatorData, createHash('sha256').update(clientDataJSON).digest()]);
  const signature = p.crv === 'P-256' ? sign('sha256', signed, p.privateKey) : sign(null, signed, p.privateKey);
  return passkeySignature(p.kid, payload, { authenticatorData, clientDataJSON, signature });
}
