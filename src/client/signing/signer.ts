/**
 * Signers of decisions, made from an approver's Ed25519 private key (PKCS#8 PEM, a JWK, or a key
 * file holding either), and the public entries (`ApproverKey`) a team or a run lists for them.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type JsonWebKey,
  type KeyObject,
  sign,
} from 'node:crypto';
import fs from 'node:fs';
import { UserError } from '../../common/errors';
import { type ApproverKey, approverKeyCheck } from '../../common/signatures/keys';

/** Signs decisions: `sign` gets the JWS signing input and answers its 64-byte Ed25519 signature. */
export interface DecisionSigner {
  /** The key id the signatures name (`kid`); the team or the run lists the public key under it. */
  readonly kid: string;
  /** The 64-byte Ed25519 signature of `input` (the JWS signing input) under the key `kid` names. */
  sign(input: Uint8Array): Uint8Array | Promise<Uint8Array>;
  /** The raw public key in base64url (a JWK's `x`), when the signer knows it (one made from a private key here does). */
  readonly publicKey?: string;
}

/** Options of {@link decisionSigner}. */
export interface SignerOptions {
  /** The key id; a JWK's own `kid` when absent, else the key's RFC 7638 thumbprint ({@link keyThumbprint}). */
  kid?: string;
}

/** A private or public key as baton takes it: a `KeyObject`, PEM text, or a JWK. */
export type KeyInput = KeyObject | string | JsonWebKey;

/**
 * A signer from an Ed25519 private key: PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), a JWK
 * (`{"kty":"OKP","crv":"Ed25519","d":…,"x":…}`) or a `KeyObject`.
 * @example const signer = decisionSigner(fs.readFileSync('alice.pem', 'utf8'), { kid: 'alice-2026' });
 */
export function decisionSigner(privateKey: KeyInput, options: SignerOptions = {}): DecisionSigner {
  const key = privateKeyOf(privateKey);
  const kid = options.kid ?? jwkKid(privateKey) ?? keyThumbprint(createPublicKey(key));
  return {
    kid,
    publicKey: rawPublicKey(createPublicKey(key)),
    sign: (input) => new Uint8Array(sign(null, input, key)),
  };
}

/** A signer from a key file (PKCS#8 PEM or a JWK in JSON), for the CLI and services. */
export function decisionSignerFromFile(file: string, options: SignerOptions = {}): DecisionSigner {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UserError(`cannot read the signing key ${file}: ${(err as Error).message}`);
  }
  return decisionSigner(parseKeyText(text, file), options);
}

/** Options of {@link approverKey}: everything of an `ApproverKey` but its public key. */
export type ApproverKeyOptions = Omit<ApproverKey, 'publicKey' | 'kid'> & { kid?: string };

/**
 * The entry a team's or a run's `approverKeys` lists for a public key (or for the public half of a
 * private one): its raw bytes in base64url, with who it signs for.
 * @example new Team(agents, { approverKeys: [approverKey(fs.readFileSync('alice.pub.pem', 'utf8'), { kid: 'alice-2026', approvers: ['alice'] })] })
 */
export function approverKey(key: KeyInput, options: ApproverKeyOptions): ApproverKey {
  const publicKey = publicKeyOf(key);
  const { kid, ...rest } = options;
  const entry = {
    kid: kid ?? jwkKid(key) ?? keyThumbprint(publicKey),
    ...rest,
    publicKey: rawPublicKey(publicKey),
  } as ApproverKey;
  const problems = approverKeyCheck(entry, 'approverKey');
  if (problems.length > 0) throw new UserError(`Invalid approver key: ${problems.join('; ')}`, { problems });
  return entry;
}

/** A new Ed25519 key pair: the private key as a JWK (with its `kid`) and the public entry to list. */
export function generateApproverKey(options: ApproverKeyOptions): {
  privateJwk: JsonWebKey & { kid: string };
  approverKey: ApproverKey;
} {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const entry = approverKey(publicKey, options);
  return { privateJwk: { ...privateKey.export({ format: 'jwk' }), kid: entry.kid }, approverKey: entry };
}

/** A key's RFC 7638 JWK thumbprint (SHA-256, base64url): a key id that names exactly that key. */
export function keyThumbprint(key: KeyInput): string {
  const x = rawPublicKey(publicKeyOf(key));
  return createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest('base64url');
}

function parseKeyText(text: string, source: string): KeyInput {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    try {
      return JSON.parse(trimmed) as JsonWebKey;
    } catch (err) {
      throw new UserError(`${source} is not a JWK: ${(err as Error).message}`);
    }
  }
  return trimmed;
}

function privateKeyOf(key: KeyInput): KeyObject {
  let k: KeyObject;
  try {
    k =
      typeof key === 'string'
        ? createPrivateKey(key)
        : isKeyObject(key)
          ? key
          : createPrivateKey({ key: key as never, format: 'jwk' });
  } catch (err) {
    throw new UserError(`not an Ed25519 private key (PKCS#8 PEM or a JWK with "d"): ${(err as Error).message}`);
  }
  if (k.type !== 'private' || k.asymmetricKeyType !== 'ed25519')
    throw new UserError(
      `a decision signer needs an Ed25519 private key, got a ${k.asymmetricKeyType ?? 'secret'} ${k.type} key`,
    );
  return k;
}

function publicKeyOf(key: KeyInput): KeyObject {
  let k: KeyObject;
  try {
    k = isKeyObject(key)
      ? key.type === 'private'
        ? createPublicKey(key)
        : key
      : typeof key === 'string'
        ? createPublicKey(key)
        : createPublicKey({ key: key as never, format: 'jwk' });
  } catch (err) {
    throw new UserError(`not an Ed25519 key (PEM or a JWK): ${(err as Error).message}`);
  }
  if (k.asymmetricKeyType !== 'ed25519')
    throw new UserError(`approver keys are Ed25519 keys, got ${k.asymmetricKeyType ?? 'a secret key'}`);
  return k;
}

function rawPublicKey(key: KeyObject): string {
  return (key.export({ format: 'jwk' }) as { x: string }).x;
}

function jwkKid(key: KeyInput): string | undefined {
  return !isKeyObject(key) && typeof key === 'object' && typeof (key as { kid?: unknown }).kid === 'string'
    ? (key as { kid: string }).kid
    : undefined;
}

function isKeyObject(key: unknown): key is KeyObject {
  return (
    typeof key === 'object' &&
    key !== null &&
    typeof (key as KeyObject).export === 'function' &&
    typeof (key as KeyObject).type === 'string'
  );
}
