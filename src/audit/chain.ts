/**
 * The audit chain: a run rebuilt from its workflow history alone (schema `baton.audit/v1`).
 */
import { temporal } from '@temporalio/proto';
import type { ApprovalRecord } from '../common/approvals';
import { ActivityType } from '../common/messages';
import type { CallModelInput, ModelResponse } from '../common/model';
import type { HandoffRunInput, HandoffRunResult, RecordHandoffInput } from '../common/run';
import type { RunToolInput, RunToolResult, TeamSpec } from '../common/team';
import { fromPayloads, type HistoryEvent } from '../payloads/read';
import { lostWorkerRestarts, recordedApprovalEvent, recordedHandoff, withLocalActivities } from './history';
import { redactAudit } from './redact';
import { TurnReader } from './turns';
import { AUDIT_SCHEMA, type AuditChain, type AuditEvent, type AuditStatus, type Execution, type RunHistory } from './types';

export { AUDIT_SCHEMA, HandoffRequestOutcome } from './types';
export type { AnsweredBy, AuditChain, AuditEvent, AuditStatus, Execution, HandoffRequestedEvent, ModelTurnEvent, RunHistory, ToolCallEvent } from './types';

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
  const turns = new TurnReader({ push: (e) => chain.events.push(e), team: () => chain.team });
  for (const run of runs) new RunReader(chain, run.runId, turns).read(withLocalActivities(run.events));
  // The team's sensitive tool arguments and results never leave the audit (history keeps them).
  return redactAudit(chain);
}

function timeOf(e: HistoryEvent): number {
  const t = e.eventTime;
  return t ? Number(t.seconds?.toString() ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6) : 0;
}

const iso = (ms: number) => new Date(ms).toISOString();

type ExecutedEvent = Extract<AuditEvent, { execution?: Execution }>;

interface Scheduled {
  name: string;
  input: unknown;
  at: number;
  event?: ExecutedEvent;
  /** Attempts of the call's earlier starts, when this start is a restart after a lost worker. */
  earlierAttempts?: number;
}

/** Workflow task failures that are Temporal's routine, not a problem of the run. */
const ROUTINE_TASK_FAILURES = ['WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND', 'WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW'];

/** Reads one run's events into the chain. */
class RunReader {
  private readonly scheduled = new Map<string, Scheduled>();
  /** Restarts after a lost worker: the scheduled event id of each, and of the start it repeats. */
  private restarts = new Map<string, string>();

  constructor(
    private readonly chain: AuditChain,
    private readonly runId: string,
    private readonly turns: TurnReader,
  ) {}

  read(events: HistoryEvent[]): void {
    this.restarts = lostWorkerRestarts(events);
    for (const e of events) this.onEvent(e);
    // The last workflow task failed, and the tasks after it (retries in progress) did not finish.
    const last = [...events].reverse().find((e) => !e.workflowTaskScheduledEventAttributes && !e.workflowTaskStartedEventAttributes && !e.workflowTaskTimedOutEventAttributes);
    const failed = last?.workflowTaskFailedEventAttributes;
    if (last && failed && !failed.baseRunId && !isRoutine(failed.cause) && this.chain.status === 'running') {
      this.chain.stuck = { since: iso(timeOf(last)), error: failed.failure?.message ?? 'workflow task failed' };
    } else delete this.chain.stuck;
  }

  private push(at: number, event: Record<string, unknown> & { kind: string }): void {
    this.chain.events.push({ at: iso(at), runId: this.runId, ...event } as AuditEvent);
  }

  private where(at: number) {
    return { at: iso(at), runId: this.runId };
  }

