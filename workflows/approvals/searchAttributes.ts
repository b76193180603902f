/**
 * What waits in a chain, as visibility search attributes: the inbox lists approvals across chains
 * from one visibility query (`BatonApprovers IN ("alice", "*") AND BatonApprovalDue < "…"`), not a
 * query per chain. Written at every change to what waits ({@link withApprovalAttributes}, one layer
 * of the workflows' effects stack), by runs that have the `baton-approval-search-attributes` patch
 * and whose worker found the attributes in its namespace.
 */
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import type { PendingApproval } from '../../src/common/approvals';
import {
  ANY_APPROVER,
  BatonApprovalDue,
  BatonApprovalTools,
  BatonApprovers,
  BatonPendingApprovals,
  PENDING_MEMO,
} from '../../src/common/messages';
import { Patches } from '../../src/common/patches';
import type { TeamSpec } from '../../src/common/team';
import type { ChainEffects } from '../chain/effects';
import { hasPatch } from '../patches';
import { upsertAttributes } from '../searchAttributes';

/**
 * The four approval search attributes for what waits: the soonest deadline (none: unset), every
 * approver named (`*` when anyone may decide one), the tools whose calls wait, and how many wait.
 * Pure, so the inbox's tests and the harness compute the same values.
 */
export function approvalAttributes(pending: readonly PendingApproval[]): SearchAttributeUpdatePair[] {
  const due = pending
    .map((p) => p.dueAt ?? p.expiresAt)
    .filter((d): d is string => d !== undefined)
    .sort()[0];
  const approvers = new Set<string>();
  const tools = new Set<string>();
  for (const p of pending) {
    for (const name of p.approvers ?? [ANY_APPROVER]) approvers.add(name);
    if (p.tool) tools.add(p.tool.name);
  }
  return [
    { key: BatonApprovalDue, value: due !== undefined ? new Date(due) : null },
    { key: BatonApprovers, value: [...approvers].sort() },
    { key: BatonApprovalTools, value: [...tools].sort() },
    { key: BatonPendingApprovals, value: pending.length },
  ];
}

/**
 * Write the approval search attributes for what now waits, when the run may: its team snapshot says
 * the namespace has them (so a namespace without them never fails a chain), and the run has the
 * patch (a run recorded before it issued no such upsert, and replays without one).
 */
export function upsertApprovalAttributes(team: TeamSpec | undefined, pending: readonly PendingApproval[]): void {
  if (!team?.approvalAttributes || !hasPatch(Patches.APPROVAL_SEARCH_ATTRIBUTES)) return;
  upsertAttributes(approvalAttributes(pending));
}

/**
 * `effects` whose every publication of what waits (the `batonPending` memo: an approval opened,
 * decided, timed out, taken over after continue-as-new, cleared after a conversation's turn) also
 * writes the approval search attributes, for the chain whose team `team()` gives.
 */
export function withApprovalAttributes<E extends ChainEffects>(effects: E, team: () => TeamSpec | undefined): E {
  const publish = effects.publish.bind(effects);
  return Object.assign(Object.create(effects) as E, {
    publish(memo: Record<string, unknown>): void {
      publish(memo);
      const pending = memo[PENDING_MEMO];
      if (Array.isArray(pending)) upsertApprovalAttributes(team(), pending as PendingApproval[]);
    },
  });
}
