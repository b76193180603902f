import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { batonPayloadCodecs } from '../../src/payloads/codec';
import {
  AesGcmPayloadCodec,
  CIPHER_METADATA,
  CodecConfigError,
  ENCRYPTED_ENCODING,
  KEY_ID_METADATA,
  newEncryptionKey,
  PayloadDecryptionError,
} from '../../src/payloads/encryption';
import { decodeHistory } from '../../src/payloads/history';
import { codecOptionsFromEnv, parseEncryptionKeys } from '../../src/payloads/keys';

const key = (id: string) => ({ id, key: randomBytes(32) });
const text = (bytes: Uint8Array | null | undefined) => new TextDecoder().decode(bytes ?? new Uint8Array());
const secret = 'the customer card ends in 4417';

async function roundTrip(encoder: AesGcmPayloadCodec, decoder: AesGcmPayloadCodec, value: unknown) {
  const [encrypted] = await encoder.encode([defaultPayloadConverter.toPayload(value)]);
  const [decrypted] = await decoder.decode([encrypted!]);
  return { encrypted: encrypted!, value: defaultPayloadConverter.fromPayload(decrypted!) };
}

describe('AES-256-GCM payload codec', () => {
  it('encrypts the whole payload and names the key and cipher in the metadata', async () => {
    const codec = new AesGcmPayloadCodec([key('k1')]);
    const { encrypted, value } = await roundTrip(codec, codec, { prompt: secret });
    expect(value).toEqual({ prompt: secret });
    expect(text(encrypted.metadata?.encoding)).toBe(ENCRYPTED_ENCODING);
    expect(text(encrypted.metadata?.[KEY_ID_METADATA])).toBe('k1');
    expect(text(encrypted.metadata?.[CIPHER_METADATA])).toBe('AES-256-GCM');
    expect(Buffer.from(encrypted.data!).includes(Buffer.from('4417'))).toBe(false);
    // The original encoding (json/plain) is inside the ciphertext too.
    expect(Buffer.from(encrypted.data!).includes(Buffer.from('json/plain'))).toBe(false);
  });

  it('uses a fresh IV per payload', async () => {
    const codec = new AesGcmPayloadCodec([key('k1')]);
    const [a, b] = await codec.encode([
      defaultPayloadConverter.toPayload(secret),
      defaultPayloadConverter.toPayload(secret),
    ]);
    expect(Buffer.from(a!.data!).equals(Buffer.from(b!.data!))).toBe(false);
  });

  it('after rotation encrypts with the new key and still decrypts the old one', async () => {
    const old = key('2025-01');
    const fresh = key('2025-06');
    const before = new AesGcmPayloadCodec([old]);
    const after = new AesGcmPayloadCodec([fresh, old]);
    const { encrypted: oldPayload } = await roundTrip(before, before, secret);
    expect((await roundTrip(after, after, 'new')).encrypted.metadata?.[KEY_ID_METADATA]).toEqual(
      new TextEncoder().encode('2025-06'),
    );
    const [decoded] = await after.decode([oldPayload]);
    expect(defaultPayloadConverter.fromPayload(decoded!)).toBe(secret);
  });

  it('refuses a payload whose key is not configured, naming the key id', async () => {
    const [payload] = await new AesGcmPayloadCodec([key('gone')]).encode([defaultPayloadConverter.toPayload(secret)]);
    const err = await new AesGcmPayloadCodec([key('current')]).decode([payload!]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PayloadDecryptionError);
    expect(err).toMatchObject({ keyId: 'gone', configured: ['current'] });
  });

  it('refuses a payload when the key of its id is a different key', async () => {
    const [payload] = await new AesGcmPayloadCodec([key('k1')]).encode([defaultPayloadConverter.toPayload(secret)]);
    await expect(new AesGcmPayloadCodec([key('k1')]).decode([payload!])).rejects.toBeInstanceOf(PayloadDecryptionError);
  });

  it('refuses altered bytes and a payload relabelled with another key id', async () => {
    const k1 = key('k1');
    const k2 = key('k2');
    const codec = new AesGcmPayloadCodec([k1, k2]);
    const [payload] = await codec.encode([defaultPayloadConverter.toPayload(secret)]);
    const flipped: Payload = { ...payload!, data: Buffer.from(payload!.data!).map((b, i) => (i === 20 ? b ^ 1 : b)) };
    const relabelled: Payload = {
      ...payload!,
      metadata: { ...payload!.metadata, [KEY_ID_METADATA]: new TextEncoder().encode('k2') },
    };
    for (const bad of [flipped, relabelled])
      await expect(codec.decode([bad])).rejects.toBeInstanceOf(PayloadDecryptionError);
  });

  it('passes payloads it did not encrypt through', async () => {
    const plain = defaultPayloadConverter.toPayload('plain');
    expect(await new AesGcmPayloadCodec([key('k1')]).decode([plain])).toEqual([plain]);
  });

  it('checks the key ring when built', () => {
    const problems = (keys: { id: string; key: Uint8Array }[]) => {
      try {
        new AesGcmPayloadCodec(keys);
        return [];
      } catch (e) {
        expect(e).toBeInstanceOf(CodecConfigError);
        return (e as CodecConfigError).problems;
      }
    };
    expect(problems([])).toEqual([expect.stringMatching(/no keys/)]);
    expect(problems([{ id: 'short', key: randomBytes(16) }])).toEqual([
      expect.stringMatching(/16 bytes; AES-256 needs 32/),
    ]);
    expect(problems([key('a'), key('a')])).toEqual([expect.stringMatching(/appears twice/)]);
    expect(problems([key('has space')])).toEqual([expect.stringMatching(/must be 1-64 letters/)]);
  });
});

