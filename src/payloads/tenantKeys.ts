/**
 * Each tenant's payloads under its own keys. The codec sees no tenant, only the workflow a payload
 * belongs to (Temporal's serialization context); a tenant's chains have workflow ids that begin
 * `<tenant>/` (and their specialists' ids begin with their caller's), so the id names the tenant.
 * A payload of a tenant with keys here is encrypted with the tenant's first key; every configured key
 * decrypts the payloads it encrypted. A process without a tenant's keys cannot read that tenant's
 * payloads: the tenant's workflow and activity tasks fail there naming the key, and other tenants'
 * run on.
 */
import type { Payload, PayloadCodec, SerializationContext } from '@temporalio/common';
import { tenantOfWorkflowId, TENANT_ID } from '../common/tenant';
import {
  AesGcmPayloadCodec,
  checkEncryptionKeys,
  CodecConfigError,
  isEncrypted,
  PayloadDecryptionError,
  type EncryptionKey,
} from './encryption';

/** Where a process is given tenants' keys (`CODEC_ENV.TENANT_KEYS`, named here as keys.ts imports this module). */
const CODEC_ENV_TENANT_KEYS = 'BATON_TENANT_KEYS';

/** Each tenant's key ring: its first key encrypts the tenant's payloads. */
export type TenantKeys = Record<string, EncryptionKey[]>;

/** Problems with tenants' key rings beside `shared` (the keys of chains without a tenant): bad tenant ids, bad keys, a key id given twice anywhere. */
export function checkTenantKeys(tenantKeys: TenantKeys, shared: readonly EncryptionKey[] = []): string[] {
  const problems: string[] = [];
  const seen = new Map<string, string>(shared.map((k) => [k.id, 'the shared keys']));
  for (const [tenant, keys] of Object.entries(tenantKeys)) {
    if (!TENANT_ID.test(tenant)) problems.push(`tenant "${tenant}" must be 1-64 letters, digits, ".", "_" or "-"`);
    problems.push(...checkEncryptionKeys(keys).map((p) => `tenant "${tenant}": ${p}`));
    for (const k of keys) {
      const other = seen.get(k.id);
      // Keys are found by id when decrypting: one id, one key, whoever holds it.
      if (other !== undefined && other !== `tenant "${tenant}"`)
        problems.push(
          `key id "${k.id}" of tenant "${tenant}" is also a key id of ${other}; every key needs an id of its own`,
        );
      seen.set(k.id, `tenant "${tenant}"`);
    }
  }
  return problems;
}

/**
 * Encrypts a tenant's payloads with the tenant's key and others with the shared keys (or not at all
 * without them); decrypts whatever any configured key encrypted, and fails naming the key otherwise.
 * @example new TenantKeysCodec({ acme: [{ id: 'acme-2026', key }] }, sharedKeys)
 */
export class TenantKeysCodec implements PayloadCodec {
  readonly #tenants: Map<string, AesGcmPayloadCodec>;
  readonly #shared?: AesGcmPayloadCodec;
  readonly #reader: AesGcmPayloadCodec;

  constructor(tenantKeys: TenantKeys, shared: readonly EncryptionKey[] = []) {
    const problems = checkTenantKeys(tenantKeys, shared);
    if (problems.length > 0) throw new CodecConfigError(problems);
    this.#tenants = new Map(Object.entries(tenantKeys).map(([t, keys]) => [t, new AesGcmPayloadCodec(keys)]));
    if (shared.length > 0) this.#shared = new AesGcmPayloadCodec(shared);
    const all = [...shared, ...Object.values(tenantKeys).flat()];
    if (all.length === 0) throw new CodecConfigError(['no keys: give at least one tenant a key']);
    this.#reader = new AesGcmPayloadCodec(all);
  }

  /** The tenants whose keys are configured. */
  get tenants(): string[] {
    return [...this.#tenants.keys()];
  }

  async encode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    const codec = this.writerOf(context);
    return codec ? payloads.map((p) => codec.encrypt(p)) : payloads;
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => (isEncrypted(p) ? this.decrypt(p) : p));
  }

  private decrypt(p: Payload): Payload {
    try {
      return this.#reader.decrypt(p);
    } catch (err) {
      if (!(err instanceof PayloadDecryptionError) || err.configured.includes(err.keyId)) throw err;
      // Most likely another tenant's key, which this process was not given.
      throw new PayloadDecryptionError(
        `a payload is encrypted with key "${err.keyId}", which is not configured here (configured: ${err.configured.join(', ')}); a tenant's key goes in ${CODEC_ENV_TENANT_KEYS} as <tenant>/${err.keyId}:<key> (or the codec option tenantKeys), a key of chains without a tenant in BATON_ENCRYPTION_KEYS`,
        { keyId: err.keyId, configured: err.configured },
      );
    }
  }

  /** The codec that encrypts the payloads of `context`'s workflow: its tenant's, or the shared one. */
  private writerOf(context: SerializationContext | undefined): AesGcmPayloadCodec | undefined {
    const tenant = tenantOfWorkflowId(context?.workflowId);
    return (tenant !== undefined ? this.#tenants.get(tenant) : undefined) ?? this.#shared;
  }
}
