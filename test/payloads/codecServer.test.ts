import { spawn, execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineAgent, scripted, Team } from '../../src';
import { findTemporalBinary } from '../../src/devserver/binary';
import { batonPayloadCodecs } from '../../src/payloads/codec';
import { startCodecServer } from '../../src/payloads/codecServer';
import { useTemporalServer } from '../helpers/temporal';
import { encryptionKey, keysEnv, withCodec } from './helpers';

const server = useTemporalServer();
const root = path.resolve(__dirname, '../..');
const UI = 'http://localhost:8233';
const TOKEN = 'codec-token-3e91';
const PROMPT = 'PROMPT-ui-18f0 my card is 4417';
const keys = [encryptionKey('k1')];

let codec: Awaited<ReturnType<typeof startCodecServer>>;
let workflowId: string;
/** The encrypted input payload of the chain, as the UI gets it from the server: Temporal's JSON. */
let encryptedInput: { metadata: Record<string, string>; data: string };

beforeAll(async () => {
  codec = await startCodecServer({ codecs: batonPayloadCodecs({ encryptionKeys: keys }), tokens: [TOKEN], port: 0 });
  const team = new Team([defineAgent({ id: 'solo', instructions: 'Answer.', model: scripted([{ text: 'done' }]) })]);
  workflowId = await withCodec(server.env, team, { encryptionKeys: keys }, async (baton) => {
    const run = await baton.start('solo', PROMPT);
    await run.result();
    return run.workflowId;
  });
  const history = await server.env.client.workflow.getHandle(workflowId).fetchHistory();
  const p = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!;
  encryptedInput = {
    metadata: Object.fromEntries(Object.entries(p.metadata!).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
    data: Buffer.from(p.data!).toString('base64'),
  };
});
afterAll(async () => {
  await codec?.close();
});

const b64 = (s: string) => Buffer.from(s).toString('base64');
const unb64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');

/** What the Temporal UI sends to its codec endpoint's decode. */
function uiDecode(headers: Record<string, string> = {}, url = `${codec.url}/decode`) {
  return fetch(url, {
    method: 'POST',
    headers: {
      origin: UI,
      'content-type': 'application/json',
      'x-namespace': 'default',
      authorization: `Bearer ${TOKEN}`,
      ...headers,
    },
    body: JSON.stringify({ payloads: [encryptedInput] }),
  });
}

describe('the codec server', () => {
  it("answers the UI's preflight and decode with CORS for its origin", async () => {
    const preflight = await fetch(`${codec.url}/decode`, {
      method: 'OPTIONS',
      headers: {
        origin: UI,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type,x-namespace',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(UI);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/authorization.*content-type.*x-namespace/);
    expect(preflight.headers.get('access-control-allow-credentials')).toBe('true');

    const res = await uiDecode();
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(UI);
    const { payloads } = (await res.json()) as { payloads: { metadata: Record<string, string>; data: string }[] };
    expect(unb64(payloads[0]!.metadata.encoding!)).toBe('json/plain');
    expect(JSON.parse(unb64(payloads[0]!.data))).toMatchObject({ agent: 'solo', input: PROMPT });
    // Any prefix works: only the last part of the path names the operation.
    expect((await uiDecode({}, `${codec.url}/namespaces/default/decode`)).status).toBe(200);
  });

  it('refuses without the token, with a wrong one, and from an origin it does not know', async () => {
    expect((await uiDecode({ authorization: '' })).status).toBe(401);
    expect((await uiDecode({ authorization: 'Bearer wrong' })).status).toBe(401);
    const foreign = await uiDecode({ origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('encodes what it decodes back, and says what is wrong with a bad body', async () => {
    const plain = { metadata: { encoding: b64('json/plain') }, data: b64(JSON.stringify('a signal argument')) };
    const encode = await fetch(`${codec.url}/encode`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ payloads: [plain] }),
    });
    const encoded = ((await encode.json()) as { payloads: { metadata: Record<string, string>; data: string }[] })
      .payloads;
    expect(unb64(encoded[0]!.metadata.encoding!)).toBe('binary/encrypted');
    expect(unb64(encoded[0]!.metadata['encryption-key-id']!)).toBe('k1');
    const decode = await fetch(`${codec.url}/decode`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ payloads: encoded }),
    });
    expect(((await decode.json()) as { payloads: unknown[] }).payloads).toEqual([plain]);

    const bad = await fetch(`${codec.url}/decode`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
      body: '{"payload": []}',
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: 'expected {"payloads": [...]}' });
  });

  it('signs a browser in with the token and then decodes for its cookie', async () => {
    const wrong = await fetch(`${codec.url}/login`, { method: 'POST', body: new URLSearchParams({ token: 'wrong' }) });
    expect(wrong.status).toBe(401);
    const login = await fetch(`${codec.url}/login`, {
      method: 'POST',
      body: new URLSearchParams({ token: TOKEN }),
      headers: { origin: codec.url },
    });
    expect(login.status).toBe(200);
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    expect(login.headers.get('set-cookie')).toMatch(/HttpOnly/);
    expect((await uiDecode({ authorization: '', cookie })).status).toBe(200);
    expect((await uiDecode({ authorization: '', cookie: 'baton_codec_session=forged' })).status).toBe(401);
  });

  it('needs a token to start', async () => {
    await expect(startCodecServer({ codecs: batonPayloadCodecs({}), port: 0 })).rejects.toThrow(/needs an auth token/);
  });
});

describe('baton codec-server', () => {
  it('serves the keys of BATON_ENCRYPTION_KEYS to `temporal --codec-endpoint`, and stops on SIGINT', async () => {
    const child = spawn(process.execPath, [path.join(root, 'bin/baton.js'), 'codec-server', '--port', '0'], {
      cwd: root,
      env: { ...process.env, BATON_ENCRYPTION_KEYS: keysEnv(keys), BATON_CODEC_TOKENS: `other,${TOKEN}` },
    });
    let stdout = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (c: Buffer) => {
        stdout += c.toString();
        const m = /(http:\/\/\S+) \(keys k1;/.exec(stdout);
        if (m) resolve(m[1]!);
      });
      child.on('exit', (code) => reject(new Error(`exited ${code}: ${stdout}`)));
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      const temporal = findTemporalBinary('cli')!;
      const show = (auth: string) =>
        promisify(execFile)(temporal, [
          'workflow',
          'show',
          '-w',
          workflowId,
          '--address',
          server.env.address,
          '--codec-endpoint',
          url,
          '--codec-auth',
          auth,
          '--output',
          'json',
          '--command-timeout',
          '3s',
        ]);
      const { stdout: shown } = await show(`Bearer ${TOKEN}`);
      const input = (
        JSON.parse(shown) as {
          events: {
            workflowExecutionStartedEventAttributes?: {
              input: { payloads: { metadata: Record<string, string>; data: string }[] };
            };
          }[];
        }
      ).events[0]!.workflowExecutionStartedEventAttributes!.input.payloads[0]!;
      expect(unb64(input.metadata.encoding!)).toBe('json/plain');
      expect(JSON.parse(unb64(input.data))).toMatchObject({ input: PROMPT });
      // Without the right token the CLI cannot decode.
      const refused = await show('Bearer wrong').then(
        (r) => r.stdout + r.stderr,
        (e: { stdout?: string; stderr?: string }) => `${e.stdout}${e.stderr}`,
      );
      expect(refused).not.toContain(b64(JSON.stringify({ agent: 'solo', input: PROMPT })).slice(0, 40));
      expect(refused).toMatch(/^Error/);
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
  });

  it('refuses to start without a token', async () => {
    const child = spawn(process.execPath, [path.join(root, 'bin/baton.js'), 'codec-server'], {
      cwd: root,
      env: { ...process.env, BATON_CODEC_TOKENS: '' },
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(2);
    expect(stderr).toMatch(/needs a token: set BATON_CODEC_TOKENS/);
  });
});
