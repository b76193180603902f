import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Baton, defineAgent, scripted, Team } from '../../src';
import { batonDataConverter } from '../../src/payloads/codec';
import { PayloadDecryptionError } from '../../src/payloads/encryption';
import { checkHistories, historiesFromServer } from '../../src/worker/determinism';
import { useTemporalServer } from '../helpers/temporal';
import { codecClient, encryptionKey, found, keysEnv, rawChainBytes, withCodec } from './helpers';

const server = useTemporalServer();
const root = path.resolve(__dirname, '../..');
const PROMPT = 'PROMPT-rot-5c1d refund order 42 to card 4417';
const ANSWER = 'ANSWER-rot-77aa refunded';

function team() {
  return new Team([
    defineAgent({
      id: 'triage',
      instructions: 'Route.',
      model: scripted([{ handoff: { to: 'refunds', message: `${PROMPT} (from triage)` } }]),
    }),
    defineAgent({
      id: 'refunds',
      description: 'Refunds',
      instructions: 'Refund.',
      model: scripted([{ text: ANSWER }]),
    }),
  ]);
}

/** The real `baton` command, to its end. */
function cli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [path.join(root, 'bin/baton.js'), ...args], {
    cwd: root,
    env: { ...process.env, ...env },
  });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (c: Buffer) => (out.stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out.stderr += c.toString()));
  child.stdin.end();
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, ...out })));
}

describe('key rotation', () => {
  it('audits and replay-checks a chain encrypted with a key rotated out of encryption, while it is still configured', async () => {
    const old = encryptionKey('2025-01');
    const fresh = encryptionKey('2025-06');
    const before = await withCodec(server.env, team(), { encryptionKeys: [old] }, async (baton, client) => {
      const run = await baton.start('triage', PROMPT);
      await run.result();
      return { workflowId: run.workflowId, raw: await rawChainBytes(client, run.workflowId) };
    });
    expect(found(before.raw, [PROMPT, ANSWER])).toEqual([]);

    // After the rotation: the new key encrypts, the old one only decrypts.
    const rotated = { encryptionKeys: [fresh, old] };
    const after = await withCodec(server.env, team(), rotated, async (baton) => {
      const run = await baton.start('triage', PROMPT);
      return { workflowId: run.workflowId, result: await run.result(), oldAudit: await baton.audit(before.workflowId) };
    });
    expect(after.result.output).toBe(ANSWER);
    expect(after.oldAudit.input?.input).toBe(PROMPT);
    expect(after.oldAudit.result?.output).toBe(ANSWER);
    expect(after.oldAudit.handoffs.map((h) => h.message)).toEqual([`${PROMPT} (from triage)`]);

    // The new chain needs only the new key; the old one cannot be read once its key is gone.
    const onlyNew = new Baton({ client: codecClient(server.env, { encryptionKeys: [fresh] }) });
    expect((await onlyNew.audit(after.workflowId)).result?.output).toBe(ANSWER);
    const refused = await onlyNew.audit(before.workflowId).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PayloadDecryptionError);
    expect(refused).toMatchObject({ keyId: '2025-01', configured: ['2025-06'] });

    const histories = await historiesFromServer(server.env.client, [before.workflowId]);
    const [check] = await checkHistories(histories, { dataConverter: batonDataConverter(rotated) });
    expect(check).toMatchObject({ ok: true });
    const [unreadable] = await checkHistories(histories, {
      dataConverter: batonDataConverter({ encryptionKeys: [fresh] }),
    });
    expect(unreadable?.ok).toBe(false);
  });

  it('configures the CLI from BATON_ENCRYPTION_KEYS: audit and replay --check read the old chain', async () => {
    const old = encryptionKey('old');
    const fresh = encryptionKey('new');
    const workflowId = await withCodec(server.env, team(), { encryptionKeys: [old] }, async (baton) => {
      const run = await baton.start('triage', PROMPT);
      await run.result();
      return run.workflowId;
    });
    const env = { TEMPORAL_ADDRESS: server.env.address, BATON_ENCRYPTION_KEYS: keysEnv([fresh, old]) };
    const [audit, check, withoutOld] = await Promise.all([
      cli(['audit', workflowId, '--json'], env),
      cli(['replay', '--check', workflowId], env),
      cli(['audit', workflowId], { ...env, BATON_ENCRYPTION_KEYS: keysEnv([fresh]) }),
    ]);
    expect(audit.code).toBe(0);
    expect((JSON.parse(audit.stdout) as { input: { input: string } }).input.input).toBe(PROMPT);
    expect(check).toMatchObject({ code: 0, stdout: expect.stringContaining(`ok    ${workflowId}`) });
    expect(withoutOld.code).toBe(1);
    expect(withoutOld.stderr).toMatch(
      /PayloadDecryptionError: .*key "old", which is not configured here \(configured: new\)/,
    );
    // Keys never show in what the CLI prints.
    for (const k of [old, fresh])
      expect(audit.stdout + audit.stderr + withoutOld.stderr).not.toContain(Buffer.from(k.key).toString('base64'));
  });
});
