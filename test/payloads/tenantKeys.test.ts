import { describe, expect, it } from 'vitest';
import { defaultPayloadConverter } from '@temporalio/common';
import { PayloadDecryptionError, type CodecConfigError } from '../../src/payloads/encryption';
import { codecOptionsFromEnv } from '../../src/payloads/keys';
import { TenantKeysCodec } from '../../src/payloads/tenantKeys';
import { encryptionKey, keysEnv } from './helpers';

const keyIdOf = (p: { metadata?: Record<string, Uint8Array> | null }) =>
  Buffer.from(p.metadata?.['encryption-key-id'] ?? []).toString();
const of = (workflowId: string) => ({ type: 'workflow' as const, namespace: 'default', workflowId });

describe("each tenant's payloads under its own key", () => {
  it("encrypts by the tenant the workflow id names (a specialist's id too), others with the shared key, and reads back what it wrote", async () => {
    const codec = new TenantKeysCodec({ acme: [encryptionKey('acme-1')], globex: [encryptionKey('globex-1')] }, [
      encryptionKey('shared-1'),
    ]);
    const payload = defaultPayloadConverter.toPayload({ text: 'secret' });
    const cases: [string, string][] = [
      ['acme/baton-triage-1', 'acme-1'],
      ['acme/baton-triage-1/refunds-1.1', 'acme-1'],
      ['globex/chat-7', 'globex-1'],
      ['initech/chat-7', 'shared-1'],
      ['baton-triage-2', 'shared-1'],
    ];
    for (const [workflowId, keyId] of cases) {
      const [sealed] = await codec.encode([payload], of(workflowId));
      expect([workflowId, keyIdOf(sealed!)]).toEqual([workflowId, keyId]);
      expect(defaultPayloadConverter.fromPayload((await codec.decode([sealed!]))[0]!)).toEqual({ text: 'secret' });
    }
    // An activity's payloads are its workflow's tenant's.
    const [activity] = await codec.encode([payload], {
      type: 'activity',
      namespace: 'default',
      workflowId: 'globex/x',
      isLocal: false,
    });
    expect(keyIdOf(activity!)).toBe('globex-1');
  });

  it("fails another tenant's payload naming its key and where a tenant's key goes", async () => {
    const writer = new TenantKeysCodec({ globex: [encryptionKey('globex-1')] });
    const reader = new TenantKeysCodec({ acme: [encryptionKey('acme-1')] });
    const [sealed] = await writer.encode([defaultPayloadConverter.toPayload('x')], of('globex/c'));
    const err = await reader.decode([sealed!]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PayloadDecryptionError);
    expect((err as Error).message).toBe(
      'a payload is encrypted with key "globex-1", which is not configured here (configured: acme-1); a tenant\'s key goes in BATON_TENANT_KEYS as <tenant>/globex-1:<key> (or the codec option tenantKeys), a key of chains without a tenant in BATON_ENCRYPTION_KEYS',
    );
  });

  it('reads BATON_TENANT_KEYS and refuses bad tenants, bad keys and a key id given twice, naming each', () => {
    const acme = encryptionKey('acme-1');
    const options = codecOptionsFromEnv({ BATON_TENANT_KEYS: `acme/${keysEnv([acme])}` });
    expect(options.tenantKeys?.acme?.map((k) => k.id)).toEqual(['acme-1']);
    const bad = (env: Record<string, string>) => {
      try {
        codecOptionsFromEnv(env);
      } catch (err) {
        return (err as CodecConfigError).problems;
      }
      return [];
    };
    expect(bad({ BATON_TENANT_KEYS: keysEnv([acme]) })).toEqual([
      'entry 1 of BATON_TENANT_KEYS is not <tenant>/<id>:<key>',
    ]);
    expect(bad({ BATON_TENANT_KEYS: `a b/${keysEnv([acme])}` })).toEqual([
      'tenant "a b" must be 1-64 letters, digits, ".", "_" or "-"',
    ]);
    expect(bad({ BATON_TENANT_KEYS: `acme/${keysEnv([acme])},globex/${keysEnv([acme])}` })).toEqual([
      'key id "acme-1" of tenant "globex" is also a key id of tenant "acme"; every key needs an id of its own',
    ]);
    expect(bad({ BATON_ENCRYPTION_KEYS: keysEnv([acme]), BATON_TENANT_KEYS: `acme/${keysEnv([acme])}` })).toEqual([
      'key id "acme-1" of tenant "acme" is also a key id of the shared keys; every key needs an id of its own',
    ]);
    expect(bad({ BATON_TENANT_KEYS: 'acme/k1:short' })).toEqual(['key "k1" has 3 bytes; AES-256 needs 32']);
  });
});
