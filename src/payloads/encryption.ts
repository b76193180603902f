/**
 * AES-256-GCM encryption of payloads, with the key id in each payload's metadata so keys rotate
 * without breaking old histories: the first key of the ring encrypts, every key decrypts.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { UserError } from '../common/errors';

/** The payload encoding of baton's encryption codec (the one Temporal's samples use). */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** Metadata key naming the key that encrypted a payload. */
export const KEY_ID_METADATA = 'encryption-key-id';
/** Metadata key naming the cipher. */
export const CIPHER_METADATA = 'encryption-cipher';
/** The cipher, as {@link CIPHER_METADATA} names it. */
export const CIPHER = 'AES-256-GCM';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** One AES-256 key and the id recorded beside what it encrypts. */
export interface EncryptionKey {
  /** Letters, digits, `.`, `_`, `-`; at most 64. Recorded in history in plain text, so not a secret. */
  id: string;
  /** 32 bytes. */
  key: Uint8Array;
}

/** A payload codec configuration that cannot work: a bad key id, a key of the wrong length, a repeated id, no key, an unreadable key file. */
export class CodecConfigError extends UserError<{ problems: string[] }> {
  declare readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid payload codec configuration: ${problems.join('; ')}`, { problems });
  }
}

/** A payload this process cannot decrypt: its key is not configured, or its bytes do not authenticate. */
export class PayloadDecryptionError extends UserError<{ keyId: string; configured: string[] }> {
  declare readonly keyId: string;
  declare readonly configured: string[];
}

/** Where a process is given its keys, as the messages about a missing key name it. */
const KEY_SETTINGS = 'BATON_ENCRYPTION_KEYS or BATON_ENCRYPTION_KEY_FILE';
const KEY_OPTION = '(or the codec option encryptionKeys)';

/** The error for a payload encrypted with `keyId` when only `configured` keys are. */
export function missingKeyError(keyId: string, configured: string[]): PayloadDecryptionError {
  const message =
    configured.length === 0
      ? `a payload is encrypted with key "${keyId}", and no encryption keys are configured here; set ${KEY_SETTINGS} with key "${keyId}" ${KEY_OPTION}`
      : `a payload is encrypted with key "${keyId}", which is not configured here (configured: ${configured.join(', ')}); add key "${keyId}" after the current key in ${KEY_SETTINGS} ${KEY_OPTION}`;
  return new PayloadDecryptionError(message, { keyId, configured });
}

/** Problems with a key ring, empty when it is usable. */
export function checkEncryptionKeys(keys: readonly EncryptionKey[]): string[] {
  if (keys.length === 0) return ['no keys (the first key encrypts, so at least one is needed)'];
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const k of keys) {
    if (!KEY_ID.test(k.id)) problems.push(`key id "${k.id}" must be 1-64 letters, digits, ".", "_" or "-"`);
    if (seen.has(k.id)) problems.push(`key id "${k.id}" appears twice`);
    seen.add(k.id);
    if (k.key.length !== KEY_BYTES)
      problems.push(`key "${k.id}" has ${k.key.length} bytes; AES-256 needs ${KEY_BYTES}`);
  }
  return problems;
}

/**
 * Encrypts whole payloads (metadata and data) with AES-256-GCM under the first key; decrypts with
 * whichever key the payload names. The key id is also the cipher's additional data, so a payload
 * relabelled with another key id does not decrypt. Payloads it did not encrypt pass through.
 * @example new AesGcmPayloadCodec([{ id: '2025-06', key: newKey }, { id: '2025-01', key: oldKey }])
 */
export class AesGcmPayloadCodec implements PayloadCodec {
  readonly #keys: Map<string, Uint8Array>;
  readonly #current: EncryptionKey;

  constructor(keys: readonly EncryptionKey[]) {
    const problems = checkEncryptionKeys(keys);
    if (problems.length > 0) throw new CodecConfigError(problems);
    this.#keys = new Map(keys.map((k) => [k.id, k.key]));
    this.#current = keys[0]!;
  }

  /** The id of the key that encrypts. */
  get keyId(): string {
    return this.#current.id;
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => this.encrypt(p));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => this.decrypt(p));
  }

  /** One payload, encrypted under the current key. */
  encrypt(p: Payload): Payload {
    const { id, key } = this.#current;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(encoder.encode(id));
    const plain = temporal.api.common.v1.Payload.encode(p).finish();
    const data = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return {
      metadata: {
        encoding: encoder.encode(ENCRYPTED_ENCODING),
        [KEY_ID_METADATA]: encoder.encode(id),
        [CIPHER_METADATA]: encoder.encode(CIPHER),
      },
      data,
    };
  }

  /** One payload decrypted, or as it was when this codec did not encrypt it. */
  decrypt(p: Payload): Payload {
    if (!isEncrypted(p)) return p;
    const keyId = keyIdOf(p);
    const key = this.#keys.get(keyId);
    const configured = [...this.#keys.keys()];
    if (!key) throw missingKeyError(keyId, configured);
    const data = p.data ?? new Uint8Array();
    if (data.length < IV_BYTES + TAG_BYTES)
      throw new PayloadDecryptionError(`a payload encrypted with key "${keyId}" is too short to be one`, {
        keyId,
        configured,
      });
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES));
      decipher.setAAD(encoder.encode(keyId));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      const plain = Buffer.concat([
        decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)),
        decipher.final(),
      ]);
      return temporal.api.common.v1.Payload.decode(plain);
    } catch {
      throw new PayloadDecryptionError(
        `a payload encrypted with key "${keyId}" does not decrypt with the key of that id configured here (a different key, or altered bytes); check that key "${keyId}" in ${KEY_SETTINGS} ${KEY_OPTION} is the one it was encrypted with`,
        { keyId, configured },
      );
    }
  }
}

/**
 * The codec of a process configured without encryption keys: payloads pass through, except one
 * {@link AesGcmPayloadCodec} encrypted, which fails with a {@link PayloadDecryptionError} naming its
 * key and where to configure it (rather than the payload converter's `Unknown encoding`).
 */
export class MissingKeysCodec implements PayloadCodec {
  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads;
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    const encrypted = payloads.find(isEncrypted);
    if (encrypted) throw missingKeyError(keyIdOf(encrypted), []);
    return payloads;
  }
}

/** The id of the key an encrypted payload names. */
function keyIdOf(p: Payload): string {
  return decoder.decode(p.metadata?.[KEY_ID_METADATA] ?? new Uint8Array());
}

/** Whether a payload is one {@link AesGcmPayloadCodec} encrypted. */
export function isEncrypted(p: Payload): boolean {
  const encoding = p.metadata?.encoding;
  return encoding !== undefined && encoding !== null && decoder.decode(encoding) === ENCRYPTED_ENCODING;
}

/** A new random 32-byte key, base64: what `BATON_ENCRYPTION_KEYS` takes after `<id>:`. */
export function newEncryptionKey(): string {
  return randomBytes(KEY_BYTES).toString('base64');
}
