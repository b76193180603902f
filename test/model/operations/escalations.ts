/**
 * Approvals whose policy acts while nobody decides: `start_escalating` starts a chain whose run
 * `approvalPolicy` notifies after 2 s, decides (approve, reject or fail) a few seconds later or
 * never, and reminds every minute (the shortest interval baton takes); `await_escalation` is a
 * person who does nothing until the next step is due. Invariants: a reminded or escalated approval
 * is decided once (`escalation-decided-once`), every step that came due while it waited is on the
 * record, and none after its decision (`escalation-recorded`), and a decide step's outcome is the
 * one the chain acts on (`escalation-acted`).
 */
import fc from 'fast-check';
import type { AuditChain, AuditEvent } from '../../../src/audit';
import type { PendingApproval } from '../../../src/workflow';
import type { EscalationDecision, EscalationStep } from '../../../src/common/approvalTiming';
import { durationMs } from '../../../src/common/check';
import { broken, clip, sleep, type Harness, type Invariant, operation } from '../harness';
import { pick, type RootModel } from '../model';
import { START_AGENTS } from '../team';
import { follow } from '../follow';
import { BASE_OPTIONS, newRoot, roomForRoot } from './chain';
import { waitingFor } from '../waiting';
import { perSystem } from '../systemState';

/** The shortest reminder interval baton takes; the harness's reminders come this often. */
const REMIND_MS = 60_000;
/** How late a step may be on the record: a workflow task after a timer, a worker starting again. */
const LATE_MS = 8_000;

/** An escalating root's plan: its steps, the decide step's outcome if any, and whether it reminds. */
interface Plan {
  steps: EscalationStep[];
  final?: EscalationDecision;
  remind: boolean;
}

/** The roots started with an escalating policy, by workflow id (ids are unique to their sequence). */
const plans = perSystem(new Map<string, Plan>());

function planOf(final: EscalationDecision | 'none', decideAfterS: number, remind: boolean): Plan {
  const steps: EscalationStep[] = [{ after: '2 seconds', notify: ['ops'] }];
  if (final !== 'none') steps.push({ after: `${decideAfterS} seconds`, decide: final });
  return { steps, ...(final !== 'none' ? { final } : {}), remind };
}

type Approval = Extract<AuditEvent, { kind: 'approval_requested' }>;
type Decided = Extract<AuditEvent, { kind: 'approval_decided' }>;

/** Every chain of a root's audit: the root's own and its specialists'. */
function chainsOf(a: AuditChain): AuditChain[] {
  return [a, ...(a.children ?? []).flatMap(chainsOf)];
}

/** What the record says of one approval: its decisions, escalation steps and reminders, in history order. */
function recordOf(events: AuditEvent[], id: string) {
  const about = events.filter((e) => 'handoffId' in e && e.handoffId === id);
  return {
    decided: about.filter((e): e is Decided => e.kind === 'approval_decided'),
    escalated: about.filter((e) => e.kind === 'approval_escalated') as Extract<
      AuditEvent,
      { kind: 'approval_escalated' }
    >[],
    reminded: about.filter((e) => e.kind === 'approval_reminded') as Extract<
      AuditEvent,
      { kind: 'approval_reminded' }
    >[],
  };
}

/** The audit of an escalating root, or undefined while it cannot be read. */
async function auditOf(h: Harness, root: RootModel): Promise<AuditChain | undefined> {
  return h.baton.audit(root.id).catch(() => undefined);
}

