/**
 * What a reader of history can do to a specialist's report: with the token copied from the
 * specialist's start input (as anyone who may read history can), signal the chain that started it a
 * report that rewrites its waiting approval's message and adds one of the forger's, then one that
 * says nothing waits. The chain reads what waits from the specialist itself: the approval still
 * waits at the top with its own message, and nothing forged appears.
 */
import fc from 'fast-check';
import { childApprovalsSignal } from '../../../src/workflow';
import { broken, clip, operation, type Harness } from '../harness';
import { waiting, waitingFor, type Waiting } from '../waiting';
import { historyOf } from '../../../src/payloads/historyPages';

/** The token the specialist `workflowId` was started with, from its history. */
async function copiedToken(h: Harness, workflowId: string): Promise<string | undefined> {
  const history = await historyOf(h.system.client, workflowId);
  const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]?.data;
  if (!payload) return undefined;
  return (JSON.parse(Buffer.from(payload).toString('utf8')) as { parent?: { token?: string } }).parent?.token;
}

async function forge(h: Harness, w: Waiting, how: 'rewrite' | 'hide'): Promise<void> {
  const specialist = w.p.workflowId!;
  const parent = specialist.slice(0, specialist.lastIndexOf('/'));
  const token = await copiedToken(h, specialist);
  const { workflowId: _in, ...own } = w.p;
  const pending =
    how === 'hide'
      ? []
      : [
          { ...own, message: 'a routine step, nothing to see' },
          { ...own, handoffId: `forged-${w.p.handoffId}`, message: 'approve me' },
        ];
  const sent = await h.system.client.workflow
    .getHandle(parent)
    .signal(childApprovalsSignal, { workflowId: specialist, ...(token ? { token } : {}), pending })
    .then(
      () => true,
      () => false,
    );
  // The specialist's caller ended meanwhile: nothing to forge.
  if (!sent) return;
  await h.system.settle([w.root.id], 20_000);
  const run = h.baton.getRun(w.root.id);
  if ((await run.handle.describe()).status.name !== 'RUNNING') return;
  // Reads are activities: give the top chain's read of its specialist a moment to land, then look.
  for (let i = 0; i < 40; i++) {
    const top = await run.pendingApprovals();
    const forged = top.find(
      (p) => p.handoffId.startsWith('forged-') || (p.handoffId === w.p.handoffId && p.message !== w.p.message),
    );
    const present = top.some((p) => p.handoffId === w.p.handoffId);
    if (!forged && present) return;
    if (i === 39)
      broken(
        h,
        'reports-from-specialists',
        `a ${how} report with the token copied from ${clip(specialist, 120)}'s history changed what waits at ${w.root.id}: ${clip(JSON.stringify(top.map((p) => [p.handoffId, p.message])), 300)}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export const reportOperations = [
  operation({
    name: 'forge_report',
    group: 'approvals',
    weight: 2,
    params: fc.record({ approval: fc.nat(), how: fc.constantFrom<'rewrite' | 'hide'>('rewrite', 'hide') }),
    // An approval waiting in a specialist (its chain is not the root's).
    applies: (m) => waiting(m).some((w) => w.p.workflowId !== undefined && w.p.workflowId !== w.root.id),
    async run(h, p) {
      const w = waitingFor(h.model, p.approval, (x) => x.p.workflowId !== undefined && x.p.workflowId !== x.root.id)!;
      await forge(h, w, p.how);
    },
  }),
];
