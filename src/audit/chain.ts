/**
 * The audit chain: a run rebuilt from its workflow history alone (schema `baton.audit/v1`). Every
 * event names the history event it was read from (`runId`, `eventId`) and carries its time (`at`),
 * and the events are listed in history order: a tool call that waited for approval shows after
 * the approval was asked and decided, where it ran.
 */
import type { ApprovalRecord, PendingApproval } from '../common/approvals';
import { REPLAY_OF_MEMO, TEAM_MEMO } from '../common/messages';
import type { HandoffRunInput, RecordHandoffInput } from '../common/run';
import type { Payload } from '@temporalio/common';
import { fromOutsidePayloads, fromPayload, fromPayloads, type HistoryEvent } from '../payloads/read';
import { childEnd, runEnd } from './ending';
import { causeName, isRoutine } from './taskFailures';
import { ActivityReader } from './activityEvents';
import { recordedApprovalEvent, recordedHandoff, recordedStartInput, withLocalActivities } from './history';
import { liveRecordOf } from './live';
import { Placement, whereOf, type Where } from './place';
import { redactAudit } from './redact';
import { TurnReader } from './turns';
import { AUDIT_SCHEMA, type AuditChain, type AuditEvent, type RunHistory } from './types';

export { AUDIT_SCHEMA, HandoffRequestOutcome } from './types';
export type {
  AnsweredBy,
  AuditChain,
  AuditEvent,
  AuditStatus,
  Execution,
  HandoffRequestedEvent,
  ModelTurnEvent,
  RunHistory,
  ToolCallEvent,
} from './types';

/** Rebuild the chain from the histories of its runs, oldest first, with its sensitive tool arguments and results redacted. */
export function buildAudit(workflowId: string, runs: RunHistory[]): AuditChain {
  const chain: AuditChain = {
    schema: AUDIT_SCHEMA,
    workflowId,
    runIds: runs.map((r) => r.runId),
    status: 'running',
    events: [],
    handoffs: [],
    lineage: [],
  };
  const placement = new Placement();
  const turns = new TurnReader({
    add: (e, where) => chain.events.push(placement.place(e, where)),
    move: (e, where) => placement.place(e, where),
    team: () => chain.team,
  });
  for (const run of runs) new RunReader(chain, run.runId, turns, placement).read(withLocalActivities(run.events));
  chain.events = placement.sorted(chain.events);
  // The team's sensitive tool arguments and results never leave the audit (history keeps them).
  return redactAudit(chain);
}

type Delegation = Extract<AuditEvent, { kind: 'delegation' }>;

/** Reads one run's events into the chain. */
class RunReader {
  private activities!: ActivityReader;
  private readonly children = new Map<string, Delegation>();

  constructor(
    private readonly chain: AuditChain,
    private readonly runId: string,
    private readonly turns: TurnReader,
    private readonly placement: Placement,
  ) {}

  read(events: HistoryEvent[]): void {
    this.activities = new ActivityReader(this.chain, this.turns, this.placement, (w, ev) => this.push(w, ev), events);
    for (const e of events) this.onEvent(e);
    // The last workflow task failed, and the tasks after it (retries in progress) did not finish.
    const last = [...events]
      .reverse()
      .find(
        (e) =>
          !e.workflowTaskScheduledEventAttributes &&
          !e.workflowTaskStartedEventAttributes &&
          !e.workflowTaskTimedOutEventAttributes,
      );
    const failed = last?.workflowTaskFailedEventAttributes;
    if (last && failed && !failed.baseRunId && !isRoutine(failed.cause) && this.chain.status === 'running') {
      this.chain.stuck = {
        since: whereOf(last, this.runId).at,
        error: failed.failure?.message ?? 'workflow task failed',
      };
    } else delete this.chain.stuck;
  }

  /** A new event, read from the history event at `where`. */
  private push<E extends Record<string, unknown> & { kind: string }>(where: Where, event: E): E & Where {
    const placed = this.placement.place(event, where);
    this.chain.events.push(placed as unknown as AuditEvent);
    return placed;
  }

  private onEvent(e: HistoryEvent): void {
    const where = whereOf(e, this.runId);
    const handoff = recordedHandoff(e);
    if (handoff) this.onHandoff(handoff, where);
    const started = e.workflowExecutionStartedEventAttributes;
    if (started) this.onStarted(recordedStartInput(started.input), where, started.memo?.fields?.[REPLAY_OF_MEMO]);
    else if (this.activities.read(e, where)) return;
    else if (e.workflowPropertiesModifiedEventAttributes) this.onApprovalEvent(e, where);
    else if (e.startChildWorkflowExecutionInitiatedEventAttributes) this.onChildStarted(e, where);
    else if (childEnd(e)) this.onChildEnded(e, where);
    else if (e.workflowTaskFailedEventAttributes) this.onTaskFailed(e, where);
    else if (e.workflowExecutionSignaledEventAttributes) {
      const s = e.workflowExecutionSignaledEventAttributes;
      this.push(where, { kind: 'signal', name: s.signalName ?? '', input: fromOutsidePayloads(s.input) });
    } else if (e.workflowExecutionUpdateAcceptedEventAttributes) {
      const req = e.workflowExecutionUpdateAcceptedEventAttributes.acceptedRequest?.input;
      this.push(where, { kind: 'update', name: req?.name ?? '', input: fromOutsidePayloads(req?.args) });
    } else this.onClosed(e, where);
  }