/** Judge one approval of an escalating chain against `plan`; `readAt` is the end of what the record can show: when its reading began. */
function judgeApproval(
  h: Harness,
  root: RootModel,
  chain: AuditChain,
  asked: Approval,
  plan: Plan,
  readAt: number,
): void {
  const { decided, escalated, reminded } = recordOf(chain.events, asked.handoffId);
  const where = `${asked.handoffId} in ${chain.workflowId}`;
  if (decided.length > 1)
    broken(
      h,
      'escalation-decided-once',
      `${where} decided ${decided.length} times: ${clip(decided.map((d) => `${d.outcome}${d.escalationStep !== undefined ? ` (step ${d.escalationStep})` : ` by ${d.approver ?? '?'}`}`))}`,
    );
  const d = decided[0];
  const askedAt = Date.parse(asked.at);
  const waitsNow = root.status === 'open' && root.approvals.some((p) => p.handoffId === asked.handoffId);
  // In the audit's order: event ids count from 1 again in each run of a chain that continued as new.
  const after = (e: AuditEvent) => d !== undefined && chain.events.indexOf(e) > chain.events.indexOf(d);
  for (const e of [...escalated, ...reminded])
    if (after(e)) broken(h, 'escalation-recorded', `${where}: ${e.kind} after its decision (${clip(e)})`);
  // Until when the approval waited: its decision, else now while it waits; one that went otherwise (its chain stopped, steered) is not timed.
  if (!d && !waitsNow) return;
  // A history of large refused decisions can take a minute to read: the latest run, read first, shows no later than then.
  const until = d ? Date.parse(d.at) : readAt;
  plan.steps.forEach((step, i) => {
    const due = askedAt + durationMs(step.after)!;
    if (step.notify && until > due + LATE_MS && !escalated.some((e) => e.step === i))
      broken(
        h,
        'escalation-recorded',
        `${where}: step ${i} (notify after ${step.after}) came due ${Math.round((until - due) / 1000)} s before the approval stopped waiting, and is not on the record`,
      );
    if (step.notify && escalated.some((e) => e.step === i && Date.parse(e.at) < due - 1000))
      broken(h, 'escalation-recorded', `${where}: step ${i} recorded before it was due`);
    if (step.decide && !d && until > due + LATE_MS)
      broken(
        h,
        'escalation-recorded',
        `${where}: its decide step came due ${Math.round((until - due) / 1000)} s before the record was read, and it still waits`,
      );
  });
  reminded.forEach((r, i) => {
    if (i > 0 && r.reminder <= reminded[i - 1]!.reminder)
      broken(h, 'escalation-recorded', `${where}: reminder ${r.reminder} after reminder ${reminded[i - 1]!.reminder}`);
    if (Date.parse(r.at) < askedAt + r.reminder * REMIND_MS - 1000)
      broken(h, 'escalation-recorded', `${where}: reminder ${r.reminder} at ${r.at}, before it was due`);
  });
  if (plan.remind && until > askedAt + REMIND_MS + LATE_MS && reminded.length === 0)
    broken(
      h,
      'escalation-recorded',
      `${where}: waited ${Math.round((until - askedAt) / 1000)} s under a reminder every minute, and no reminder is on the record`,
    );
  if (!plan.remind && reminded.length > 0)
    broken(h, 'escalation-recorded', `${where}: reminded though its policy has no remindEvery`);
  if (d?.escalationStep !== undefined) {
    if (d.onTimeout !== plan.final || d.escalationStep !== plan.steps.length - 1)
      broken(
        h,
        'escalation-acted',
        `${where}: decided by step ${d.escalationStep} as ${d.onTimeout}; the policy's last step decides ${plan.final ?? 'nothing'}`,
      );
    // The policy's approval of a call is an approval as the harness's is: the call may run (see the effects invariant).
    if (d.onTimeout === 'approve' && asked.tool && !root.decided.some((x) => x.approvalId === asked.handoffId)) {
      root.decided.push({
        approvalId: asked.handoffId,
        workflowId: chain.workflowId,
        outcome: 'approved',
        subject: `tool ${asked.tool.toolCallId}`,
        signed: false,
        toolCallId: asked.tool.toolCallId,
      });
    }
  }
}

/** Each approval of each escalating root, as its audit shows it now. */
async function eachApproval(
  h: Harness,
  judge: (root: RootModel, chain: AuditChain, asked: Approval, plan: Plan, readAt: number) => void,
): Promise<void> {
  for (const root of h.model.roots) {
    const plan = plans.get(root.id);
    if (!plan) continue;
    const readAt = Date.now();
    const audit = await auditOf(h, root);
    if (!audit) continue;
    for (const chain of chainsOf(audit))
      for (const e of chain.events) if (e.kind === 'approval_requested') judge(root, chain, e, plan, readAt);
  }
}

/** The next moment `p`'s policy acts: its next escalation step, else (when asked) its next reminder. */
function nextStepAt(p: PendingApproval, reminders: boolean): number | undefined {
  const asked = Date.parse(p.requestedAt);
  const step = p.policy?.escalation?.[p.progress?.steps ?? 0];
  if (step) return asked + durationMs(step.after)!;
  if (reminders && p.policy?.remindEvery !== undefined)
    return asked + ((p.progress?.reminders ?? 0) + 1) * durationMs(p.policy.remindEvery)!;
  return undefined;
}

