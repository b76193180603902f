/**
 * Deciding a waiting approval from the client: the decision checked before it is sent, bound to
 * the call the approver saw, signed when a signer is given, and sent as the `decideHandoff` update
 * to the chain the approval waits in (a specialist's own chain, for its approvals).
 */
import {
  ApplicationFailure,
  type WorkflowHandle,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import type { ApprovalRecord, PendingApproval } from '../common/approvals';
import { ApprovalRefusedError, InputTooLargeError, UserError } from '../common/errors';
import { errorFromFailure } from '../common/errorTypes';
import { decideHandoffUpdate, PENDING_MEMO } from '../common/messages';
import { latestStatus } from './latestStatus';
import { decisionSizes } from '../common/sizes';
import type { DecisionOptions } from './pending';
import { signDecision } from './signing/sign';
import { whileWorkflowTaskFails } from './taskFailing';

/** The parts of a run a decision needs. */
interface DecidingRun {
  readonly handle: WorkflowHandle;
  pendingApprovals(): Promise<PendingApproval[]>;
}

/**
 * What waits in `run`: read from its `batonPending` memo when `fromMemo` and the memo has the
 * approval (a describe, where a query is an action on Temporal Cloud), else asked of the run. A
 * signature or edited arguments bind to the waiting call as the run itself reports it.
 */
async function waitingIn(
  run: DecidingRun,
  handoffId: string | undefined,
  fromMemo: boolean,
): Promise<PendingApproval[]> {
  if (fromMemo) {
    const memo = await run.handle.describe().then(
      (d) => d.memo?.[PENDING_MEMO],
      () => undefined,
    );
    if (
      Array.isArray(memo) &&
      (handoffId === undefined ? memo.length > 0 : memo.some((p: PendingApproval) => p?.handoffId === handoffId))
    )
      return memo as PendingApproval[];
  }
  return run.pendingApprovals().catch(() => []);
}

/** Decide an approval of the chain `workflowId` (see `Baton.approve`). */
export async function decideApproval(
  getRun: (workflowId: string) => DecidingRun,
  workflowId: string,
  decision: 'approve' | 'reject',
  idOrOptions: string | undefined | DecisionOptions,
  given: DecisionOptions | undefined,
): Promise<ApprovalRecord> {
  const {
    approvalId: handoffId,
    approver,
    comment,
    reason,
    arguments: args,
    callHash,
    signer,
    signature,
    onBehalfOf,
    delegation,
  } = decisionOf(idOrOptions, given);
  if (typeof approver !== 'string' || approver.trim() === '') throw new UserError('approver must name who decides');
  if (args !== undefined && !isPlainObject(args))
    throw new UserError(`arguments must be a plain object of the tool's arguments, got ${describeValue(args)}`);
  if (args !== undefined && decision !== 'approve') throw new UserError('arguments go with an approval only');
  if (callHash !== undefined && (typeof callHash !== 'string' || callHash === ''))
    throw new UserError('callHash must be the tool.callHash of the waiting call');
  if (signer !== undefined && signature !== undefined) throw new UserError('give a signer or a signature, not both');
  if (
    signer !== undefined &&
    (typeof signer !== 'object' ||
      signer === null ||
      typeof signer.kid !== 'string' ||
      typeof signer.sign !== 'function')
  ) {
    throw new UserError(
      'signer must be a DecisionSigner {kid, sign(input)}: make one with decisionSigner(privateKey) or decisionSignerFromFile(file)',
    );
  }
  if (signature !== undefined && (typeof signature !== 'string' || signature === ''))
    throw new UserError('signature must be a JWS compact serialization (docs/signatures.md)');
  const slot = slotFields(approver, onBehalfOf, delegation);
  const sizes = decisionSizes({ handoffId, approver, comment, reason, arguments: args, callHash, signature, ...slot });
  if (sizes.length > 0) throw new InputTooLargeError(sizes);
  const waiting = await waitingIn(getRun(workflowId), handoffId, signer === undefined && args === undefined);
  const id = handoffId ?? onlyPending(workflowId, waiting);
  const pending = waiting.find((p) => p.handoffId === id);
  // Edited arguments bind to the call they were written for: a decision reaching a newer call is refused as stale.
  const hash = callHash ?? (args !== undefined ? pending?.tool?.callHash : undefined);
  // A handoff waiting in a specialist of this chain is decided in that specialist's chain.
  const chainId = pending?.workflowId ?? workflowId;
  const fields = {
    approver,
    decision,
    ...(comment !== undefined ? { comment } : {}),
    ...(reason !== undefined ? { reason } : {}),
    ...(args !== undefined ? { arguments: args } : {}),
    ...slot,
  };
  let signed = signature;
  if (signer) {
    if (!pending)
      throw new ApprovalRefusedError(id, `cannot sign: no approval ${id} is waiting in chain ${workflowId}`);
    signed = await signDecision(signer, { workflowId: chainId, waiting: pending, decision: fields });
  }
  try {
    // Refused while the chain's workflow task is being retried (a worker lost mid-task): nothing was decided yet, so it is sent again.
    return await whileWorkflowTaskFails(() =>
      getRun(chainId).handle.executeUpdate(decideHandoffUpdate, {
        args: [
          {
            handoffId: id,
            ...fields,
            ...(hash !== undefined ? { callHash: hash } : {}),
            ...(signed !== undefined ? { signature: signed } : {}),
          },
        ],
      }),
    );
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw await closedBeforeDecision(getRun(chainId), id, chainId, err);
    throw toBatonError(err);
  }
}

/**
 * The run a decision was sent to closed before it took it (its update aborted, or already closed):
 * nothing was decided. Refused with how the chain ended, or, when the chain goes on in a newer run
 * (it continued as new, or was started again), with that; the error as it came when there is no
 * such chain at all.
 */
async function closedBeforeDecision(run: DecidingRun, id: string, chainId: string, err: WorkflowNotFoundError) {
  const status = await latestStatus(run.handle);
  if (status === undefined) return err;
  return new ApprovalRefusedError(
    id,
    status === 'RUNNING'
      ? `the run of chain ${chainId} it was sent to closed before taking it, and the chain goes on in a newer run: nothing was decided; decide again on what waits there now`
      : `chain ${chainId} ended (${status.toLowerCase()}) before the decision reached it: nothing was decided`,
  );
}

/** baton's typed error for a failed run when there is one, else the error as it came. */
export function toBatonError(err: unknown): unknown {
  if (
    (err instanceof WorkflowFailedError || err instanceof WorkflowUpdateFailedError) &&
    err.cause instanceof ApplicationFailure
  ) {
    const typed = errorFromFailure(err.cause);
    if (typed) {
      (typed as { cause?: unknown }).cause = err;
      return typed;
    }
  }
  return err;
}

/** `onBehalfOf` and its `delegation` grant, checked to come together and to name another approver's slot. */
function slotFields(
  approver: string,
  onBehalfOf: unknown,
  delegation: unknown,
): { onBehalfOf?: string; delegation?: string } {
  if (onBehalfOf === undefined && delegation === undefined) return {};
  if (typeof onBehalfOf !== 'string' || onBehalfOf.trim() === '')
    throw new UserError(
      onBehalfOf === undefined
        ? 'a delegation grant goes with onBehalfOf, the approver whose slot it gives'
        : 'onBehalfOf must name the approver whose slot is decided',
    );
  if (typeof delegation !== 'string' || delegation === '')
    throw new UserError(
      `deciding for ${onBehalfOf} needs delegation: the grant (signed by ${onBehalfOf} or an operator, signDelegation) that gives ${approver} that slot`,
    );
  if (onBehalfOf === approver)
    throw new UserError(
      `onBehalfOf names the approver, ${approver}, themself: leave it out to decide for your own slot`,
    );
  return { onBehalfOf, delegation };
}

/** The decision's options, its approval id from either place (and either name), checked to agree. */
function decisionOf(
  idOrOptions: string | undefined | DecisionOptions,
  options: DecisionOptions | undefined,
): DecisionOptions {
  const given = typeof idOrOptions === 'object' && idOrOptions !== null ? idOrOptions : options;
  if (!given) throw new UserError('a decision needs its options: {approver, comment?, reason?, arguments?}');
  const ids = [typeof idOrOptions === 'string' ? idOrOptions : undefined, given.approvalId, given.handoffId].filter(
    (id): id is string => id !== undefined,
  );
  if (ids.some((id) => typeof id !== 'string' || id === ''))
    throw new UserError('approvalId must be the id of a waiting approval (baton.pending() lists them)');
  if (new Set(ids).size > 1)
    throw new UserError(`two different approval ids given (${[...new Set(ids)].join(', ')}): name one`);
  return { ...given, approvalId: ids[0] };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function describeValue(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  if (typeof value === 'object') return `a ${(value as object).constructor?.name ?? 'non-plain'} object`;
  if (typeof value === 'function') return 'a function';
  return `${typeof value} ${JSON.stringify(value)}`;
}

function onlyPending(workflowId: string, waiting: PendingApproval[]): string {
  if (waiting.length === 1) return waiting[0]!.handoffId;
  throw new ApprovalRefusedError(
    '(none given)',
    waiting.length === 0
      ? `chain ${workflowId} has no handoff waiting for approval`
      : `chain ${workflowId} has ${waiting.length} waiting approvals; name one: ${waiting.map((w) => `${w.handoffId} (${w.from} → ${w.to})`).join(', ')}`,
  );
}
