/**
 * What `baton.pending()` lists and what a decision takes: a waiting handoff or tool call addressed
 * by its `approvalId`, a tool call's arguments as an object (as decisions take them).
 */
import type { DecisionSigner } from './signing/signer';
import type { PendingApproval } from '../common/approvals';
import type { ToolCallUnderApproval } from '../common/controls';
import type { SensitiveArguments } from '../common/sensitive';

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
  /** The tenant the chain belongs to (its `BatonTenant`), when it has one. */
  tenant?: string;
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
  /**
   * Sign the decision with the approver's key: the workflow verifies the signature against the
   * keys the team or the run trusts, and records it (docs/signatures.md).
   * @example await baton.approve(workflowId, { approvalId, approver: 'alice', signer: decisionSignerFromFile('alice.jwk') })
   */
  signer?: DecisionSigner;
  /** A signature made elsewhere (a JWS over this decision's payload), sent as it is; not with `signer`. */
  signature?: string;
  /**
   * Quorum and staged approvals: decide for this approver's slot instead of one's own, with
   * `delegation`, the grant that gives `approver` that slot; recorded as "approver for onBehalfOf".
   */
  onBehalfOf?: string;
  /**
   * With `onBehalfOf`: the delegation grant (a JWS signed by the slot's owner or an operator,
   * `signDelegation`), checked by the chain against the keys it trusts (docs/approvals.md, "Delegation").
   * @example await baton.approve(workflowId, { approvalId, approver: 'bob', onBehalfOf: 'alice', delegation: grant })
   */
  delegation?: string;
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
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
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
