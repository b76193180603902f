/**
 * What the authority tests share: the team whose chains they drive (a signed handoff into `vault`,
 * gated `refunds`, open `triage`, one trusted operator key), the `temporal` CLI run as another
 * program would, and the audit's override records read as they arrive.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Team, type Baton, type BatonRun } from '../../src';
import type { AuditEvent } from '../../src/audit';
import type { EntryRules } from '../../src/agents';
import { findTemporalBinary } from '../../src/devserver/binary';
import { scriptedAgent as agent } from '../helpers/agents';
import { teamKeys, testKey } from '../helpers/signing';

const run$ = promisify(execFile);

/** The operator `ops`, whose key (`ops-1`) the team trusts to sign overrides. */
export const ops = testKey('ops-1', 11);
const opsKey = { kid: 'ops-1', approvers: ['ops'], publicKey: ops.publicKey };

/** `desk` hands off to `vault` (alice decides, signed); `refunds` needs alice's approval; `triage` is open. */
export function team(entry?: EntryRules): Team {
  return new Team(
    [
      agent('desk', [{ handoff: { to: 'vault', message: 'open the vault' } }], { handoffs: ['vault'] }),
      agent('vault', [{ text: 'vault opened' }], { approval: { approvers: ['alice'], requireSignature: true } }),
      agent('refunds', [{ text: 'refunded $59.90' }], { approval: { approvers: ['alice'] } }),
      agent('triage', [{ text: 'triaged' }]),
    ],
    { name: 'authority', approverKeys: teamKeys, operatorKeys: [opsKey], ...(entry ? { entry } : {}) },
  );
}

/** The `temporal` CLI against the server at `address`, as another program would run it. */
export async function temporal(address: string, args: string[]): Promise<string> {
  const { stdout } = await run$(findTemporalBinary('cli')!, [...args, '--address', address]);
  return stdout;
}

/** The audit's override records, once `count` of them are on the record. */
export async function overrideRecords(baton: Baton, run: BatonRun, count: number): Promise<AuditEvent[]> {
  for (let i = 0; i < 200; i++) {
    const events = (await baton.audit(run.workflowId)).events.filter(
      (e) => e.kind === 'overrides_refused' || e.kind === 'overrides_applied',
    );
    if (events.length >= count) return events;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`fewer than ${count} override records`);
}
