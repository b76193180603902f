/**
 * Authority over running chains: overrides that loosen what protects a chain, sent raw as any
 * client could (they must be refused on the record), an operator's signed loosening (it must apply,
 * with who made it), and raw starts at a gated agent (they must wait for its approval; no model
 * turn and no tool runs before it). Invariants: no loosening applied without an operator's
 * signature; no gated agent run without approval.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import fc from 'fast-check';
import { overrideRunSignal, WorkflowType, type RunOverrides } from '../../../src/workflow';
import { signOverrides } from '../../../src/client/signing';
import type { AuditEvent } from '../../../src/audit';
import { broken, clip, operation, type Harness } from '../harness';
import { pick, type ModelState } from '../model';
import { MALLORY, OPS } from '../team';

const LOOSENINGS: Record<string, RunOverrides> = {
  approverKeys: {
    options: { approverKeys: [{ kid: MALLORY.kid, approvers: ['alice'], publicKey: MALLORY.publicKey }] },
  },
  approvals: { options: { approvals: [{ to: 'billing', required: false }] } },
  maxHandoffs: { options: { maxHandoffs: 1000 } },
  loopWindow: { options: { loopWindow: 0 } },
};

/** The chains a harness's override may reach. */
export const open = (m: ModelState) => m.roots.filter((r) => r.status === 'open' && r.kind === 'chain');

/**
 * Send the chain `id` an override signal; `false` when the chain ended meanwhile (the model saw it
 * open a moment ago): a closed chain takes no signal, so nothing was loosened either.
 */
async function sendOverride(h: Harness, id: string, overrides: RunOverrides): Promise<boolean> {
  const handle = h.system.client.workflow.getHandle(id);
  try {
    await handle.signal(overrideRunSignal, overrides);
    return true;
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
    const status = (await handle.describe()).status.name;
    if (status === 'RUNNING') throw err;
    return false;
  }
}

/** The chain's override records once there are more than `before`; `undefined` when none came in time. */
export async function overrideRecords(h: Harness, id: string, before: number): Promise<AuditEvent[] | undefined> {
  for (let i = 0; i < 100; i++) {
    const events = (await h.baton.audit(id)).events.filter(
      (e) => e.kind === 'overrides_refused' || e.kind === 'overrides_applied',
    );
    if (events.length > before) return events;
    await new Promise((r) => setTimeout(r, 100));
  }
  return undefined;
}

/** How many override records the chain `id` has. */
export const countOf = async (h: Harness, id: string) =>
  (await h.baton.audit(id)).events.filter((e) => e.kind === 'overrides_refused' || e.kind === 'overrides_applied')
    .length;

export const authorityOperations = [
  operation({
    name: 'loosening_override',
    group: 'approvals',
    weight: 2,
    params: fc.record({ chain: fc.nat(), kind: fc.constantFrom(...Object.keys(LOOSENINGS)) }),
    applies: (m) => open(m).length > 0,
    async run(h, p) {
      const root = pick(open(h.model), p.chain)!;
      const before = await countOf(h, root.id);
      if (!(await sendOverride(h, root.id, LOOSENINGS[p.kind]!))) return;
      const records = await overrideRecords(h, root.id, before);
      // A chain that ended meanwhile records nothing more: nothing was loosened either.
      if (!records) return;
      const last = records.at(-1)!;
      if (last.kind === 'overrides_applied' && !('identity' in last))
        broken(
          h,
          'no-unsigned-loosening',
          `a ${p.kind} loosening of ${root.id} applied without an operator's signature: ${clip(last)}`,
        );
    },
  }),
  operation({
    name: 'operator_override',
    group: 'approvals',
    weight: 1,
    params: fc.record({ chain: fc.nat(), forged: fc.boolean() }),
    applies: (m) => open(m).length > 0,
    async run(h, p) {
      const root = pick(open(h.model), p.chain)!;
      const before = await countOf(h, root.id);
      const signer = p.forged ? { kid: OPS.kid, sign: MALLORY.signer.sign } : OPS.signer;
      const overrides = { options: { maxHandoffs: 1 + (root.options.maxHandoffs ?? 10) } };
      const signed = await signOverrides(signer, { workflowId: root.id, operator: 'ops', overrides });
      if (!(await sendOverride(h, root.id, signed))) return;
      const last = (await overrideRecords(h, root.id, before))?.at(-1);
      if (!last) return;
      if (p.forged && last.kind === 'overrides_applied')
        broken(h, 'no-unsigned-loosening', `a forged operator override of ${root.id} applied: ${clip(last)}`);
      if (!p.forged && last.kind !== 'overrides_applied')
        broken(h, 'operator-loosening', `an operator's signed override of ${root.id} was refused: ${clip(last)}`);
      if (!p.forged && last.kind === 'overrides_applied') root.options = { ...root.options, ...overrides.options };
    },
  }),
  operation({
    name: 'gated_start',
    group: 'approvals',
    weight: 1,
    params: fc.record({ n: fc.nat() }),
    applies: () => true,
    async run(h, p) {
      // A raw start at billing (every handoff into it needs a person), as the temporal CLI or another SDK would.
      const id = `gated-${Date.now()}-${p.n}`;
      const handle = await h.system.client.workflow.start(WorkflowType.HANDOFF_RUN, {
        taskQueue: h.baton.taskQueue,
        workflowId: id,
        args: [{ agent: 'billing', input: 'refund 59.90' }],
      });
      try {
        let waiting: { from: string; to: string } | undefined;
        for (let i = 0; i < 100 && !waiting; i++) {
          waiting = (await h.baton.getRun(id).pendingApprovals()).find((x) => x.to === 'billing');
          if (!waiting) await new Promise((r) => setTimeout(r, 100));
        }
        // Side by side with v2 on one queue, a v1 worker refuses a new chain's team snapshot (v2 is the
        // newest registered) and the start waits, bounded, for a v2 worker: documented, not a gated entry skipped.
        const stale = !waiting && h.model.deployed === 'side_by_side' && (await refusedByTeam(h, id));
        if (waiting?.from !== '(start)' && !stale)
          broken(
            h,
            'gated-entry',
            `a raw start at billing (${id}) did not wait for billing's approval (waiting: ${clip(waiting)})`,
          );
        const ran = (await h.baton.audit(id)).events.filter((e) => e.kind === 'model_turn' || e.kind === 'tool_call');
        if (ran.length > 0)
          broken(h, 'gated-entry', `a raw start at billing (${id}) ran ${ran.length} steps before its approval`);
      } finally {
        await handle.terminate('model harness: gated start checked').catch(() => undefined);
      }
    },
  }),
];

/** Whether a v1 worker refused the team snapshot of the chain `id` (`Team mismatch`, a newer team registered). */
async function refusedByTeam(h: Harness, id: string): Promise<boolean> {
  const history = await h.system.client.workflow.getHandle(id).fetchHistory();
  return (history.events ?? []).some((e) =>
    /^Team mismatch: step loadTeam/.test(e.activityTaskFailedEventAttributes?.failure?.message ?? ''),
  );
}
