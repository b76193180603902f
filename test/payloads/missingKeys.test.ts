import { spawn } from 'node:child_process';
import path from 'node:path';
import { Runtime } from '@temporalio/worker';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Baton, defineAgent, scripted, Team } from '../../src';
import { PayloadDecryptionError } from '../../src/payloads/encryption';
import type { PayloadCodecOptions } from '../../src/payloads/keys';
import { createWorker } from '../../src/worker';
import { taskQueue, useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { codecClient, encryptionKey, keysEnv, withCodec } from './helpers';

const server = useTemporalServer();
const root = path.resolve(__dirname, '../..');
const SETTING = /BATON_ENCRYPTION_KEYS or BATON_ENCRYPTION_KEY_FILE/;

function team() {
  return new Team([defineAgent({ id: 'clerk', instructions: 'Answer.', model: scripted([{ text: 'Filed.' }]) })]);
}

/** The real `baton` command, to its end. */
function cli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { BATON_ENCRYPTION_KEYS: _keys, BATON_ENCRYPTION_KEY_FILE: _file, ...rest } = process.env;
  const child = spawn(process.execPath, [path.join(root, 'bin/baton.js'), ...args], {
    cwd: root,
    env: { ...rest, TEMPORAL_ADDRESS: server.env.address, ...env },
  });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (c: Buffer) => (out.stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out.stderr += c.toString()));
  child.stdin.end();
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, ...out })));
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a worker without the key a chain was encrypted with', () => {
  // The CLI and the worker that finishes the chain are shown once: they read what history says either way.
  const cases: [string, PayloadCodecOptions, RegExp, boolean][] = [
    [
      'with another key: logs the key and where to configure it; history, the audit and the CLI say so too; a worker with the key then finishes the chain',
      { encryptionKeys: [encryptionKey('k2')] },
      /a payload is encrypted with key "k1", which is not configured here \(configured: k2\); add key "k1" after the current key in BATON_ENCRYPTION_KEYS or BATON_ENCRYPTION_KEY_FILE/,
      true,
    ],
    [
      'with no key: logs the key and where to configure it; history and the audit say so too',
      {},
      /a payload is encrypted with key "k1", and no encryption keys are configured here; set BATON_ENCRYPTION_KEYS or BATON_ENCRYPTION_KEY_FILE with key "k1"/,
      false,
    ],
  ];

  it.each(cases)('%s', async (_title, workerCodec, message, whole) => {
    const k1 = encryptionKey('k1');
    const queue = taskQueue();
    const baton = new Baton({ client: codecClient(server.env, { encryptionKeys: [k1] }), taskQueue: queue });
    const run = await baton.start('clerk', 'File case 42.');
    const log = vi.spyOn(Runtime.instance().logger, 'log');

    const wrong = await createWorker({
      team: team(),
      connection: server.env.nativeConnection,
      taskQueue: queue,
      codec: workerCodec,
    });
    const failed = await wrong.runUntil(
      waitFor(
        async () =>
          ((await server.env.client.workflow.getHandle(run.workflowId).fetchHistory()).events ?? []).find(
            (e) => e.workflowTaskFailedEventAttributes,
          ),
        (e) => e !== undefined,
      ),
    );
    // History keeps the message in plain text (it names keys, never their bytes), so any client reads it.
    expect(failed?.workflowTaskFailedEventAttributes?.failure?.message).toMatch(message);
    const lines = log.mock.calls.filter(
      ([level, text]) => level === 'ERROR' && text.startsWith('baton worker cannot decrypt'),
    );
    expect(lines.map(([, text]) => text)).toEqual([
      expect.stringMatching(new RegExp(`^baton worker cannot decrypt chain ${run.workflowId}: ${message.source}`)),
    ]);
    expect(lines[0]?.[2]).toMatchObject({ workflowId: run.workflowId, keyId: 'k1' });

    const audit = await baton.audit(run.workflowId);
    expect(audit.stuck?.error).toMatch(message);
    if (!whole) return;
    const printed = await cli(['audit', run.workflowId], { BATON_ENCRYPTION_KEYS: keysEnv([k1]) });
    expect(printed.stdout).toMatch(/stuck since .*: its workflow task keeps failing: .*key "k1"/);
    expect(printed.stdout).toMatch(SETTING);

    // Nothing is lost: the chain waits, and a worker with the key runs it to its end.
    const right = await createWorker({
      team: team(),
      connection: server.env.nativeConnection,
      taskQueue: queue,
      codec: { encryptionKeys: [k1] },
    });
    expect(await right.runUntil(run.result())).toMatchObject({ output: 'Filed.' });
  });
});

describe('a client without the key', () => {
  it('says which key it lacks and where to configure it: run.result(), the audit, any Temporal client, and the CLI', async () => {
    const k1 = encryptionKey('k1');
    const workflowId = await withCodec(server.env, team(), { encryptionKeys: [k1] }, async (baton) => {
      const run = await baton.start('clerk', 'File case 42.');
      await run.result();
      return run.workflowId;
    });
    const missing =
      /a payload is encrypted with key "k1", and no encryption keys are configured here; set BATON_ENCRYPTION_KEYS or BATON_ENCRYPTION_KEY_FILE with key "k1"/;
    const other =
      /a payload is encrypted with key "k1", which is not configured here \(configured: k9\); add key "k1" after the current key in BATON_ENCRYPTION_KEYS or BATON_ENCRYPTION_KEY_FILE/;

    const noKeys = new Baton({ client: codecClient(server.env, {}) });
    const result = await noKeys
      .getRun(workflowId)
      .result()
      .catch((e: unknown) => e);
    expect(result).toBeInstanceOf(PayloadDecryptionError);
    expect((result as Error).message).toMatch(missing);
    await expect(noKeys.audit(workflowId)).rejects.toThrow(missing);
    // A plain Temporal client, without baton's codecs, gets the same from baton's readers of history.
    await expect(new Baton({ client: server.env.client }).audit(workflowId)).rejects.toThrow(missing);
    const otherKey = new Baton({ client: codecClient(server.env, { encryptionKeys: [encryptionKey('k9')] }) });
    await expect(otherKey.getRun(workflowId).result()).rejects.toThrow(other);

    const [withoutKeys, withOtherKey] = await Promise.all([
      cli(['audit', workflowId], {}),
      cli(['audit', workflowId], { BATON_ENCRYPTION_KEYS: keysEnv([encryptionKey('k9')]) }),
    ]);
    expect(withoutKeys.code).toBe(1);
    expect(withoutKeys.stderr).toMatch(missing);
    expect(withOtherKey.code).toBe(1);
    expect(withOtherKey.stderr).toMatch(other);
  });
});
