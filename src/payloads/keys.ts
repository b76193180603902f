/**
 * The payload codec configuration from the environment, so the worker, the client, the audit, the
 * replay check and the CLI read one setting: `BATON_ENCRYPTION_KEYS` or `BATON_ENCRYPTION_KEY_FILE`,
 * and `BATON_COMPRESS`. Keys stay in the process; only their ids reach history.
 */
import fs from 'node:fs';
import { checkEncryptionKeys, CodecConfigError, type EncryptionKey } from './encryption';
import type { ClaimCheckOptions } from './claimCheck';
import { checkTenantKeys, type TenantKeys } from './tenantKeys';

/** How baton encodes payloads on their way to Temporal. Client, workers, audit and replay checks need the same. */
export interface PayloadCodecOptions {
  /** Gzip payloads of `minBytes` or more (before encrypting them). @default false */
  compress?: boolean;
  /** The smallest payload worth compressing, in bytes. @default 1024 */
  minBytes?: number;
  /**
   * AES-256-GCM keys: the first encrypts, all decrypt. To rotate, put a new key first and keep the
   * old ones after it for as long as histories they encrypted are read.
   * @default none: payloads are not encrypted
   */
  encryptionKeys?: EncryptionKey[];
  /**
   * Each tenant's own keys (`{acme: [{id: 'acme-2026', key}]}`): a tenant's payloads (its chains'
   * workflow ids begin `<tenant>/`) are encrypted with its first key, every key decrypts what it
   * encrypted. A process without a tenant's keys fails that tenant's tasks naming the key, and
   * runs the others'. Key ids are unique across tenants and `encryptionKeys`.
   * @default none: a tenant's payloads are encrypted as others' are
   */
  tenantKeys?: TenantKeys;
  /**
   * Keep payloads of `minBytes` or more in a blob store (a directory by default), with only a
   * reference in history; applied after compression and encryption, so blobs are stored as history
   * would have held them. @default none: payloads stay in history
   */
  claimCheck?: ClaimCheckOptions;
}

/** Environment variables of the codec configuration. */
export const CODEC_ENV = {
  /** `<id>:<key>[,<id>:<key>…]`, keys as base64 (or 64 hex digits) of 32 bytes; the first encrypts. */
  KEYS: 'BATON_ENCRYPTION_KEYS',
  /** A file of `<id>:<key>` lines (blank lines and `#` comments ignored); the first encrypts. */
  KEY_FILE: 'BATON_ENCRYPTION_KEY_FILE',
  /** `<tenant>/<id>:<key>[,…]`: each tenant's keys, the first of a tenant encrypts its payloads. */
  TENANT_KEYS: 'BATON_TENANT_KEYS',
  /** `1`/`true`/`yes` to gzip payloads. */
  COMPRESS: 'BATON_COMPRESS',
  /** A directory for claim-checked payloads (large payloads kept out of history); shared by workers and clients. */
  CLAIM_CHECK_DIR: 'BATON_CLAIM_CHECK_DIR',
  /** The smallest payload claim-checked, in bytes (default 4096). */
  CLAIM_CHECK_MIN_BYTES: 'BATON_CLAIM_CHECK_MIN_BYTES',
  /** `codec` (baton's claim-check codec, the default) or `external-storage` (Temporal's external payload storage). */
  CLAIM_CHECK_VIA: 'BATON_CLAIM_CHECK_VIA',
} as const;

/**
 * The codec configuration the environment describes (see {@link CODEC_ENV}); empty when it sets none.
 * @example BATON_ENCRYPTION_KEYS="2025-06:$(openssl rand -base64 32),2025-01:<the old key>"
 */
export function codecOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): PayloadCodecOptions {
  const inline = env[CODEC_ENV.KEYS]?.trim();
  const file = env[CODEC_ENV.KEY_FILE]?.trim();
  if (inline && file) throw new CodecConfigError([`set ${CODEC_ENV.KEYS} or ${CODEC_ENV.KEY_FILE}, not both`]);
  const compress = flag(CODEC_ENV.COMPRESS, env[CODEC_ENV.COMPRESS]);
  const encryptionKeys = inline ? parseEncryptionKeys(inline, CODEC_ENV.KEYS) : file ? readKeyFile(file) : undefined;
  const claimCheck = claimCheckFromEnv(env);
  const tenantText = env[CODEC_ENV.TENANT_KEYS]?.trim();
  const tenantKeys = tenantText ? parseTenantKeys(tenantText, CODEC_ENV.TENANT_KEYS, encryptionKeys) : undefined;
  return {
    ...(compress ? { compress } : {}),
    ...(encryptionKeys ? { encryptionKeys } : {}),
    ...(tenantKeys ? { tenantKeys } : {}),
    ...(claimCheck ? { claimCheck } : {}),
  };
}