  private onEvent(e: HistoryEvent): void {
    const at = timeOf(e);
    const handoff = recordedHandoff(e);
    if (handoff) this.onHandoff(handoff, at);
    if (e.workflowExecutionStartedEventAttributes) this.onStarted(fromPayloads<HandoffRunInput>(e.workflowExecutionStartedEventAttributes.input), at);
    else if (e.activityTaskScheduledEventAttributes) this.onScheduled(e, at);
    else if (e.activityTaskStartedEventAttributes) {
      const s = this.scheduled.get(String(e.activityTaskStartedEventAttributes.scheduledEventId));
      if (s?.event?.execution) Object.assign(s.event.execution, { status: 'running', attempts: (s.earlierAttempts ?? 0) + (e.activityTaskStartedEventAttributes.attempt ?? 1) });
    } else if (e.activityTaskCompletedEventAttributes) {
      const c = e.activityTaskCompletedEventAttributes;
      this.onCompleted(String(c.scheduledEventId), fromPayloads(c.result), at);
    } else if (e.activityTaskFailedEventAttributes) {
      const f = e.activityTaskFailedEventAttributes;
      this.onEnded(String(f.scheduledEventId), 'failed', at, f.failure?.cause?.message ?? f.failure?.message ?? 'failed');
    } else if (e.activityTaskTimedOutEventAttributes) {
      const f = e.activityTaskTimedOutEventAttributes;
      this.onEnded(String(f.scheduledEventId), 'timed_out', at, f.failure?.message ?? 'timed out');
    } else if (e.activityTaskCanceledEventAttributes) {
      this.onEnded(String(e.activityTaskCanceledEventAttributes.scheduledEventId), 'cancelled', at, 'cancelled');
    } else if (e.workflowPropertiesModifiedEventAttributes) this.onApprovalEvent(e, at);
    else if (e.startChildWorkflowExecutionInitiatedEventAttributes || e.childWorkflowExecutionStartedEventAttributes) this.onChildStarted(e, at);
    else if (childEnd(e)) this.onChildEnded(e);
    else if (e.workflowTaskFailedEventAttributes) this.onTaskFailed(e, at);
    else if (e.workflowExecutionSignaledEventAttributes) {
      const s = e.workflowExecutionSignaledEventAttributes;
      this.push(at, { kind: 'signal', name: s.signalName ?? '', input: fromPayloads(s.input) });
    } else if (e.workflowExecutionUpdateAcceptedEventAttributes) {
      const req = e.workflowExecutionUpdateAcceptedEventAttributes.acceptedRequest?.input;
      this.push(at, { kind: 'update', name: req?.name ?? '', input: fromPayloads(req?.args) });
    } else this.onClosed(e, at);
  }

  private onStarted(input: HandoffRunInput | undefined, at: number): void {
    const origin = input?.resume?.replayOf;
    if (origin && this.chain.events.length === 0) {
      // A replay that resumed from rebuilt state: the chain before it happened in the run it continues.
      this.chain.handoffs.push(...input!.resume!.chain);
      this.chain.lineage.push({ runId: this.runId, replayedFrom: origin.runId, reason: `baton replay from ${origin.from}`, at: iso(at) });
    }
    if (input?.resume) this.chain.team ??= input.resume.team;
    this.chain.startedAt ??= iso(at);
    if (!input) return;
    const { resume, ...plain } = input;
    this.chain.input ??= plain;
    // The link without the token its caller checks its reports by.
    if (input.parent) this.chain.parent ??= { workflowId: input.parent.workflowId, rootWorkflowId: input.parent.rootWorkflowId, depth: input.parent.depth };
    this.push(at, { kind: 'run_started', input: plain });
    if (origin) this.push(at, { kind: 'replayed_from', baseRunId: origin.runId, reason: `baton replay from ${origin.from}` });
    if (resume) this.turns.resumed(resume, this.where(at));
  }

  private onScheduled(e: HistoryEvent, at: number): void {
    if (this.onRestart(e)) return;
    const s = e.activityTaskScheduledEventAttributes!;
    const name = s.activityType?.name ?? '';
    const input = fromPayloads(s.input);
    const entry: Scheduled = { name, input, at };
    const execution: Execution = { status: 'scheduled', attempts: 0 };
    if (name === ActivityType.CALL_MODEL) {
      const i = input as CallModelInput;
      this.turns.modelCalled(i, this.where(at));
      entry.event = { kind: 'model_turn', agent: i.agentId, model: i.model.model, execution, ...this.where(at) };
      this.chain.events.push(entry.event);
    } else if (name === ActivityType.RUN_TOOL) {
      const i = input as RunToolInput;
      const asked = this.turns.toolScheduled(i.agentId, i.call);
      entry.event = asked;
      if (asked) {
        asked.execution = execution;
        // An approver may have edited the call: the audit shows what ran, beside what the model asked for.
        if (i.call.arguments !== asked.arguments) Object.assign(asked, { requestedArguments: asked.arguments, arguments: i.call.arguments });
      } else {
        entry.event = { kind: 'tool_call', agent: i.agentId, tool: i.call.name, arguments: i.call.arguments, answeredBy: 'tool', execution, ...this.where(at) };
        this.chain.events.push(entry.event);
      }
    } else if (name === ActivityType.LOAD_TEAM) {
      entry.event = { kind: 'team_snapshot', agents: [], execution, ...this.where(at) };
      this.chain.events.push(entry.event);
    }
    this.scheduled.set(String(e.eventId), entry);
  }

