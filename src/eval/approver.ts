/**
 * A candidate chain's approvals, decided as its record decided them: the same handoff (from, to)
 * or the same tool call (agent, tool, arguments) gets the recorded decision, by the recorded
 * approver (with the recorded edit of a tool call's arguments); an approval the record never asked
 * for gets the eval's default. Runs as the `decideApprovals` activity beside the chain until it ends.
 */
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { PendingApproval } from '../common/approvals';
import { pendingApprovalsQuery } from '../common/messages';
import { Baton } from '../client/baton';
import { toolCallKey } from './digest';
import { handoffDecisionKey } from './recording';
import type { ApprovalsDecided } from '../common/eval/activities';
import { isNotFound, type RecordingStore } from './store';

/** How often the chain's waiting approvals are read. */
const POLL_MS = 250;
/** The approver of a decision the record has none for, when the policy names nobody. */
export const EVAL_APPROVER = 'baton-eval';

/** Decide what waits in chain `chainId` of case `caseId` until the chain ends. */
export async function decideApprovals(
  client: Client,
  store: RecordingStore,
  caseId: string,
  chainId: string,
): Promise<ApprovalsDecided> {
  const ctx = Context.current();
  const found = await store.forCase(caseId);
  const decisions = found.recording?.decisions ?? [];
  const used = new Set<number>();
  const done = new Set<string>();
  const baton = new Baton({ client });
  const handle = client.workflow.getHandle(chainId);
  const decided: ApprovalsDecided = { recorded: 0, defaulted: 0 };
  for (;;) {
    ctx.heartbeat();
    let running: boolean;
    try {
      running = (await handle.describe()).status.name === 'RUNNING';
    } catch (err) {
      // The case starts its chain beside this activity: it may not exist yet.
      if (!isNotFound(err)) throw err;
      running = true;
    }
    if (!running) return decided;
    const pending = await handle.query(pendingApprovalsQuery).catch((): PendingApproval[] => []);
    for (const p of pending.filter((w) => !done.has(w.handoffId))) {
      done.add(p.handoffId);
      const key = p.tool
        ? toolCallKey({ agentId: p.from, call: { id: '', name: p.tool.name, arguments: p.tool.arguments } })
        : handoffDecisionKey(p.from, p.to);
      const i = decisions.findIndex((d, n) => d.key === key && !used.has(n));
      const approvalId = p.handoffId;
      try {
        if (i >= 0) {
          used.add(i);
          const r = decisions[i]!.record;
          const approver = r.approver ?? p.approvers?.[0] ?? EVAL_APPROVER;
          const approve = r.outcome === 'approved' || (r.outcome === 'timed_out' && r.onTimeout === 'approve');
          if (approve)
            await baton.approve(chainId, {
              approvalId,
              approver,
              comment: 'as recorded',
              ...(r.editedArguments ? { arguments: JSON.parse(r.editedArguments) as Record<string, unknown> } : {}),
            });
          else
            await baton.reject(chainId, {
              approvalId,
              approver,
              reason:
                r.reason ??
                (r.outcome === 'timed_out'
                  ? 'nobody decided in time in the recorded chain'
                  : 'rejected in the recorded chain'),
            });
          decided.recorded += 1;
        } else {
          const approver = p.approvers?.[0] ?? EVAL_APPROVER;
          if (found.input.options.approvals === 'approve')
            await baton.approve(chainId, {
              approvalId,
              approver,
              comment: 'the recorded chain had no such approval; the eval approves it',
            });
          else
            await baton.reject(chainId, {
              approvalId,
              approver,
              reason: 'the recorded chain had no such approval; the eval rejects it',
            });
          decided.defaulted += 1;
        }
      } catch {
        // Decided meanwhile, or the chain moved on: what waits next is read again.
        done.delete(p.handoffId);
      }
    }
    await ctx.sleep(POLL_MS);
  }
}
