/**
 * What a workflow activation did, read from the commands it sends to Temporal: handoffs, approval
 * events of handoffs and tool calls, what the controls did (memo upserts), and how the chain ended. The telemetry interceptors that run in
 * the workflow sandbox use it, so it imports only workflow-safe modules.
 */
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import type { coresdk } from '@temporalio/proto';
import type { ApprovalRecord, PendingApproval } from '../../src/common/approvals';
import type { ControlEvent } from '../../src/common/controls';
import { APPROVAL_EVENT_MEMO, HANDOFF_MEMO } from '../../src/common/messages';
import type { RecordHandoffInput } from '../../src/common/run';
import { BREAKER_MEMO, type BreakerView } from '../../src/common/economics/messages';
import type { ActionCounts } from './actionFacts';

/** One thing a chain did in an activation, as telemetry reports it. */
export type ChainFact =
  | { kind: 'handoff'; from: string; to: string; index: number; turn: number; approver?: string }
  /** `tool` is set when a tool call, not a handoff, asked for approval. */
  | { kind: 'approval_requested'; from: string; to: string; handoffId: string; tool?: string }
  | {
      kind: 'approval_decided';
      outcome: ApprovalRecord['outcome'];
      via: ApprovalRecord['via'];
      waitedMs: number;
      approver?: string;
      handoffId: string;
      tool?: string;
    }
  /** A control acted: a loop, a circuit breaker, a guardrail or a budget. */
  | { kind: 'control'; control: ControlEvent }
  | { kind: 'ended'; outcome: 'completed' | 'failed' | 'cancelled'; errorType?: string }
  /** A shared circuit breaker's state changed (its `batonBreaker` memo). */
  | { kind: 'breaker'; view: Pick<BreakerView, 'scope' | 'target' | 'state' | 'failures'> }
  /** The Temporal Cloud actions the activation caused (see actionFacts.ts). */
  | { kind: 'actions'; counts: ActionCounts };

type Command = coresdk.workflow_commands.IWorkflowCommand;

/** The facts the commands of one activation carry, in command order. */
export function chainFacts(commands: readonly Command[]): ChainFact[] {
  return commands.flatMap(factsOf);
}

function factsOf(command: Command): ChainFact[] {
  const memo = command.modifyWorkflowProperties?.upsertedMemo?.fields;
  if (memo)
    return [
      ...handoffFact(memo[HANDOFF_MEMO]),
      ...approvalFact(memo[APPROVAL_EVENT_MEMO]),
      ...breakerFact(memo[BREAKER_MEMO]),
    ];
  if (command.completeWorkflowExecution) return [{ kind: 'ended', outcome: 'completed' }];
  if (command.failWorkflowExecution) {
    const type = command.failWorkflowExecution.failure?.applicationFailureInfo?.type;
    return [{ kind: 'ended', outcome: 'failed', errorType: type || 'Error' }];
  }
  if (command.cancelWorkflowExecution) return [{ kind: 'ended', outcome: 'cancelled' }];
  return [];
}

function handoffFact(payload: Payload | undefined): ChainFact[] {
  const record = read<RecordHandoffInput>(payload);
  if (!record?.handoff) return [];
  const { handoff, index } = record;
  const approver = handoff.approval?.approver;
  return [
    {
      kind: 'handoff',
      from: handoff.from,
      to: handoff.to,
      index,
      turn: handoff.turn,
      ...(approver ? { approver } : {}),
    },
  ];
}

function approvalFact(payload: Payload | undefined): ChainFact[] {
  const event = read<{ type: string } & Record<string, unknown>>(payload);
  if (event?.type === 'approval_requested') {
    const p = event as unknown as PendingApproval;
    return [
      {
        kind: 'approval_requested',
        from: p.from,
        to: p.to,
        handoffId: p.handoffId,
        ...(p.tool ? { tool: p.tool.name } : {}),
      },
    ];
  }
  if (event?.type === 'approval_decided') {
    const d = event as unknown as ApprovalRecord;
    const waitedMs = Math.max(0, Date.parse(d.decidedAt) - Date.parse(d.requestedAt)) || 0;
    return [
      {
        kind: 'approval_decided',
        outcome: d.outcome,
        via: d.via,
        waitedMs,
        handoffId: d.handoffId,
        ...(d.approver ? { approver: d.approver } : {}),
        ...(d.tool ? { tool: d.tool } : {}),
      },
    ];
  }
  if (event?.type === 'control' && typeof event.control === 'string') {
    // The memo names the control's kind `control` (its `type` is the memo event's); `at` is when.
    const { type: _type, control, at: _at, ...fields } = event;
    return [{ kind: 'control', control: { kind: control, ...fields } as ControlEvent }];
  }
  return [];
}

function breakerFact(payload: Payload | undefined): ChainFact[] {
  const v = read<BreakerView>(payload);
  return v?.target
    ? [{ kind: 'breaker', view: { scope: v.scope, target: v.target, state: v.state, failures: v.failures } }]
    : [];
}

function read<T>(payload: Payload | undefined | null): T | undefined {
  if (!payload) return undefined;
  try {
    return defaultPayloadConverter.fromPayload(payload) as T;
  } catch {
    // A payload this converter cannot read (a custom converter) is left out of telemetry, not fatal.
    return undefined;
  }
}
