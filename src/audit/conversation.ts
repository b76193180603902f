/**
 * A conversation rebuilt from its workflow history alone, across continue-as-new runs: each turn
 * with its message, its answer (or failure), the handoffs and approvals it had and the calls it
 * made; the compactions; how it ended. Schema `baton.conversation-audit/v1`.
 */
import type { Client } from '@temporalio/client';
import { isRecord } from '../common/check';
import type {
  ConversationEvent,
  ConversationInput,
  ConversationResult,
  SendMessageInput,
  TurnEndedRecord,
  TurnStartedRecord,
} from '../common/conversation';
import { ActivityType, CONVERSATION_EVENT_MEMO, sendMessageUpdate, TURN_MEMO } from '../common/messages';
import type { HandoffRecord } from '../common/run';
import { decodeHistory } from '../payloads/history';
import { historyOf } from '../payloads/historyPages';
import { fromOutsidePayloads, fromPayload, fromPayloads, type HistoryEvent } from '../payloads/read';
import type { LiveRecord } from '../common/live';
import { liveRecordOf } from './live';
import { activityName, recordedApprovalEvent, recordedHandoff } from './history';
import { whereOf, type Where } from './place';
import type { AuditEvent, AuditStatus, RunHistory } from './types';

/** Version tag of the conversation audit JSON. */
export const CONVERSATION_AUDIT_SCHEMA = 'baton.conversation-audit/v1';

/** An approval step of a turn: asked for, decided, or a decision refused. */
export type TurnApproval = { kind: string; at: string; handoffId?: string } & Record<string, unknown>;

/**
 * What happened in a turn besides its model and tool calls, in history order, as the chain audit
 * records it (`runId`, `eventId` and `at` name the history event): approvals asked and decided,
 * decisions refused, handoffs, and what controls did.
 */
export type TurnStep = Extract<
  AuditEvent,
  { kind: 'handoff' | 'approval_requested' | 'approval_decided' | 'decision_refused' | 'control' | 'policy_updated' }
>;

/**
 * A team policy applied to the running conversation (`tightenPolicy`), as the chain audit records
 * it (with the policy as applied), placed among its turns: `duringTurn` when a turn was being
 * answered, else `afterTurn` (the turns started before it; 0 before the first).
 */
export type PolicyUpdateAudit = Extract<AuditEvent, { kind: 'policy_updated' }> & {
  policy?: unknown;
  afterTurn: number;
  duringTurn?: number;
};

const APPROVAL_KINDS = ['approval_requested', 'approval_decided', 'decision_refused'];

/** One message of a conversation and what became of it. */
export interface ConversationTurnAudit {
  turn: number;
  message?: string;
  idempotencyKey: string;
  /** `answering`: history ends before its answer (a running conversation, or one that ended meanwhile). */
  status: 'answering' | 'answered' | 'failed';
  /** The agent the message went to. */
  agent: string;
  /** The agent that answered: the active agent after the turn. */
  answeredBy?: string;
  output?: unknown;
  failure?: { type: string; message: string };
  handoffs: HandoffRecord[];
  approvals: TurnApproval[];
  /** Approvals, handoffs and controls, in the order they happened. */
  steps: TurnStep[];
  modelCalls: number;
  toolCalls: number;
  startedAt: string;
  answeredAt?: string;
  /** The runs the turn spanned (more than one when the conversation continued as new during it). */
  runIds: string[];
  /** Set when a step of the turn was refused for its team: the turn waited for a worker of it (or a migration). */
  stranded?: Omit<Extract<ConversationEvent, { type: 'turn_stranded' }>, 'type' | 'turn'>;
}

/** A compaction of the active agent's conversation. */
export type CompactionAudit = Omit<Extract<ConversationEvent, { type: 'compacted' }>, 'type'>;

/** A new team snapshot between turns: "team support@v1 → support@v2 before turn 7". */
export type TeamChangeAudit = Omit<Extract<ConversationEvent, { type: 'team_changed' }>, 'type'>;

