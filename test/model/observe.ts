/**
 * Observing the real system after a step has settled: the puppet calls waiting for an answer, the
 * approvals waiting in each open root (and what each asks), decisions sent by signal that were
 * taken, and how each root that closed ended.
 */
import { BatonError } from '../../src';
import { conversationError } from '../../src/client';
import type { AuditChain } from '../../src/audit';
import { errorText, sleep, type Harness } from './harness';
import { rootOf, subjectOf, type RootModel } from './model';

/** `read()`, tried a few times (a query needs a live worker; one may be starting), else `fallback`. */
async function tried<T>(read: () => Promise<T>, fallback: T, tries = 4): Promise<T> {
  for (let i = 0; i < tries; i++) {
    try {
      return await Promise.race([read(), sleep(15_000).then(() => Promise.reject(new Error('no answer in 15 s')))]);
    } catch {
      await sleep(500);
    }
  }
  return fallback;
}

/** Bring the model up to what the system shows. */
export async function observe(h: Harness): Promise<void> {
  const m = h.model;
  m.calls = h.system.hosts.calls().filter((c) => rootOf(m, c.workflowId) !== undefined);
  for (const root of m.roots) {
    if (root.status !== 'open') continue;
    const status = await tried(
      async () => (await h.system.client.workflow.getHandle(root.id).describe()).status.name,
      'UNKNOWN',
    );
    if (status === 'RUNNING') {
      root.approvals = await tried(() => h.baton.getRun(root.id).pendingApprovals(), root.approvals);
      for (const p of root.approvals) {
        const subject = subjectOf(p);
        root.asked.set(subject, (root.asked.get(subject) ?? new Set()).add(p.handoffId));
      }
      const still = new Set(root.approvals.map((p) => p.handoffId));
      // A signalled decision whose approval waits no more was taken, unless another decided it (a
      // quorum's next vote, a policy's step), whose decision is on the record already.
      for (const s of root.signalled?.splice(0) ?? [])
        if (still.has(s.approvalId)) root.signalled!.push(s);
        else if (!root.decided.some((d) => d.approvalId === s.approvalId)) root.decided.push(s);
    } else if (status !== 'UNKNOWN') await closed(h, root, status);
  }
}

/** Record how a root ended. */
async function closed(h: Harness, root: RootModel, status: string): Promise<void> {
  root.approvals = [];
  // A decision sent by signal just before the end: its history says whether it was taken.
  if (root.signalled?.length) {
    const decided = await decidedIn(h, root);
    for (const s of root.signalled.splice(0))
      if (decided.get(s.approvalId) === s.outcome && !root.decided.some((d) => d.approvalId === s.approvalId))
        root.decided.push(s);
  }
  if (root.kind === 'conversation') {
    root.status = status === 'COMPLETED' ? 'ended' : 'failed';
    if (status !== 'COMPLETED') {
      const err = conversationError(
        await h.system.client.workflow
          .getHandle(root.id)
          .result()
          .then(
            () => undefined,
            (e: unknown) => e,
          ),
      );
      root.failure = failureName(err, status);
      root.failureMessage = errorText(err);
    }
    return;
  }
  try {
    const result = await h.baton.getRun(root.id).result();
    root.status = 'completed';
    root.output = result.output;
  } catch (err) {
    root.status = 'failed';
    root.failure = failureName(err, status);
    root.failureMessage = errorText(err);
  }
}

/** The decisions a root's history (its specialists' included) records: approval id → outcome. */
async function decidedIn(h: Harness, root: RootModel): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (root.kind === 'conversation') {
    const audit = await h.baton
      .conversation(root.agent, { id: root.id })
      .audit()
      .catch(() => undefined);
    for (const t of audit?.turns ?? [])
      for (const a of t.approvals)
        if (a.kind === 'approval_decided' && a.handoffId) out.set(a.handoffId, String(a.outcome));
    return out;
  }
  const walk = (a: AuditChain) => {
    for (const e of a.events) if (e.kind === 'approval_decided') out.set(e.handoffId, e.outcome);
    for (const c of a.children ?? []) walk(c);
  };
  const audit = await h.baton.audit(root.id).catch(() => undefined);
  if (audit) walk(audit);
  return out;
}

/** baton's error type, or what else ended the run. */
function failureName(err: unknown, status: string): string {
  if (err instanceof BatonError) return err.name;
  const cause = (err as { cause?: { type?: string; name?: string } } | undefined)?.cause;
  return `${status}${cause?.type ? ` ${cause.type}` : cause?.name ? ` ${cause.name}` : ''}`;
}
