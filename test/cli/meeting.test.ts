/**
 * What a person meets at the command line: a server that is not there reported at once, `baton
 * team` with its delegation targets, `reject --help` without `--args`, and `baton dev` giving the
 * UI a codec endpoint when payloads are encoded.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectBaton, TemporalConnectionError } from '../../src';
import { useCliSession } from '../helpers/cliSession';
import { waitFor } from '../helpers/wait';
import { freePort } from '../../src/devserver/ports';
import { cli, startCli } from './command';

/** Commands refused at their arguments, and --help, run in one process (cliSession.ts). */
const session = useCliSession();

describe('a Temporal server that is not there', () => {
  it("is reported by connectBaton and the command with the reason, without waiting out gRPC's 10 s connect timeout", async () => {
    const port = await freePort();
    const started = Date.now();
    const err = await connectBaton({ configFile: writeProfile(`127.0.0.1:${port}`), profile: 'nowhere' }).catch(
      (e: unknown) => e,
    );
    // Not a speed target: 10 s is what gRPC's channel waits before it gives up on a refused address.
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(err).toBeInstanceOf(TemporalConnectionError);
    expect(err).toMatchObject({ address: `127.0.0.1:${port}`, reason: 'Connection refused' });
    const unknownHost = await connectBaton({
      configFile: writeProfile('no-such-host.invalid:7233'),
      profile: 'nowhere',
    }).catch((e: unknown) => e);
    expect(unknownHost).toMatchObject({ address: 'no-such-host.invalid:7233', reason: 'host not found' });

    const out = await cli(['pending'], { TEMPORAL_ADDRESS: `127.0.0.1:${port}` });
    expect(out.code).toBe(1);
    expect(out.stderr).toContain(`cannot reach a Temporal server at 127.0.0.1:${port} (Connection refused)`);
  }, 60_000);
});

function writeProfile(address: string): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'baton-nowhere-')), 'temporal.toml');
  fs.writeFileSync(file, `[profile.nowhere]\naddress = "${address}"\n`);
  return file;
}

describe('help and listings', () => {
  it('baton team lists what each agent may delegate to beside its handoffs', async () => {
    const out = await cli(['team', 'examples/research/team.ts'], { TEMPORAL_ADDRESS: '127.0.0.1:1' });
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(
      '  researcher: scripted/scripted-research; tools (none); handoffs writer; delegates physics, engineering\n',
    );
    expect(out.stdout).toContain(
      '  writer: scripted/scripted-research; tools (none); handoffs researcher, physics, engineering; delegates (none)\n',
    );
  }, 120_000);

  it('baton team lists the agents capability routing delegates to', async () => {
    const out = await cli(['team', 'test/cli/fixtures/routing-team.ts'], { TEMPORAL_ADDRESS: '127.0.0.1:1' });
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(
      '  desk: scripted/scripted; tools (none); handoffs refunds, shipping; delegates by capability refunds, shipping\n',
    );
    expect(out.stdout).toContain(
      '  refunds: scripted/scripted; tools (none); handoffs desk, shipping; delegates (none)\n',
    );
  }, 120_000);

  it('offers --args to approve only: a rejection takes no arguments', async () => {
    const [approve, reject] = await Promise.all([
      session.usage(['approve', '--help']),
      session.usage(['reject', '--help']),
    ]);
    expect(approve.stdout).toContain('--args');
    expect(reject.code).toBe(0);
    expect(reject.stdout).toContain('--reason <text>');
    expect(reject.stdout).not.toContain('--args');
  }, 60_000);
});

describe('baton dev', () => {
  it('serves a codec endpoint with the keys it is given and starts the UI with it', async () => {
    const [port, uiPort, codecPort] = [await freePort(), await freePort(), await freePort()];
    const db = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'baton-dev-')), 'dev.db');
    const key = `k1:${Buffer.alloc(32, 7).toString('base64')}`;
    const dev = startCli(
      ['dev', '--port', String(port), '--ui-port', String(uiPort), '--db', db, '--codec-port', String(codecPort)],
      { BATON_ENCRYPTION_KEYS: key, BATON_CODEC_TOKENS: 'dev-token' },
    );
    try {
      const endpoint = `http://127.0.0.1:${codecPort}`;
      await dev.until(
        'stdout',
        new RegExp(`UI http://127\\.0\\.0\\.1:${uiPort} with codec endpoint ${endpoint}`),
        120_000,
      );
      const settings = await waitFor(
        () =>
          fetch(`http://127.0.0.1:${uiPort}/api/v1/settings`).then(
            (r) => (r.ok ? (r.json() as Promise<{ Codec?: { Endpoint?: string } }>) : undefined),
            () => undefined,
          ),
        (s) => s !== undefined,
        60_000,
      );
      expect(settings?.Codec?.Endpoint).toBe(endpoint);
      const decoded = await fetch(`${endpoint}/decode`, {
        method: 'POST',
        headers: { authorization: 'Bearer dev-token', 'content-type': 'application/json' },
        body: JSON.stringify({ payloads: [] }),
      });
      expect(decoded.status).toBe(200);
      expect((await fetch(`${endpoint}/decode`, { method: 'POST', body: '{"payloads":[]}' })).status).toBe(401);
    } finally {
      dev.child.kill('SIGTERM');
      await dev.exited;
    }
  }, 180_000);

  it('gives the UI no codec endpoint when payloads are not encoded, and refuses an endpoint that is not a URL', async () => {
    const bad = await session.usage(['dev', '--codec-endpoint', 'localhost']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      '--codec-endpoint must be an http(s) URL, e.g. http://127.0.0.1:8081, not "localhost"',
    );
    const [port, uiPort] = [await freePort(), await freePort()];
    const db = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'baton-dev-')), 'dev.db');
    const dev = startCli(['dev', '--port', String(port), '--ui-port', String(uiPort), '--db', db], {
      BATON_ENCRYPTION_KEYS: '',
      BATON_ENCRYPTION_KEY_FILE: '',
      BATON_COMPRESS: '',
      BATON_CLAIM_CHECK_DIR: '',
    });
    try {
      const line = await dev.until('stdout', /Temporal dev server on .*\n/, 120_000);
      expect(line[0]).not.toContain('codec endpoint');
    } finally {
      dev.child.kill('SIGTERM');
      await dev.exited;
    }
  }, 180_000);
});
