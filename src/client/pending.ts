/**
 * What `baton.pending()` lists and what a decision takes: a waiting handoff or tool call addressed
 * by its `approvalId`, a tool call's arguments as an object (as decisions take them).
 */
import type { PendingApproval } from '../common/approvals';
import type { ToolCallUnderApproval } from '../common/controls';
import type { SensitiveArguments } from '../common/sensitive';
import { ApprovalRefusedError, UserError } from '../common/errors';

/** A tool call waiting for approval, as `baton.pending()` lists it. */
export interface PendingToolCall extends Omit<ToolCallUnderApproval, 'arguments'> {
  /**
   * The model's arguments as an object, as a decision's `arguments` take them (spread it to change
   * a field: `{...tool.arguments, amount: 200}`); `{}` when the model wrote no JSON object (see
   * `argumentsText`). Sensitive fields show as `"[redacted]"` unless revealed.
   */
  arguments: Record<string, unknown>;
  /** The arguments as the model wrote them (JSON text). */
  argumentsText: string;
}

/** A handoff (or, with `tool`, a tool call) waiting for approval, in some chain. */
export interface PendingHandoff extends Omit<PendingApproval, 'tool'> {
  /** What a decision names it by (the same value as `handoffId`, which stays for the signals' contract). */
  approvalId: string;
  /** Set when a tool call waits rather than a handoff (`from` is the agent, `to` is `tool:<name>`). */
  tool?: PendingToolCall;
  /** The chain it waits in. */
  workflowId: string;
  runId: string;
  /** When that chain is a specialist: the chain it works for, and the top of the tree. */
  parentWorkflowId?: string;
  rootWorkflowId?: string;
  /** Milliseconds since the approval was requested. */
  ageMs: number;
  /** The team version the chain runs on (`support@2026-11-24`), when its snapshot has one. */
  team?: string;
  /**
   * Set when a tool call waits whose tool declares sensitive arguments: which, and whether
   * `tool.arguments` (and `message`) show their real values or `"[redacted]"` in their place.
   */
  sensitive?: SensitiveArguments;
}

/** Who decides, and what they add. */
export interface DecisionOptions {
  /**
   * Which waiting handoff or tool call, by its `approvalId` (`baton.pending()`, the `pendingApprovals`
   * query); needed only when several wait in the chain.
   */
  approvalId?: string;
  /** The same as `approvalId`, its former name. */
  handoffId?: string;
  approver: string;
  /** With an approval. */
  comment?: string;
  /** With a rejection. */
  reason?: string;
  /**
   * Tool approvals only, with an approval: run the call with these arguments instead of the
   * model's: the whole object (the run checks it against the tool's parameters and refuses the
   * decision, naming the problems, when it does not match). To change a field, spread the waiting
   * call's: `{...waiting.tool.arguments, amount: 200}`.
   * @example await baton.approve(workflowId, { approvalId, approver: 'alice', arguments: { orderId: 'A1', amount: 200 } })
   */
  arguments?: Record<string, unknown>;
  /**
   * Tool approvals only: the `tool.callHash` of the call the approver saw, so a decision meant for
   * another call is refused as stale. Filled from the waiting call when `arguments` are given without it.
   */
  callHash?: string;
}

/**
 * A {@link PendingHandoff} in the workflow's form: found in a chain's memo, its tool arguments as text.
 * @internal
 */
export type WaitingApproval = Omit<PendingHandoff, 'approvalId' | 'tool'> & { tool?: ToolCallUnderApproval };

/** A waiting approval as the workflow keeps it, as `baton.pending()` lists it. */
export function toPendingHandoff(p: WaitingApproval): PendingHandoff {
  const { tool, ...rest } = p;
  return { ...rest, approvalId: p.handoffId, ...(tool ? { tool: pendingToolCall(tool) } : {}) };
}

/** A tool call under approval with its arguments as an object beside their text. */
export function pendingToolCall(tool: ToolCallUnderApproval): PendingToolCall {
  return { ...tool, arguments: argumentsObject(tool.arguments) ?? {}, argumentsText: tool.arguments };
}

/** The JSON object `text` holds, or `undefined` when it holds none. */
export function argumentsObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A listed approval in the workflow's form again (tool arguments as text), for what works on that form. */
export function toWaitingApproval(p: PendingHandoff): WaitingApproval {
  const { tool, approvalId: _id, ...rest } = p;
  if (!tool) return rest;
  const { argumentsText, arguments: _parsed, ...call } = tool;
  return { ...rest, tool: { ...call, arguments: argumentsText } };
}

/** The decision's options, its approval id from either place (and either name), checked to agree. */
export function decisionOf(idOrOptions: string | undefined | DecisionOptions, options: DecisionOptions | undefined): DecisionOptions {
  const given = typeof idOrOptions === 'object' && idOrOptions !== null ? idOrOptions : options;
  if (!given) throw new UserError('a decision needs its options: {approver, comment?, reason?, arguments?}');
  const ids = [typeof idOrOptions === 'string' ? idOrOptions : undefined, given.approvalId, given.handoffId].filter((id): id is string => id !== undefined);
  if (ids.some((id) => typeof id !== 'string' || id === '')) throw new UserError('approvalId must be the id of a waiting approval (baton.pending() lists them)');
  if (new Set(ids).size > 1) throw new UserError(`two different approval ids given (${[...new Set(ids)].join(', ')}): name one`);
  return { ...given, approvalId: ids[0] };
}

/** Whether `value` is a plain object (its prototype Object's or none). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** What a value is, in words for an error. */
export function describeValue(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  if (typeof value === 'object') return `a ${(value as object).constructor?.name ?? 'non-plain'} object`;
  if (typeof value === 'function') return 'a function';
  return `${typeof value} ${JSON.stringify(value)}`;
}

/** The only approval waiting in chain `workflowId`, or a refusal naming them all. */
export function onlyPending(workflowId: string, waiting: PendingApproval[]): string {
  if (waiting.length === 1) return waiting[0]!.handoffId;
  throw new ApprovalRefusedError(
    '(none given)',
    waiting.length === 0
      ? `chain ${workflowId} has no handoff waiting for approval`
      : `chain ${workflowId} has ${waiting.length} waiting approvals; name one: ${waiting.map((w) => `${w.handoffId} (${w.from} → ${w.to})`).join(', ')}`,
  );
}