  /** A call started again after a lost worker: its event goes on, with the restart counted. */
  private onRestart(e: HistoryEvent): boolean {
    const first = this.scheduled.get(this.restarts.get(String(e.eventId)) ?? '');
    const execution = first?.event?.execution;
    if (!first || !execution) return false;
    delete execution.error;
    Object.assign(execution, { status: 'scheduled', lostWorkers: (execution.lostWorkers ?? 0) + 1 });
    this.scheduled.set(String(e.eventId), { ...first, earlierAttempts: execution.attempts });
    return true;
  }

  private readonly children = new Map<string, Extract<AuditEvent, { kind: 'delegation' }>>();

  private onChildStarted(e: HistoryEvent, at: number): void {
    const init = e.startChildWorkflowExecutionInitiatedEventAttributes;
    if (!init) return;
    const input = fromPayloads<HandoffRunInput>(init.input);
    const childWorkflowId = init.workflowId ?? '';
    const from = [...this.chain.events].reverse().find((x) => x.kind === 'model_turn');
    const event = {
      ...this.where(at),
      kind: 'delegation' as const,
      ...(from?.kind === 'model_turn' ? { from: from.agent } : {}),
      to: input?.agent ?? '?',
      childWorkflowId,
      task: input?.input ?? '',
      outcome: 'running' as const,
    };
    this.children.set(String(e.eventId), event);
    this.chain.events.push(event);
  }

  private onChildEnded(e: HistoryEvent): void {
    const [initiatedId, outcome, details] = childEnd(e)!;
    const event = this.children.get(initiatedId);
    if (!event) return;
    event.outcome = outcome;
    if (outcome === 'completed') event.output = fromPayloads<HandoffRunResult<unknown>>(details as never)?.output;
    else if (typeof details === 'string') event.error = details;
  }

  private onHandoff(entry: RecordHandoffInput, at: number): void {
    this.turns.handedOff(entry);
    this.chain.handoffs.push(entry.handoff);
    this.push(at, { kind: 'handoff', index: entry.index, ...entry.handoff, ...(entry.transfer ? { transfer: entry.transfer } : {}) });
  }

  private onApprovalEvent(e: HistoryEvent, at: number): void {
    const memo = recordedApprovalEvent(e);
    if (!memo) return;
    const { type, ...rest } = memo;
    if (type === 'approval_requested') this.turns.approvalRequested(rest as { handoffId: string; to: string });
    if (type === 'approval_decided') this.turns.approvalDecided(rest as unknown as ApprovalRecord);
    this.push(at, { ...rest, kind: type });
  }

  private onTaskFailed(e: HistoryEvent, at: number): void {
    const f = e.workflowTaskFailedEventAttributes!;
    if (f.baseRunId) {
      const reason = f.failure?.message ?? 'reset';
      this.chain.lineage.push({ runId: this.runId, replayedFrom: f.baseRunId, reason, at: iso(at) });
      this.push(at, { kind: 'replayed_from', baseRunId: f.baseRunId, reason });
      return;
    }
    if (isRoutine(f.cause)) return;
    const cause = f.cause !== undefined && f.cause !== null ? causeName(f.cause) : undefined;
    this.push(at, { kind: 'workflow_task_failed', ...(cause ? { cause } : {}), message: f.failure?.message ?? 'workflow task failed' });
  }

