/**
 * Operators' passkeys on a real server with a real worker, the overrides sent by the `temporal`
 * CLI (`temporal workflow signal --name overrideRun`): in a team that requires operator decisions
 * to be passkey-signed, a loosening is refused unsigned, signed with an Ed25519 operator key, asked
 * for by another origin, or sent again, and applied when the operator's passkey signed it, with its
 * origin and counter on the record.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Team, type Baton, type BatonRun } from '../../src';
import { signOverrides } from '../../src/client/signing';
import { OPERATOR_SIGNATURE_VERSION, overridesDigest } from '../../src/common/signatures/operator';
import type { AuditEvent } from '../../src/audit';
import { findTemporalBinary } from '../../src/devserver/binary';
import { scriptedAgent as agent } from '../helpers/agents';
import { nodePasskey, passkeyAssert, passkeyEntry } from '../helpers/passkeys';
import { teamKeys, testKey } from '../helpers/signing';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { nextApproval } from '../histories/auditScenarios';

const server = useTemporalServer();
const run$ = promisify(execFile);
const AT = { rpId: 'ops.example.com', origin: 'https://ops.example.com' };
const passkey = nodePasskey('ops-passkey', 'P-256');
const ops = testKey('ops-1', 11);

/** `desk` hands off to `vault` (alice decides, signed); operators sign with a passkey, or (refused: the team requires passkeys) an Ed25519 key. */
function team(): Team {
  return new Team(
    [
      agent('desk', [{ handoff: { to: 'vault', message: 'open the vault' } }], { handoffs: ['vault'] }),
      agent('vault', [{ text: 'vault opened' }], { approval: { approvers: ['alice'], requireSignature: true } }),
    ],
    {
      name: 'operator-passkeys',
      approverKeys: teamKeys,
      operatorKeys: [
        passkeyEntry(passkey, ['ops'], AT.rpId, [AT.origin]),
        { kid: ops.kid, approvers: ['ops'], publicKey: ops.publicKey },
      ],
      requireOperatorPasskey: true,
    },
  );
}

/** Send `overrides` with the `temporal` CLI, as another program would; resolves with the `n`-th override record. */
async function signal(baton: Baton, run: BatonRun, overrides: unknown, n: number): Promise<AuditEvent> {
  await run$(findTemporalBinary('cli')!, [
    'workflow',
    'signal',
    '--workflow-id',
    run.workflowId,
    '--name',
    'overrideRun',
    '--input',
    JSON.stringify(overrides),
    '--address',
    server.env.address,
  ]);
  for (let i = 0; i < 200; i++) {
    const events = (await baton.audit(run.workflowId)).events.filter(
      (e) => e.kind === 'overrides_refused' || e.kind === 'overrides_applied',
    );
    if (events.length >= n) return events[n - 1]!;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`fewer than ${n} override records`);
}

describe('operator passkeys', () => {
  it(
    'loosen a chain only with the operator passkey a team requires, once, from the temporal CLI',
    { timeout: 120_000 },
    async () => {
      await withWorker(server.env, team(), async (baton) => {
        const run = await baton.start('desk', 'open it', { maxHandoffs: 3 });
        await nextApproval(run);
        const loosen = { options: { maxHandoffs: 9 } };
        const payload = {
          v: OPERATOR_SIGNATURE_VERSION,
          workflowId: run.workflowId,
          operator: 'ops',
          overrides: overridesDigest(loosen),
          iat: Math.floor(Date.now() / 1000),
        };

        expect(await signal(baton, run, loosen, 1)).toMatchObject({
          kind: 'overrides_refused',
          problems: [
            expect.stringContaining('"maxHandoffs" from 3 to 9 loosens it'),
            expect.stringContaining("operator's signed override"),
          ],
        });
        const ed = await signOverrides(ops.signer, { workflowId: run.workflowId, operator: 'ops', overrides: loosen });
        expect(await signal(baton, run, ed, 2)).toMatchObject({
          kind: 'overrides_refused',
          operator: 'ops',
          problems: [
            expect.stringContaining('the team requires operators to sign with a passkey (requireOperatorPasskey)'),
          ],
        });
        const elsewhere = passkeyAssert(passkey, payload, { ...AT, origin: 'https://evil.example.com' });
        expect(await signal(baton, run, { ...loosen, operator: 'ops', signature: elsewhere }, 3)).toMatchObject({
          kind: 'overrides_refused',
          problems: [expect.stringContaining('(wrong_origin)')],
        });

        const signature = passkeyAssert(passkey, payload, AT);
        expect(await signal(baton, run, { ...loosen, operator: 'ops', signature }, 4)).toMatchObject({
          kind: 'overrides_applied',
          options: { maxHandoffs: 9 },
          identity: {
            method: 'signed',
            operator: 'ops',
            kid: 'ops-passkey',
            passkey: { origin: AT.origin, signCount: passkey.signCount },
          },
          loosened: [expect.stringContaining('"maxHandoffs" from 3 to 9')],
        });
        // The same assertion again: its counter does not go forward.
        expect(await signal(baton, run, { ...loosen, operator: 'ops', signature }, 5)).toMatchObject({
          kind: 'overrides_refused',
          problems: [expect.stringContaining('(replayed)')],
        });
      });
    },
  );
});
