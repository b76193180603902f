/**
 * Judging a decision that arrived (by signal, update or forward): refused (too large, malformed,
 * for nothing waiting, by someone not allowed, stale), applied here, or forwarded to the
 * specialist chain its approval waits in; and the record of an applied one.
 *
 * Pure: no Temporal API, no I/O.
 */
import type { ApprovalRecord, DecisionIdentity, HandoffDecision, PendingApproval } from '../../src/common/approvals';
import { voteProblem } from '../../src/common/approvalVotes';
import { reasonLabel, reasonProblem } from '../../src/common/approvalReasons';
import { isUnreadable } from '../../src/common/arrival';
import { isRecord } from '../../src/common/check';
import {
  ApprovalRefusedError,
  type BatonError,
  InputTooLargeError,
  SignatureRefusedError,
} from '../../src/common/errors';
import { readDecision } from '../../src/common/input';
import { schemaProblems } from '../../src/common/jsonSchema';
import { boundedReason, clipText, LIMITS, sizeMessage } from '../../src/common/limits';
import { decisionSizes } from '../../src/common/sizes';
import type { ChainState } from '../../src/common/state';
import type { VerifiedGrant } from '../../src/common/signatures/delegation';
import { argumentsDigest } from '../../src/common/signatures/payload';
import { judgeGrant, judgeSignature, type SignatureBench } from './signed';

/** What becomes of a decision. */
export type Judgement =
  | { kind: 'refused'; reason: string; error: BatonError }
  | {
      kind: 'apply';
      decision: HandoffDecision;
      waiting: PendingApproval;
      identity?: DecisionIdentity;
      grant?: VerifiedGrant;
    }
  | { kind: 'forward'; decision: HandoffDecision; to: string };

/** Where a decision is judged: the chain's state (none before it starts), the approvals waiting in its specialists. */
export interface Bench {
  state?: ChainState;
  inSpecialist(handoffId: string): PendingApproval | undefined;
  /** The run holds decisions to `LIMITS` and forwards them (the `baton-bounds` patch). */
  bounded: boolean;
  /** Where and when signatures are judged, in a run that verifies them (the `baton-signatures` patch). */
  signatures?: SignatureBench;
  /** Where and when a decision's delegation grant is judged (staged approvals, `votes.ts`). @default none: a decision for another's slot is refused */
  grants?: SignatureBench;
}

/** Judge `raw`, a decision as it arrived. */
export function judgeDecision(raw: unknown, bench: Bench): Judgement {
  if (isUnreadable(raw)) {
    const size = raw.size;
    if (size) return refusal(sizeMessage(size), () => new InputTooLargeError([size]));
    return refused(raw, `${raw.problem('the decision')}; send {"handoffId", "approver", …} as JSON`);
  }
  if (bench.bounded) {
    const sizes = decisionSizes(raw);
    if (sizes.length > 0) return refusal(sizes.map(sizeMessage).join('; '), () => new InputTooLargeError(sizes));
  }
  const read = readDecision(raw);
  if ('problems' in read) return refused(raw, read.problems.join('; '));
  const d = read.decision;
  const s = bench.state;
  if (!s) return refused(raw, `no handoff ${d.handoffId} is waiting for approval (waiting: none)`);
  const earlier = s.approvals.decided.find((r) => r.handoffId === d.handoffId);
  if (earlier)
    return refused(
      raw,
      `handoff ${d.handoffId} was already decided (${earlier.outcome}${earlier.approver ? ` by ${earlier.approver}` : ''})`,
    );
  const waiting = s.approvals.pending.find((p) => p.handoffId === d.handoffId);
  if (!waiting) {
    const there = bench.bounded ? bench.inSpecialist(d.handoffId) : undefined;
    if (there?.workflowId) {
      const who = approverProblem(there, d);
      return who ? refused(raw, who) : { kind: 'forward', decision: d, to: there.workflowId };
    }
    const ids = s.approvals.pending.map((p) => p.handoffId);
    return refused(
      raw,
      `no handoff ${d.handoffId} is waiting for approval (waiting: ${ids.length > 0 ? ids.join(', ') : 'none'})`,
    );
  }
  const problem =
    approverProblem(waiting, d) ??
    (d.decision === 'reject' ? reasonProblem(reasonsOf(s, waiting), d.reason) : undefined) ??
    (waiting.tool ? toolCallProblem(s, waiting, d) : handoffProblem(d));
  if (problem) return refused(raw, problem);
  const granted = d.onBehalfOf !== undefined ? judgeGrant(s, d, bench.grants) : undefined;
  if (granted && !granted.ok) return refused(raw, granted.reason);
  const grant = granted?.ok ? { grant: granted.grant } : {};
  if (!bench.signatures) {
    return d.signature === undefined
      ? { kind: 'apply', decision: d, waiting, ...grant }
      : refused(raw, 'this chain started before baton verified signatures: send the decision without one');
  }
  const signed = judgeSignature(s, waiting, d, bench.signatures);
  if (!signed.ok) {
    const reason = boundedReason(signed.reason);
    return refusal(reason, () => new SignatureRefusedError(handoffIdOf(raw), reason, signed.problem));
  }
  return { kind: 'apply', decision: d, waiting, identity: signed.identity, ...grant };
}

/**
 * The record of decision `d` on `waiting`, made at `at` (ms). Its fields are within their limits:
 * runs from before the limits took longer ones, which the record keeps clipped.
 */