describe('compression then encryption', () => {
  it('gzips a large payload before encrypting it, and undoes both', async () => {
    const long = `${secret}. `.repeat(200);
    const codecs = batonPayloadCodecs({ compress: true, encryptionKeys: [key('k1')] });
    let payloads = [defaultPayloadConverter.toPayload(long)];
    for (const c of codecs) payloads = await c.encode(payloads);
    // Encrypted gzip is far smaller than the text: compression ran first.
    expect(payloads[0]!.data!.length).toBeLessThan(long.length / 5);
    for (const c of [...codecs].reverse()) payloads = await c.decode(payloads);
    expect(defaultPayloadConverter.fromPayload(payloads[0]!)).toBe(long);
  });
});

describe('keys from the environment', () => {
  const b64 = newEncryptionKey();
  const hex = randomBytes(32).toString('hex');

  it('reads BATON_ENCRYPTION_KEYS in order, base64 or hex', () => {
    const options = codecOptionsFromEnv({ BATON_ENCRYPTION_KEYS: `new:${b64}, old:${hex}`, BATON_COMPRESS: 'true' });
    expect(options.compress).toBe(true);
    expect(options.encryptionKeys?.map((k) => [k.id, Buffer.from(k.key).toString('base64')])).toEqual([
      ['new', b64],
      ['old', Buffer.from(hex, 'hex').toString('base64')],
    ]);
  });

  it('reads a key file with comments and blank lines', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'baton-keys-')), 'keys');
    fs.writeFileSync(file, `# rotated 2025-06\nnew:${b64}\n\nold:${hex} # still decrypts\n`);
    expect(codecOptionsFromEnv({ BATON_ENCRYPTION_KEY_FILE: file }).encryptionKeys?.map((k) => k.id)).toEqual([
      'new',
      'old',
    ]);
  });

  it('sets nothing when the environment sets nothing', () => {
    expect(codecOptionsFromEnv({})).toEqual({});
  });

  it('refuses bad entries without echoing key material', () => {
    const bad = (env: NodeJS.ProcessEnv) => {
      try {
        codecOptionsFromEnv(env);
      } catch (e) {
        expect(e).toBeInstanceOf(CodecConfigError);
        return (e as Error).message;
      }
      throw new Error('accepted');
    };
    expect(bad({ BATON_ENCRYPTION_KEYS: 'no-colon-here' })).toMatch(/entry 1 .* is not <id>:<key>/);
    expect(bad({ BATON_ENCRYPTION_KEYS: 'k1:not*base64!' })).toMatch(/"k1" .* neither base64 nor hex/);
    const short = randomBytes(31).toString('base64');
    const message = bad({ BATON_ENCRYPTION_KEYS: `k1:${short}` });
    expect(message).toMatch(/31 bytes/);
    expect(message).not.toContain(short);
    expect(bad({ BATON_ENCRYPTION_KEYS: `k1:${b64}`, BATON_ENCRYPTION_KEY_FILE: '/x' })).toMatch(/not both/);
    expect(bad({ BATON_ENCRYPTION_KEY_FILE: '/nonexistent/keys' })).toMatch(/cannot read the key file .*ENOENT/);
    expect(bad({ BATON_COMPRESS: 'maybe' })).toMatch(/BATON_COMPRESS must be/);
    expect(() => parseEncryptionKeys('  \n# only a comment\n')).toThrow(/has no keys/);
  });
});

describe('decodeHistory', () => {
  it('decodes payloads anywhere in the events and restores encoded failure messages', async () => {
    const codecs = batonPayloadCodecs({ encryptionKeys: [key('k1')] });
    const enc = async (v: unknown) => (await codecs[1]!.encode([defaultPayloadConverter.toPayload(v)]))[0]!;
    const history = {
      events: [
        {
          workflowExecutionStartedEventAttributes: {
            input: { payloads: [await enc({ input: secret })] },
            memo: { fields: { m: await enc('memo') } },
          },
        },
        {
          activityTaskFailedEventAttributes: {
            failure: {
              message: 'Encoded failure',
              stackTrace: '',
              encodedAttributes: await enc({ message: `tool failed: ${secret}`, stack_trace: 'at tool' }),
            },
          },
        },
      ],
    };
    await decodeHistory(history, codecs);
    const [started, failed] = history.events;
    expect(
      defaultPayloadConverter.fromPayload(started!.workflowExecutionStartedEventAttributes!.input.payloads[0]!),
    ).toEqual({ input: secret });
    expect(defaultPayloadConverter.fromPayload(started!.workflowExecutionStartedEventAttributes!.memo.fields.m)).toBe(
      'memo',
    );
    expect(failed!.activityTaskFailedEventAttributes!.failure).toMatchObject({
      message: `tool failed: ${secret}`,
      stackTrace: 'at tool',
      encodedAttributes: null,
    });
  });
});
