/**
 * The end invariant of policy updates and exports, `policy-export-holds`: the export of each chain
 * a policy update tightened verifies (`baton audit --verify`'s checks, its head signed by the
 * auditor's key), and, for each refund that ran after the update under an approval asked after it,
 * the same export with that approval removed, or (unsigned) decided by mallory, whom the update does
 * not name, every digest made again (its head signed again, as the holder of the export key could),
 * is refused at that call, naming the policy update.
 */
import { exportAudit, signAuditExport, verifyAuditExport, type AuditExport } from '../../src/audit';
import { rechained } from '../helpers/forgery';
import { exportKeys, keys } from '../helpers/signing';
import { broken, clip, type Harness, type Invariant } from './harness';
import { tightened } from './operations/policy';

/** How many exports the invariant verified, and how many forged ones it had refused, for a run's figures. */
export const policyExportFigures = { verified: 0, refused: 0 };

/** The forgeries of an approval `id` after a policy update: removed, and decided by mallory. */
const FORGERIES: Record<string, (events: AuditExport['events'], id: string) => AuditExport['events'] | undefined> = {
  removed: (events, id) =>
    events.flatMap((e) => {
      const ev = e.event as unknown as Ev;
      if ((ev.kind === 'approval_requested' || ev.kind === 'approval_decided') && ev.handoffId === id) return [];
      if (ev.kind === 'tool_call' && ev.approval === id) {
        delete ev.approval;
        delete ev.requestedArguments;
      }
      return [e];
    }),
  // A signed decision fails by its signature whoever it names: only an unsigned one is forged so.
  decidedByMallory: (events, id) => {
    const decided = events.find((e) => e.event.kind === 'approval_decided' && e.event.handoffId === id)
      ?.event as unknown as Ev | undefined;
    if (!decided || decided.signature !== undefined || decided.outcome !== 'approved') return undefined;
    decided.approver = 'mallory';
    return events;
  },
};

type Ev = Record<string, unknown>;

/** `doc` with its events as `forge` makes them, its digests made again and its head signed again; `undefined` when it does not apply. */
async function forged(
  doc: AuditExport,
  forge: (events: AuditExport['events']) => AuditExport['events'] | undefined,
): Promise<AuditExport | undefined> {
  const kept = forge(structuredClone(doc.events));
  if (!kept) return undefined;
  const { headSignature: _signed, ...rest } = rechained({ ...doc, events: kept }, { recorded: true });
  return signAuditExport(rest, keys.audit.signer);
}

async function holds(h: Harness, id: string): Promise<void> {
  const audit = await h.baton.audit(id).catch(() => undefined);
  if (!audit) return;
  const doc = await signAuditExport(exportAudit(audit), keys.audit.signer);
  const verdict = verifyAuditExport(JSON.parse(JSON.stringify(doc)), { exportKeys });
  if (!verdict.ok)
    return broken(
      h,
      'policy-export-holds',
      `${id}: the export of a chain whose policy was tightened does not verify: ${clip(verdict.failure, 300)}`,
    );
  policyExportFigures.verified++;
  const own = doc.events.filter((e) => e.workflowId === id);
  const update = own.find((e) => e.event.kind === 'policy_updated');
  if (!update) return;
  const askedAfter = new Set(
    own.flatMap((e) => (e.event.kind === 'approval_requested' && e.seq > update.seq ? [e.event.handoffId] : [])),
  );
  for (const e of own) {
    const ev = e.event as unknown as Ev;
    if (
      ev.kind !== 'tool_call' ||
      ev.tool !== 'refund' ||
      typeof ev.approval !== 'string' ||
      !askedAfter.has(ev.approval)
    )
      continue;
    const execution = ev.execution as { status?: string } | undefined;
    if (ev.answeredBy !== 'tool' || !execution || execution.status === 'not_scheduled') continue;
    for (const [name, forge] of Object.entries(FORGERIES)) {
      const copy = await forged(doc, (events) => forge(events, String(ev.approval)));
      if (!copy) continue;
      const v = verifyAuditExport(copy, { exportKeys });
      if (
        v.ok ||
        v.failure?.kind !== 'tool_call' ||
        !v.failure.reason.includes(`after the policy update at event #${update.seq}`)
      ) {
        return broken(
          h,
          'policy-export-holds',
          `${id}: with the approval ${ev.approval} of a refund after the policy update ${name}, the export ${v.ok ? 'verifies' : `is refused for another reason: ${clip(v.failure, 300)}`}`,
        );
      }
      policyExportFigures.refused++;
    }
  }
}

export const policyExportInvariants: Invariant[] = [
  {
    name: 'policy-export-holds',
    when: 'end',
    check: async (h) => {
      for (const id of tightened)
        if (h.model.roots.some((r) => r.id === id && r.kind === 'chain' && !r.abandoned)) await holds(h, id);
    },
  },
];