  private onStarted(input: HandoffRunInput | undefined, where: Where, replayMemo?: Payload | null): void {
    const origin = input?.resume?.replayOf; // A replay that resumed from rebuilt state: its chain is the one it carries (the run it replays may have gone past it).
    // A chain that ended before its first step, started again from its input: its memo names the run it replays.
    const afresh = !input?.resume && replayMemo ? fromPayload<{ runId: string; from: string }>(replayMemo) : undefined;
    if (afresh)
      this.chain.lineage.push({
        runId: this.runId,
        replayedFrom: afresh.runId,
        reason: `baton replay from ${afresh.from}`,
        at: where.at,
      });
    if (origin) {
      this.chain.handoffs.splice(0, this.chain.handoffs.length, ...input!.resume!.chain);
      this.chain.lineage.push({
        runId: this.runId,
        replayedFrom: origin.runId,
        reason: `baton replay from ${origin.from}`,
        at: where.at,
      });
      Object.assign(this.chain, { team: input!.resume!.team, status: 'running' });
      for (const ended of ['failure', 'closedAt', 'result'] as const) delete this.chain[ended];
    }
    if (input?.resume) this.chain.team ??= input.resume.team;
    this.chain.startedAt ??= where.at;
    if (!input) return;
    const { resume, ...plain } = input;
    this.chain.input ??= plain;
    // The link without the token its caller checks its reports by.
    if (input.parent)
      this.chain.parent ??= {
        workflowId: input.parent.workflowId,
        rootWorkflowId: input.parent.rootWorkflowId,
        depth: input.parent.depth,
        ...(input.parent.team ? { team: input.parent.team } : {}),
      };
    this.push(where, { kind: 'run_started', input: plain });
    if (origin)
      this.push(where, { kind: 'replayed_from', baseRunId: origin.runId, reason: `baton replay from ${origin.from}` });
    if (resume) this.turns.resumed(resume, where, origin !== undefined);
  }

  private onChildStarted(e: HistoryEvent, where: Where): void {
    const init = e.startChildWorkflowExecutionInitiatedEventAttributes!;
    const input = fromPayloads<HandoffRunInput>(init.input);
    const from = [...this.chain.events].reverse().find((x) => x.kind === 'model_turn');
    const event = this.push(where, {
      kind: 'delegation' as const,
      ...(from?.kind === 'model_turn' ? { from: from.agent } : {}),
      to: input?.agent ?? '?',
      childWorkflowId: init.workflowId ?? '',
      task: input?.input ?? '',
      outcome: 'running' as Delegation['outcome'],
    });
    this.children.set(String(e.eventId), event as unknown as Delegation);
  }

  /** A specialist's chain ended: the delegation records how (its summary), and its own event says when. */
  private onChildEnded(e: HistoryEvent, where: Where): void {
    const end = childEnd(e)!;
    const started = this.children.get(end.initiatedId);
    if (!started) return;
    const how = {
      outcome: end.outcome,
      ...(end.outcome === 'completed' ? { output: end.output } : { error: end.error }),
    };
    Object.assign(started, how);
    this.push(where, {
      kind: 'delegation_ended',
      ...(started.from ? { from: started.from } : {}),
      to: started.to,
      childWorkflowId: started.childWorkflowId,
      ...how,
    });
  }

  private onHandoff(entry: RecordHandoffInput, where: Where): void {
    this.turns.handedOff(entry, where);
    this.chain.handoffs.push(entry.handoff);
    this.push(where, {
      kind: 'handoff',
      index: entry.index,
      ...entry.handoff,
      ...(entry.transfer ? { transfer: entry.transfer } : {}),
    });
  }

  private onApprovalEvent(e: HistoryEvent, where: Where): void {
    const team = e.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields?.[TEAM_MEMO];
    const change = team
      ? fromPayloads<{
          change?: { from: string; to: string; by: 'migration' | 'upgrade'; beforeTurn: number; deployment?: string };
        }>({ payloads: [team] })?.change
      : undefined;
    if (change) this.push(where, { kind: 'team_changed', ...change });
    const live = liveRecordOf(e);
    if (live) this.push(where, { kind: 'live', record: live });
    const memo = recordedApprovalEvent(e);
    if (!memo) return;
    const { type, ...rest } = memo;
    if (type === 'approval_requested') this.turns.approvalRequested(rest as unknown as PendingApproval);
    if (type === 'approval_decided') this.turns.approvalDecided(rest as unknown as ApprovalRecord);
    // A control's own `at` is workflow time; the event's place is where history has it.
    const { at: _at, ...fields } = rest;
    this.push(where, { ...fields, kind: type });
  }

  private onTaskFailed(e: HistoryEvent, where: Where): void {
    const f = e.workflowTaskFailedEventAttributes!;
    if (f.baseRunId) {
      const reason = f.failure?.message ?? 'reset';
      this.chain.lineage.push({ runId: this.runId, replayedFrom: f.baseRunId, reason, at: where.at });
      this.push(where, { kind: 'replayed_from', baseRunId: f.baseRunId, reason });
      return this.turns.replayed();
    }
    if (isRoutine(f.cause)) return;
    const cause = f.cause !== undefined && f.cause !== null ? causeName(f.cause) : undefined;
    this.push(where, {
      kind: 'workflow_task_failed',
      ...(cause ? { cause } : {}),
      message: f.failure?.message ?? 'workflow task failed',
    });
  }

  private onClosed(e: HistoryEvent, where: Where): void {
    const end = runEnd(e);
    if (!end) return;
    if (end.failure) this.chain.failure = end.failure;
    if (end.result) this.chain.result = end.result;
    this.chain.status = end.status;
    this.chain.closedAt = where.at;
    if (end.status !== 'continued_as_new') this.turns.runEnded(this.chain.failure);
    if (end.event) this.push(where, end.event);
  }
}