/** A conversation as its history tells it. */
export interface ConversationAudit {
  schema: typeof CONVERSATION_AUDIT_SCHEMA;
  workflowId: string;
  /** Oldest first. */
  runIds: string[];
  status: AuditStatus;
  startedAt?: string;
  closedAt?: string;
  /** The agent it started at. */
  agent?: string;
  turns: ConversationTurnAudit[];
  /** Messages taken but not yet started, in arrival order. */
  waiting: { message: string; idempotencyKey?: string; at: string }[];
  compactions: CompactionAudit[];
  /** The team versions it went on with between turns, in order. */
  teamChanges: TeamChangeAudit[];
  /** The policy updates applied to it, in history order (those during a turn are among that turn's steps too). */
  policyUpdates: PolicyUpdateAudit[];
  /** Steering messages applied, interrupts, what mid-turn policies did to messages, hand-backs: in history order. */
  live: LiveRecord[];
  result?: ConversationResult;
  failure?: { type?: string; message: string };
}

/** Fetch a conversation's history, following continue-as-new back to its first run, and rebuild it. */
export async function auditConversation(client: Client, workflowId: string): Promise<ConversationAudit> {
  const runs: RunHistory[] = [];
  let runId: string | undefined = (await client.workflow.getHandle(workflowId).describe()).runId;
  while (runId && !runs.some((r) => r.runId === runId)) {
    const fetched = await historyOf(client, workflowId, runId);
    const events = (await decodeHistory(fetched, client.options.loadedDataConverter.payloadCodecs)).events ?? [];
    runs.unshift({ runId, events });
    runId = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  }
  return buildConversationAudit(workflowId, runs);
}

/** Rebuild a conversation from the histories of its runs, oldest first. */
export function buildConversationAudit(workflowId: string, runs: RunHistory[]): ConversationAudit {
  const audit: ConversationAudit = {
    schema: CONVERSATION_AUDIT_SCHEMA,
    workflowId,
    runIds: runs.map((r) => r.runId),
    status: 'running',
    turns: [],
    waiting: [],
    compactions: [],
    teamChanges: [],
    policyUpdates: [],
    live: [],
  };
  const accepted = new Map<string, { message: string; idempotencyKey?: string; at: string }>();
  const started = new Set<string>();
  let current: ConversationTurnAudit | undefined;
  for (const { runId, events } of runs) {
    for (const e of events) {
      const where = whereOf(e, runId);
      const at = where.at;
      const start = e.workflowExecutionStartedEventAttributes;
      if (start) {
        const read = fromOutsidePayloads(start.input);
        const input =
          isRecord(read) && typeof read.agent === 'string' ? (read as unknown as ConversationInput) : undefined;
        audit.agent ??= input?.agent;
        audit.startedAt ??= at;
        for (const m of [...(input?.resume?.current ? [input.resume.current] : []), ...(input?.resume?.queued ?? [])]) {
          if (m.updateId && !accepted.has(m.updateId))
            accepted.set(m.updateId, { message: m.message, idempotencyKey: m.idempotencyKey, at });
        }
        if (current && !current.runIds.includes(runId)) current.runIds.push(runId);
      }
      const update = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest;
      if (update?.input?.name === sendMessageUpdate.name && update.meta?.updateId) {
        const read = fromOutsidePayloads(update.input.args);
        const m =
          isRecord(read) && typeof read.message === 'string' ? (read as unknown as SendMessageInput) : undefined;
        if (m)
          accepted.set(update.meta.updateId, {
            message: m.message,
            ...(m.idempotencyKey ? { idempotencyKey: m.idempotencyKey } : {}),
            at,
          });
      }
      const fields = e.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields;
      const turnMemo = fields?.[TURN_MEMO]
        ? fromPayload<TurnStartedRecord | TurnEndedRecord>(fields[TURN_MEMO])
        : undefined;
      if (turnMemo?.phase === 'started') {
        if (turnMemo.updateId) started.add(turnMemo.updateId);
        const message = turnMemo.updateId ? accepted.get(turnMemo.updateId)?.message : undefined;
        current = {
          turn: turnMemo.turn,
          ...(message !== undefined ? { message } : {}),
          idempotencyKey: turnMemo.idempotencyKey,
          status: 'answering',
          agent: turnMemo.agent,
          handoffs: [],
          approvals: [],
          steps: [],
          modelCalls: 0,
          toolCalls: 0,
          startedAt: turnMemo.at,
          runIds: [runId],
        };
        audit.turns.push(current);
      } else if (turnMemo && current) {
        Object.assign(current, { status: turnMemo.phase, answeredAt: turnMemo.at });
        if (turnMemo.reply) Object.assign(current, { answeredBy: turnMemo.reply.agent, output: turnMemo.reply.output });
        if (turnMemo.failure) current.failure = turnMemo.failure;
        current = undefined;
      }
      const event = fields?.[CONVERSATION_EVENT_MEMO]
        ? fromPayload<ConversationEvent>(fields[CONVERSATION_EVENT_MEMO])
        : undefined;
      if (event?.type === 'compacted') {
        const { type: _t, ...compaction } = event;
        audit.compactions.push(compaction);
      }
      if (event?.type === 'team_changed') {
        const { type: _t, ...change } = event;
        audit.teamChanges.push(change);
      }
      if (event?.type === 'turn_stranded' && current?.turn === event.turn) {
        const { type: _t, turn: _n, ...stranded } = event;
        current.stranded = stranded;
      }
      const live = liveRecordOf(e);
      if (live) audit.live.push(live);
      const policy = policyUpdateOf(e, where);
      if (policy)
        audit.policyUpdates.push({
          ...policy,
          afterTurn: audit.turns.at(-1)?.turn ?? 0,
          ...(current ? { duringTurn: current.turn } : {}),
        });
      if (current) onTurnEvent(current, e, where);
      closing(audit, e, at);
    }
  }
  const known = new Set(audit.turns.map((t) => t.idempotencyKey));
  audit.waiting = [...accepted.entries()]
    .filter(([id, m]) => !started.has(id) && !(m.idempotencyKey && known.has(m.idempotencyKey)))
    .map(([, m]) => m);
  return audit;
}

