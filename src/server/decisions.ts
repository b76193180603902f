/**
 * A decision sent through a protocol (A2A, MCP) under the identity its token proved: the same
 * checks and signing as `POST /v1/runs/{id}/approvals/{approvalId}`.
 */
import type { ApprovalRecord, PendingApproval } from '../common/approvals';
import { signDecision } from '../client/signing/sign';
import { mayDecide, Permission, requirePermission, type TokenChecked } from './auth';
import type { ServiceContext } from './context';
import { HttpProblem } from './problems';
import { mustBeCallersTenant } from './tenancy';

/** What a protocol's caller decided. */
export interface ProtocolDecision {
  decision: 'approve' | 'reject';
  /** The approval; may be left out when exactly one waits. */
  approvalId?: string;
  comment?: string;
  /** Tool calls: the arguments to run the call with. */
  arguments?: Record<string, unknown>;
  callHash?: string;
  /** The caller's own signature of the decision (docs/signatures.md). */
  signature?: string;
}

/** The issuers of decisions that prove themselves for one chain (its notification's link or button), not by a caller's token. */
const PROVEN_PER_CHAIN = new Set(['baton:link', 'baton:slack']);

/**
 * Decide what waits in chain `workflowId` as `caller`: 403 unless the caller may decide it, 404 when
 * nothing (or not that approval) waits, 400 when several wait and none is named.
 */
export async function decideAs(
  ctx: ServiceContext,
  caller: TokenChecked,
  workflowId: string,
  input: ProtocolDecision,
): Promise<ApprovalRecord> {
  const identity = caller.identity;
  requirePermission(identity, Permission.DECIDE);
  // A signed link or a Slack button was made for this very chain; a token's caller decides in its own tenant only.
  if (!PROVEN_PER_CHAIN.has(caller.token.iss)) await mustBeCallersTenant(ctx, identity, workflowId);
  const pending = await ctx.baton.getRun(workflowId).pendingApprovals();
  const waiting = pickApproval(pending, workflowId, input.approvalId);
  if (!mayDecide(identity, waiting.approvers)) {
    throw new HttpProblem(
      403,
      'Forbidden',
      `${identity.name} may not decide this ${waiting.tool ? 'tool call' : 'handoff'} (approvers: ${waiting.approvers?.join(', ')})`,
    );
  }
  if (!waiting.tool && (input.arguments !== undefined || input.callHash !== undefined)) {
    throw new HttpProblem(
      400,
      'Invalid decision',
      '"arguments" and "callHash" apply to tool calls only; this approval is for a handoff',
    );
  }
  await ctx.payloadLimit.check('The decision', { ...input, approver: identity.name });
  const fields = {
    approver: identity.name,
    ...(input.comment ? (input.decision === 'approve' ? { comment: input.comment } : { reason: input.comment }) : {}),
    ...(input.arguments !== undefined ? { arguments: input.arguments } : {}),
    ...(input.callHash !== undefined ? { callHash: input.callHash } : {}),
  };
  const signed =
    input.signature ??
    (ctx.signer
      ? await signDecision(ctx.signer, {
          workflowId: waiting.workflowId ?? workflowId,
          waiting,
          decision: { ...fields, decision: input.decision },
          token: caller.token,
        })
      : undefined);
  const options = { ...fields, ...(signed !== undefined ? { signature: signed } : {}) };
  const record =
    input.decision === 'approve'
      ? await ctx.baton.approve(workflowId, waiting.handoffId, options)
      : await ctx.baton.reject(workflowId, waiting.handoffId, options);
  ctx.metrics?.decisions.inc({ decision: input.decision });
  return record;
}

function pickApproval(pending: PendingApproval[], workflowId: string, approvalId: string | undefined): PendingApproval {
  if (approvalId !== undefined) {
    const found = pending.find((p) => p.handoffId === approvalId);
    if (!found)
      throw new HttpProblem(
        404,
        'Not found',
        `no approval ${approvalId} is waiting in chain ${workflowId}${pending.length > 0 ? ` (waiting: ${pending.map((p) => p.handoffId).join(', ')})` : ''}`,
      );
    return found;
  }
  if (pending.length === 0)
    throw new HttpProblem(404, 'Not found', `nothing waits for a decision in chain ${workflowId}`);
  if (pending.length > 1)
    throw new HttpProblem(
      400,
      'Invalid decision',
      `${pending.length} approvals wait in chain ${workflowId}; name one: ${pending.map((p) => p.handoffId).join(', ')}`,
    );
  return pending[0]!;
}