export const escalationOperations = [
  operation({
    name: 'start_escalating',
    group: 'chain',
    opens: true,
    weight: 2,
    params: fc.record({
      agent: fc.nat(),
      final: fc.constantFrom<EscalationDecision | 'none'>('approve', 'reject', 'fail', 'none'),
      decideAfterS: fc.integer({ min: 4, max: 14 }),
      remind: fc.boolean(),
      follow: fc.boolean(),
    }),
    applies: (m) => roomForRoot(m),
    async run(h, p) {
      const m = h.model;
      const agent = pick(START_AGENTS, p.agent)!;
      const plan = planOf(p.final, p.decideAfterS, p.remind);
      const approvalPolicy = { escalation: plan.steps, ...(plan.remind ? { remindEvery: '1 minute' } : {}) };
      const root = newRoot(m, 'chain', agent, { ...BASE_OPTIONS, approvalPolicy });
      // A policy that fails the run when nobody decides may end it with ApprovalTimeoutError; a run's
      // policy that approves when nobody decides loosens what the team protects, and is refused.
      if (plan.final === 'fail') root.provoked.add('ApprovalTimeoutError');
      if (plan.final === 'approve') root.provoked.add('LooseningRefusedError');
      // A chain started at a gated entry waits for its entry's approval, which the policy may reject or fail.
      if (plan.final !== undefined) root.provoked.add('GatedEntryError');
      plans.set(root.id, plan);
      const run = await h.baton.start(agent, `request ${root.id} for ${agent}`, {
        workflowId: root.id,
        context: root.context,
        ...root.options,
      });
      if (p.follow) root.follower = follow(run, h);
    },
  }),
  operation({
    name: 'await_escalation',
    group: 'approvals',
    weight: 2,
    params: fc.record({ approval: fc.nat(), reminders: fc.boolean() }),
    applies: (m) => m.roots.some((r) => r.status === 'open' && plans.has(r.id) && r.approvals.length > 0),
    async run(h, p) {
      const w = waitingFor(h.model, p.approval, (x) => plans.has(x.root.id));
      if (!w) return;
      const at = nextStepAt(w.p, p.reminders);
      if (at === undefined) return;
      // Nobody decides until the step is due (a reminder a minute out at most), then the chain settles.
      await sleep(Math.min(Math.max(0, at - Date.now()) + 1500, REMIND_MS + 5_000));
      await h.system.settle([w.root.id], 30_000);
      const stepIndex = w.p.progress?.steps ?? 0;
      const step = w.p.policy?.escalation?.[stepIndex];
      // The step is on the record within LATE_MS of its moment: it, or a decision that came first.
      for (;;) {
        const readAt = Date.now();
        const audit = await auditOf(h, w.root);
        const chain = audit && chainsOf(audit).find((c) => c.workflowId === (w.p.workflowId ?? w.root.id));
        if (!chain) return;
        const { decided, escalated, reminded } = recordOf(chain.events, w.p.handoffId);
        const recorded =
          decided.length > 0 ||
          (step
            ? escalated.some((e) => e.step === stepIndex)
            : reminded.some((r) => r.reminder > (w.p.progress?.reminders ?? 0)));
        if (recorded || chain.status !== 'running') return;
        if (readAt >= at + LATE_MS) {
          broken(
            h,
            'escalation-recorded',
            `${w.p.handoffId} in ${chain.workflowId}: ${step ? `step ${stepIndex} (${clip(step)})` : 'its next reminder'} came due ${Math.round((readAt - at) / 1000)} s before the record was read, and is not on it`,
          );
          return;
        }
        await sleep(500);
      }
    },
  }),
];

/** `escalation-recorded` is judged before the others each step (a call the policy approved counts as approved for the effects invariant); `escalation-acted` after them at the end. */
export const escalationInvariants: Invariant[] = [
  {
    name: 'escalation-recorded',
    when: 'step',
    check: (h) =>
      eachApproval(h, (root, chain, asked, plan, readAt) => judgeApproval(h, root, chain, asked, plan, readAt)),
  },
  {
    // A decide step's outcome is the one the chain acts on: an approved call ran, a rejected one did not, a failed run failed.
    name: 'escalation-acted',
    when: 'end',
    check: (h) =>
      eachApproval(h, (root, chain, asked) => {
        const d = recordOf(chain.events, asked.handoffId).decided[0];
        if (!d || d.escalationStep === undefined) return;
        const where = `${asked.handoffId} in ${chain.workflowId}, decided ${d.onTimeout} by its policy`;
        if (asked.tool) {
          const ran = h.effects.some(
            (e) => e.kind === 'applied' && e.toolCallId === asked.tool!.toolCallId && e.workflowId === chain.workflowId,
          );
          if (d.onTimeout === 'approve' && !ran && root.status === 'completed')
            broken(h, 'escalation-acted', `${where}: the call never ran, and the chain completed`);
          if (d.onTimeout !== 'approve' && ran) broken(h, 'escalation-acted', `${where}: the call ran`);
        } else {
          const handedOff = chain.events.some((e) => e.kind === 'handoff' && e.approval?.handoffId === asked.handoffId);
          if (d.onTimeout === 'approve' && !handedOff && root.status === 'completed')
            broken(h, 'escalation-acted', `${where}: the chain never handed off, and completed`);
          if (d.onTimeout !== 'approve' && handedOff)
            broken(h, 'escalation-acted', `${where}: the chain handed off anyway`);
        }
        if (d.onTimeout === 'fail' && chain.workflowId === root.id && root.status !== 'failed')
          broken(h, 'escalation-acted', `${where}: the chain ended ${root.status}, not failed`);
        if (
          d.onTimeout === 'fail' &&
          chain.workflowId === root.id &&
          root.status === 'failed' &&
          root.failure !== 'ApprovalTimeoutError' &&
          root.failure !== 'GatedEntryError'
        )
          broken(h, 'escalation-acted', `${where}: the chain failed with ${root.failure}, not ApprovalTimeoutError`);
      }),
  },
];