export function recordOf(
  d: HandoffDecision,
  waiting: PendingApproval,
  at: number,
  via: 'signal' | 'update',
  identity?: DecisionIdentity,
): ApprovalRecord {
  const edited = waiting.tool && d.decision === 'approve' && d.arguments ? d.arguments : undefined;
  const label = reasonLabel(waiting.rejectionReasons, d.reason);
  return {
    handoffId: waiting.handoffId,
    outcome: d.decision === 'approve' ? 'approved' : 'rejected',
    approver: clipText(d.approver, LIMITS.approverChars),
    ...(d.decision === 'approve' && d.comment !== undefined ? { comment: clipText(d.comment, LIMITS.noteChars) } : {}),
    ...(d.decision === 'reject' && d.reason !== undefined ? { reason: clipText(d.reason, LIMITS.noteChars) } : {}),
    ...(d.decision === 'reject' && label !== undefined ? { reasonLabel: label } : {}),
    ...(waiting.questions?.length ? { questions: waiting.questions } : {}),
    requestedAt: waiting.requestedAt,
    decidedAt: new Date(at).toISOString(),
    via,
    ...(waiting.tool ? { tool: waiting.tool.name } : {}),
    ...(edited ? { editedArguments: JSON.stringify(edited) } : {}),
    // Chains that verify signatures say how the approver was established, and keep what proves it.
    ...(identity && edited ? { argumentsDigest: argumentsDigest(edited) } : {}),
    ...(identity ? { identity } : {}),
    ...(identity && d.signature !== undefined ? { signature: d.signature } : {}),
  };
}

/** The record of a wait for `w` that timed out at `now` (ms). */
export function timedOut(w: PendingApproval, now: number): ApprovalRecord {
  return {
    handoffId: w.handoffId,
    outcome: 'timed_out',
    requestedAt: w.requestedAt,
    decidedAt: new Date(now).toISOString(),
    via: 'timeout',
    onTimeout: w.onTimeout,
    ...(w.timeout !== undefined ? { timeout: w.timeout } : {}),
    ...(w.tool ? { tool: w.tool.name } : {}),
  };
}

/** A signal's input with the decision its name stands for; other shapes pass on to be refused. */
export function withDecision(raw: unknown, decision: HandoffDecision['decision']): unknown {
  return isRecord(raw) && !isUnreadable(raw) ? { ...raw, decision } : raw;
}

/** The fields of a refused decision the record keeps, each within its limit. */
export function refusedFields(raw: unknown): { handoffId?: string; approver?: string; decision?: string } {
  const d = isRecord(raw) && !isUnreadable(raw) ? raw : {};
  return {
    ...(typeof d.handoffId === 'string' ? { handoffId: clipText(d.handoffId, LIMITS.idChars) } : {}),
    ...(typeof d.approver === 'string' ? { approver: clipText(d.approver, LIMITS.approverChars) } : {}),
    ...(typeof d.decision === 'string' ? { decision: clipText(d.decision, 16) } : {}),
  };
}

/** The approval id a refusal names: the one given, within its limit. */
export function handoffIdOf(raw: unknown): string {
  return isRecord(raw) && !isUnreadable(raw) && typeof raw.handoffId === 'string'
    ? clipText(raw.handoffId, LIMITS.idChars)
    : '(none given)';
}

function refused(raw: unknown, problem: string): Judgement {
  const reason = boundedReason(problem);
  return refusal(reason, () => new ApprovalRefusedError(handoffIdOf(raw), reason));
}

/**
 * A refusal whose error is made when asked for: only an update's caller needs it, and an error's
 * stack is the costliest part of refusing a signal, of which thousands may come at once.
 */
function refusal(reason: string, make: () => BatonError): Judgement {
  return new Refusal(reason, make);
}

class Refusal {
  readonly kind = 'refused';
  #made?: BatonError;
  constructor(
    readonly reason: string,
    private readonly make: () => BatonError,
  ) {}

  get error(): BatonError {
    return (this.#made ??= this.make());
  }
}

/** The typed reasons a rejection of `waiting` must give one of: those it was asked with, else the team's. */
function reasonsOf(s: ChainState, waiting: PendingApproval) {
  return waiting.rejectionReasons ?? s.team.rejectionReasons;
}

function approverProblem(waiting: PendingApproval, d: HandoffDecision): string | undefined {
  if (waiting.stages || d.onBehalfOf !== undefined || d.delegation !== undefined) return voteProblem(waiting, d);
  if (!waiting.approvers || waiting.approvers.includes(d.approver)) return undefined;
  return `${d.approver} may not decide this ${waiting.tool ? 'tool call' : 'handoff'} (approvers: ${waiting.approvers.join(', ')})`;
}

function handoffProblem(d: HandoffDecision): string | undefined {
  return d.arguments !== undefined || d.callHash !== undefined
    ? `handoff ${d.handoffId} is not a tool call: "arguments" and "callHash" apply to tool approvals only`
    : undefined;
}

/** Why a decision on a waiting tool call cannot apply: a stale call hash, or edited arguments its schema refuses. */
function toolCallProblem(s: ChainState, waiting: PendingApproval, d: HandoffDecision): string | undefined {
  const call = waiting.tool!;
  if (d.callHash !== undefined && d.callHash !== call.callHash) {
    return `stale decision: it is for call ${d.callHash}, but ${waiting.handoffId} waits for ${call.name}(${call.arguments}) (callHash ${call.callHash})`;
  }
  if (d.arguments === undefined) return undefined;
  if (d.decision !== 'approve') return '"arguments" go with approve only';
  const spec = s.team.agents[waiting.from]?.tools.find((t) => t.name === call.name);
  const problems = spec ? schemaProblems(spec.parameters, d.arguments) : [];
  return problems.length > 0
    ? `the edited arguments do not match the parameters of ${call.name}: ${problems.join('; ')}`
    : undefined;
}