  private onCompleted(id: string, result: unknown, at: number): void {
    const s = this.scheduled.get(id);
    const ev = s?.event;
    if (!s || !ev) return;
    Object.assign(ev.execution!, { status: 'completed', latencyMs: at - s.at, attempts: Math.max(1, ev.execution!.attempts) });
    if (ev.kind === 'model_turn') {
      const r = result as ModelResponse;
      const i = s.input as CallModelInput;
      Object.assign(ev, {
        inputTokens: r.usage.inputTokens,
        outputTokens: r.usage.outputTokens,
        content: r.content,
        toolCalls: r.toolCalls.map((c) => ({ name: c.name, arguments: c.arguments })),
      });
      this.turns.answered(ev.agent, r.toolCalls, { ...this.where(at), given: i.messages.length, tools: (i.tools ?? []).map((t) => t.name) });
    } else if (ev.kind === 'tool_call') {
      const r = result as RunToolResult;
      Object.assign(ev, { ok: r.ok, result: r.content });
    } else if (ev.kind === 'team_snapshot') {
      this.chain.team = result as TeamSpec;
      ev.agents = Object.keys(this.chain.team.agents);
    }
  }

  private onEnded(id: string, status: Execution['status'], at: number, error: string): void {
    const ev = this.scheduled.get(id)?.event;
    if (ev?.execution) Object.assign(ev.execution, { status, error, latencyMs: at - this.scheduled.get(id)!.at, attempts: Math.max(1, ev.execution.attempts) });
  }

  private onClosed(e: HistoryEvent, at: number): void {
    const close = (status: AuditStatus) => {
      this.chain.status = status;
      this.chain.closedAt = iso(at);
      if (status !== 'continued_as_new') this.turns.runEnded(this.chain.failure);
    };
    if (e.workflowExecutionCompletedEventAttributes) {
      const result = fromPayloads<NonNullable<AuditChain['result']>>(e.workflowExecutionCompletedEventAttributes.result);
      close('completed');
      if (result) {
        this.chain.result = result;
        this.push(at, { kind: 'final_answer', agent: result.finalAgent, output: result.output });
      }
    } else if (e.workflowExecutionFailedEventAttributes) {
      const f = e.workflowExecutionFailedEventAttributes.failure;
      const failure = { type: f?.applicationFailureInfo?.type ?? undefined, message: f?.message ?? 'failed' };
      this.chain.failure = failure;
      close('failed');
      this.push(at, { kind: 'failed', ...failure });
    } else if (e.workflowExecutionCanceledEventAttributes) {
      close('cancelled');
      this.push(at, { kind: 'cancelled' });
    } else if (e.workflowExecutionTerminatedEventAttributes) {
      close('terminated');
      this.push(at, { kind: 'terminated', reason: e.workflowExecutionTerminatedEventAttributes.reason ?? undefined });
    } else if (e.workflowExecutionTimedOutEventAttributes) {
      close('timed_out');
      this.push(at, { kind: 'timed_out' });
    } else if (e.workflowExecutionContinuedAsNewEventAttributes) {
      close('continued_as_new');
      this.push(at, { kind: 'continued_as_new' });
    }
  }
}

function isRoutine(cause: temporal.api.enums.v1.WorkflowTaskFailedCause | string | null | undefined): boolean {
  return cause !== undefined && cause !== null && ROUTINE_TASK_FAILURES.includes(causeName(cause));
}

/** The name of a workflow task failure's cause (history read from JSON may carry it as the name already). */
function causeName(cause: temporal.api.enums.v1.WorkflowTaskFailedCause | string): string {
  return typeof cause === 'string' ? cause : (temporal.api.enums.v1.WorkflowTaskFailedCause[cause] ?? String(cause));
}

/** The end of a child chain an event records: its initiating event, how it ended, and its result payloads or error. */
function childEnd(e: HistoryEvent): [string, Extract<AuditEvent, { kind: 'delegation' }>['outcome'], unknown] | undefined {
  const done = e.childWorkflowExecutionCompletedEventAttributes;
  if (done) return [String(done.initiatedEventId), 'completed', done.result];
  const failed = e.childWorkflowExecutionFailedEventAttributes;
  if (failed) return [String(failed.initiatedEventId), 'failed', failed.failure?.cause?.message ?? failed.failure?.message ?? 'failed'];
  const timedOut = e.childWorkflowExecutionTimedOutEventAttributes;
  if (timedOut) return [String(timedOut.initiatedEventId), 'timed_out', 'timed out'];
  const cancelled = e.childWorkflowExecutionCanceledEventAttributes;
  if (cancelled) return [String(cancelled.initiatedEventId), 'cancelled', 'cancelled'];
  const terminated = e.childWorkflowExecutionTerminatedEventAttributes;
  if (terminated) return [String(terminated.initiatedEventId), 'terminated', 'terminated'];
  return undefined;
}
