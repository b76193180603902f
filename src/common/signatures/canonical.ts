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
 * `JSON.stringify` leaves them out. Throws `TypeError` for anything JSON cannot hold. Written
 * without recursion: a value nested 10,000 levels deep is written, not a stack overflow.
 */
export function canonicalJson(value: unknown): string {
  return sortedText(value, true);
}

/**
 * `value` as JSON with object keys sorted at every depth, for comparing and hashing values that
 * came as JSON: like {@link canonicalJson}, but what JSON cannot hold is written as
 * `JSON.stringify` writes it (`null` for a number beyond JSON's, or an array's `undefined`)
 * instead of refused. Without recursion.
 */
export function sortedJson(value: unknown): string {
  return sortedText(value, false);
}

/** An array or object being written: its members, and how many are written. */
type Open = { items: unknown[]; keys?: string[]; at: number };

function sortedText(root: unknown, strict: boolean): string {
  const out: string[] = [];
  const open: Open[] = [];
  let next: unknown = root;
  for (;;) {
    if (Array.isArray(next)) {
      out.push('[');
      open.push({ items: next, at: 0 });
    } else if (typeof next === 'object' && next !== null) {
      const record = next as Record<string, unknown>;
      const keys = Object.keys(record)
        .filter((k) => record[k] !== undefined)
        .sort();
      out.push('{');
      open.push({ items: keys.map((k) => record[k]), keys, at: 0 });
    } else out.push(primitive(next, strict));
    // Close what is complete; find the next member to write.
    let found = false;
    while (open.length > 0 && !found) {
      const top = open[open.length - 1]!;
      if (top.at === top.items.length) {
        out.push(top.keys ? '}' : ']');
        open.pop();
        continue;
      }
      if (top.at > 0) out.push(',');
      if (top.keys) out.push(`${JSON.stringify(top.keys[top.at])}:`);
      next = top.items[top.at++];
      found = true;
    }
    if (!found) return out.join('');
  }
}

function primitive(value: unknown, strict: boolean): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (strict && !Number.isFinite(value))
      throw new TypeError(`canonical JSON holds finite numbers only, got ${value}`);
    return JSON.stringify(value);
  }
  if (strict) throw new TypeError(`canonical JSON cannot hold a ${typeof value}`);
  return JSON.stringify(value) ?? 'null';
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