function claimCheckFromEnv(env: NodeJS.ProcessEnv): ClaimCheckOptions | undefined {
  const dir = env[CODEC_ENV.CLAIM_CHECK_DIR]?.trim();
  const min = env[CODEC_ENV.CLAIM_CHECK_MIN_BYTES]?.trim();
  const via = env[CODEC_ENV.CLAIM_CHECK_VIA]?.trim();
  if (!dir) {
    const given = [min ? CODEC_ENV.CLAIM_CHECK_MIN_BYTES : '', via ? CODEC_ENV.CLAIM_CHECK_VIA : ''].filter(Boolean);
    if (given.length > 0)
      throw new CodecConfigError([
        `${given.join(' and ')} need${given.length === 1 ? 's' : ''} ${CODEC_ENV.CLAIM_CHECK_DIR}`,
      ]);
    return undefined;
  }
  if (via && via !== 'codec' && via !== 'external-storage')
    throw new CodecConfigError([`${CODEC_ENV.CLAIM_CHECK_VIA} must be "codec" or "external-storage", not "${via}"`]);
  const through: Pick<ClaimCheckOptions, 'via'> = via === 'external-storage' ? { via } : {};
  if (min === undefined || min === '') return { dir, ...through };
  if (!/^[0-9]+$/.test(min) || Number(min) < 1)
    throw new CodecConfigError([
      `${CODEC_ENV.CLAIM_CHECK_MIN_BYTES} must be a whole number of bytes (1 or more), not "${min}"`,
    ]);
  return { dir, minBytes: Number(min), ...through };
}

/** Keys from a key file (see {@link CODEC_ENV.KEY_FILE}). */
export function readKeyFile(file: string): EncryptionKey[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new CodecConfigError([
      `cannot read the key file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    ]);
  }
  return parseEncryptionKeys(text, file);
}

/**
 * Keys from `<id>:<key>` entries separated by commas or lines; blank lines and `#` comments are
 * skipped. Errors name the entry by its id and position, never by its key.
 */
export function parseEncryptionKeys(text: string, source = 'encryption keys'): EncryptionKey[] {
  const entries = text
    .split(/[,\n]/)
    .map((line) => line.replace(/#.*$/, '').trim())
    .filter((line) => line !== '');
  const problems: string[] = [];
  const keys = entries.flatMap((entry, i): EncryptionKey[] => {
    const colon = entry.indexOf(':');
    if (colon <= 0) {
      problems.push(`entry ${i + 1} of ${source} is not <id>:<key>`);
      return [];
    }
    const id = entry.slice(0, colon).trim();
    const key = keyBytes(entry.slice(colon + 1).trim());
    if (!key) {
      problems.push(`key "${id}" in ${source} is neither base64 nor hex`);
      return [];
    }
    return [{ id, key }];
  });
  if (entries.length === 0) problems.push(`${source} has no keys`);
  else if (problems.length === 0) problems.push(...checkEncryptionKeys(keys));
  if (problems.length > 0) throw new CodecConfigError(problems);
  return keys;
}

/** Tenants' keys from `<tenant>/<id>:<key>` entries (see {@link CODEC_ENV.TENANT_KEYS}); errors name the tenant and key id, never the key. */
export function parseTenantKeys(
  text: string,
  source = 'tenant keys',
  shared: readonly EncryptionKey[] = [],
): TenantKeys {
  const byTenant: TenantKeys = {};
  const problems: string[] = [];
  for (const [i, entry] of text
    .split(/[,\n]/)
    .map((e) => e.replace(/#.*$/, '').trim())
    .filter((e) => e !== '')
    .entries()) {
    // The tenant ends at the first "/" before the id's ":" (a base64 key may hold "/" too).
    const colon = entry.indexOf(':');
    const slash = entry.slice(0, colon < 0 ? entry.length : colon).indexOf('/');
    if (slash <= 0) {
      problems.push(`entry ${i + 1} of ${source} is not <tenant>/<id>:<key>`);
      continue;
    }
    try {
      (byTenant[entry.slice(0, slash)] ??= []).push(
        ...parseEncryptionKeys(entry.slice(slash + 1), `${source} (tenant "${entry.slice(0, slash)}")`),
      );
    } catch (err) {
      problems.push(...(err as CodecConfigError).problems);
    }
  }
  if (problems.length === 0) problems.push(...checkTenantKeys(byTenant, shared));
  if (problems.length > 0) throw new CodecConfigError(problems);
  return byTenant;
}

function keyBytes(text: string): Uint8Array | undefined {
  if (/^[0-9a-f]{64}$/i.test(text)) return Buffer.from(text, 'hex');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) return undefined;
  return Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
}

function flag(name: string, value: string | undefined): boolean {
  const v = value?.trim().toLowerCase();
  if (!v || ['0', 'false', 'no', 'off'].includes(v)) return false;
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  throw new CodecConfigError([`${name} must be 1/true/yes or 0/false/no, not "${value}"`]);
}
