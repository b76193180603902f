/**
 * The byte forms signatures and digests are made over: canonical JSON (RFC 8785 style: object
 * keys sorted by UTF-16 code units at every depth, no whitespace, strings and numbers as
 * `JSON.stringify` writes them), UTF-8, base64url without padding, and SHA-256 in lowercase hex.
 *
 * Workflow-safe: pure code, no I/O, no node builtins.
 */
import { sha256 } from '@noble/hashes/sha2';

/**
 * `value` as canonical JSON. Only JSON values: a string, a finite number, a boolean, `null`, an
 * array or a plain object of those; object fields whose value is `undefined` are left out, as
 * `JSON.stringify` leaves them out. Throws `TypeError` for anything JSON cannot hold.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`canonical JSON holds finite numbers only, got ${value}`);
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v)).join(',')}]`;
  if (typeof value === 'object') {
    const fields = Object.keys(value)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${fields.join(',')}}`;
  }
  throw new TypeError(`canonical JSON cannot hold a ${typeof value}`);
}

/** The UTF-8 bytes of `text`. */
export function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/** `bytes` read as UTF-8; `undefined` when they are not valid UTF-8. */
export function fromUtf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const INDEX = new Map([...ALPHABET].map((c, i) => [c, i]));

/** `bytes` in base64url, without padding (RFC 4648 §5). */
export function base64url(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const chars = Math.min(4, Math.ceil(((bytes.length - i) * 8) / 6));
    for (let j = 0; j < chars; j++) out += ALPHABET[(n >> (18 - 6 * j)) & 63];
  }
  return out;
}

/**
 * The bytes of base64url `text` (no padding); `undefined` when it is not base64url in its one
 * canonical spelling (so one value has one text, and a text one value).
 */
export function fromBase64url(text: string): Uint8Array | undefined {
  if (text.length % 4 === 1) return undefined;
  const out = new Uint8Array(Math.floor((text.length * 6) / 8));
  let bits = 0;
  let acc = 0;
  let at = 0;
  for (const c of text) {
    const v = INDEX.get(c);
    if (v === undefined) return undefined;
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[at++] = (acc >> bits) & 0xff;
    }
  }
  // Bits left over must be zero: otherwise two texts would spell one value.
  if ((acc & ((1 << bits) - 1)) !== 0) return undefined;
  return out;
}

/** `bytes` in lowercase hex. */
export function hex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

/** SHA-256 of `text`'s UTF-8 bytes (or of `bytes`), in lowercase hex. */
export function sha256Hex(input: string | Uint8Array): string {
  return hex(sha256(typeof input === 'string' ? utf8(input) : input));
}