/** What an event adds to the turn in progress: a call, a handoff, an approval step, a control's act. */
function onTurnEvent(turn: ConversationTurnAudit, e: HistoryEvent, where: Where): void {
  const name = activityName(e);
  if (name === ActivityType.CALL_MODEL) turn.modelCalls += 1;
  else if (name === ActivityType.RUN_TOOL) turn.toolCalls += 1;
  const handoff = recordedHandoff(e);
  if (handoff) {
    turn.handoffs.push(handoff.handoff);
    turn.steps.push({ ...where, kind: 'handoff', index: handoff.index, ...handoff.handoff });
  }
  const approval = recordedApprovalEvent(e);
  if (!approval) return;
  const { type, at: _at, ...rest } = approval;
  if (APPROVAL_KINDS.includes(type)) turn.approvals.push({ kind: type, at: where.at, ...rest });
  if (APPROVAL_KINDS.includes(type) || type === 'control' || type === 'policy_updated')
    turn.steps.push({ ...where, ...rest, kind: type } as TurnStep);
}

/** The policy update history event `e` records, placed where history has it (its own `at` is workflow time). */
function policyUpdateOf(e: HistoryEvent, where: Where): Extract<AuditEvent, { kind: 'policy_updated' }> | undefined {
  const recorded = recordedApprovalEvent(e);
  if (recorded?.type !== 'policy_updated') return undefined;
  const { type: _type, at: _at, ...fields } = recorded;
  return { ...where, ...fields, kind: 'policy_updated' } as Extract<AuditEvent, { kind: 'policy_updated' }>;
}

function closing(audit: ConversationAudit, e: HistoryEvent, at: string): void {
  const close = (status: AuditStatus) => {
    audit.status = status;
    audit.closedAt = at;
  };
  if (e.workflowExecutionCompletedEventAttributes) {
    close('completed');
    audit.result = fromPayloads<ConversationResult>(e.workflowExecutionCompletedEventAttributes.result);
  } else if (e.workflowExecutionFailedEventAttributes) {
    const f = e.workflowExecutionFailedEventAttributes.failure;
    close('failed');
    audit.failure = { type: f?.applicationFailureInfo?.type ?? undefined, message: f?.message ?? 'failed' };
  } else if (e.workflowExecutionContinuedAsNewEventAttributes) close('continued_as_new');
  else if (e.workflowExecutionCanceledEventAttributes) close('cancelled');
  else if (e.workflowExecutionTerminatedEventAttributes) close('terminated');
  else if (e.workflowExecutionTimedOutEventAttributes) close('timed_out');
  else if (e.workflowExecutionStartedEventAttributes) audit.status = 'running';
}
