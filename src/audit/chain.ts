/**
 * The audit chain: a run rebuilt from its workflow history alone (schema `baton.audit/v1`).
 */
import type { temporal } from '@temporalio/proto';
import { ActivityType, APPROVAL_EVENT_MEMO } from '../common/messages';
import type {
  ApprovalRecord,
  CallModelInput,
  HandoffRecord,
  HandoffRunInput,
  HandoffRunResult,
  ModelResponse,
  RecordHandoffInput,
  RunToolInput,
  RunToolResult,
  TeamSpec,
} from '../common/types';
import { recordedHandoff } from './history';
import { fromPayload, fromPayloads } from '../payloads/read';

/** Version tag of the audit JSON; a breaking change to its shape gets a new one. */
export const AUDIT_SCHEMA = 'baton.audit/v1';

/** How a run ended, or `running`. */
export type AuditStatus = 'running' | 'completed' | 'failed' | 'cancelled' | 'terminated' | 'timed_out' | 'continued_as_new';

/** What an activity-backed event shows of its execution. */
export interface Execution {
  status: 'scheduled' | 'running' | 'completed' | 'failed' | 'timed_out' | 'cancelled';
  /** Attempts made (1 when it worked first time). */
  attempts: number;
  /** From scheduling to the end, across retries. */
  latencyMs?: number;
  error?: string;
}

/** One step of the chain, in history order. */
export type AuditEvent = { at: string; runId: string } & (
  | { kind: 'run_started'; input: HandoffRunInput }
  | { kind: 'team_snapshot'; agents: string[]; execution: Execution }
  | {
      kind: 'model_turn';
      agent: string;
      model: string;
      inputTokens?: number;
      outputTokens?: number;
      content?: string | null;
      toolCalls?: { name: string; arguments: string }[];
      execution: Execution;
    }
  | { kind: 'tool_call'; agent: string; tool: string; arguments: string; ok?: boolean; result?: string; execution: Execution }
  | { kind: 'handoff_requested'; from: string; to: string; message: string }
  | { kind: 'approval_requested'; handoffId: string; from: string; to: string; message: string; expiresAt?: string; approvers?: string[] }
  | ({ kind: 'approval_decided' } & ApprovalRecord)
  | { kind: 'decision_refused'; handoffId?: string; approver?: string; decision?: string; reason: string; via: string }
  | { kind: 'signal'; name: string; input: unknown }
  | { kind: 'update'; name: string; input: unknown }
  | ({ kind: 'handoff'; index: number } & HandoffRecord)
  | { kind: 'final_answer'; agent: string; output: string }
  | { kind: 'failed'; type?: string; message: string }
  | { kind: 'cancelled' }
  | { kind: 'terminated'; reason?: string }
  | { kind: 'timed_out' }
  | { kind: 'continued_as_new' }
  | { kind: 'replayed_from'; baseRunId: string; reason: string }
  | { kind: 'overrides_applied'; options?: Record<string, unknown>; models?: Record<string, unknown> }
  | { kind: 'overrides_refused'; problems: string[] }
);

/** A chain as its history tells it. */
export interface AuditChain {
  schema: typeof AUDIT_SCHEMA;
  workflowId: string;
  /** Oldest first; more than one when the chain continued as new. */
  runIds: string[];
  status: AuditStatus;
  startedAt?: string;
  closedAt?: string;
  input?: HandoffRunInput;
  team?: TeamSpec;
  events: AuditEvent[];
  /** The handoffs that happened, in order. */
  handoffs: HandoffRecord[];
  result?: HandoffRunResult;
  failure?: { type?: string; message: string };
  /** Runs this chain was replayed from (Temporal reset), oldest first. */
  lineage: { runId: string; replayedFrom: string; reason: string; at: string }[];
  /** When the audited run was itself replayed: the run that continued it. */
  replayedBy?: string;
}

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** One run's history, with its run id. */
export interface RunHistory {
  runId: string;
  events: HistoryEvent[];
}

/** Rebuild the chain from the histories of its runs, oldest first. */
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
  for (const run of runs) new RunReader(chain, run.runId).read(run.events);
  return chain;
}

const decode = fromPayloads;

function timeOf(e: HistoryEvent): number {
  const t = e.eventTime;
  return t ? Number(t.seconds?.toString() ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6) : 0;
}

interface Scheduled {
  name: string;
  input: unknown;
  at: number;
  event?: Extract<AuditEvent, { execution: Execution }>;
}

/** Reads one run's events into the chain. */
class RunReader {
  private readonly scheduled = new Map<string, Scheduled>();

  constructor(
    private readonly chain: AuditChain,
    private readonly runId: string,
  ) {}

  read(events: HistoryEvent[]): void {
    for (const e of events) this.onEvent(e);
  }

  private push(at: number, event: Record<string, unknown> & { kind: string }): void {
    this.chain.events.push({ at: new Date(at).toISOString(), runId: this.runId, ...event } as AuditEvent);
  }

  private onEvent(e: HistoryEvent): void {
    const at = timeOf(e);
    const handoff = recordedHandoff(e);
    if (handoff) this.onHandoff(handoff, at);
    const a = e;
    if (a.workflowExecutionStartedEventAttributes) {
      const input = decode<HandoffRunInput>(a.workflowExecutionStartedEventAttributes.input);
      const origin = input?.resume?.replayOf;
      if (origin && this.chain.events.length === 0) {
        // A replay that resumed from rebuilt state: the chain before it happened in the run it continues.
        this.chain.handoffs.push(...input!.resume!.chain);
        this.chain.team = input!.resume!.team;
        this.chain.lineage.push({ runId: this.runId, replayedFrom: origin.runId, reason: `baton replay from ${origin.from}`, at: new Date(at).toISOString() });
      }
      if (!this.chain.input && input) {
        const { resume: _resume, ...plain } = input;
        this.chain.input = plain;
      }
      this.chain.startedAt ??= new Date(at).toISOString();
      if (input) {
        const { resume: _resume, ...plain } = input;
        this.push(at, { kind: 'run_started', input: plain });
      }
      if (origin) this.push(at, { kind: 'replayed_from', baseRunId: origin.runId, reason: `baton replay from ${origin.from}` });
    } else if (a.activityTaskScheduledEventAttributes) this.onScheduled(e, at);
    else if (a.activityTaskStartedEventAttributes) {
      const s = this.scheduled.get(String(a.activityTaskStartedEventAttributes.scheduledEventId));
      if (s?.event) Object.assign(s.event.execution, { status: 'running', attempts: a.activityTaskStartedEventAttributes.attempt ?? 1 });
    } else if (a.activityTaskCompletedEventAttributes) {
      const c = a.activityTaskCompletedEventAttributes;
      this.onCompleted(String(c.scheduledEventId), decode(c.result), at);
    } else if (a.activityTaskFailedEventAttributes) {
      const f = a.activityTaskFailedEventAttributes;
      this.onEnded(String(f.scheduledEventId), 'failed', at, f.failure?.cause?.message ?? f.failure?.message ?? 'failed');
    } else if (a.activityTaskTimedOutEventAttributes) {
      const f = a.activityTaskTimedOutEventAttributes;
      this.onEnded(String(f.scheduledEventId), 'timed_out', at, f.failure?.message ?? 'timed out');
    } else if (a.activityTaskCanceledEventAttributes) {
      this.onEnded(String(a.activityTaskCanceledEventAttributes.scheduledEventId), 'cancelled', at, 'cancelled');
    } else if (a.workflowPropertiesModifiedEventAttributes) {
      const fields = a.workflowPropertiesModifiedEventAttributes.upsertedMemo?.fields ?? {};
      const memo = fields[APPROVAL_EVENT_MEMO] ? fromPayload<Record<string, unknown> & { type: string }>(fields[APPROVAL_EVENT_MEMO]) : undefined;
      if (memo) {
        const { type, ...rest } = memo;
        this.push(at, { ...rest, kind: type });
      }
    } else if (a.workflowTaskFailedEventAttributes?.baseRunId) {
      const f = a.workflowTaskFailedEventAttributes;
      const reason = f.failure?.message ?? 'reset';
      this.chain.lineage.push({ runId: this.runId, replayedFrom: f.baseRunId ?? '', reason, at: new Date(at).toISOString() });
      this.push(at, { kind: 'replayed_from', baseRunId: f.baseRunId ?? '', reason });
    } else if (a.workflowExecutionSignaledEventAttributes) {
      const s = a.workflowExecutionSignaledEventAttributes;
      this.push(at, { kind: 'signal', name: s.signalName ?? '', input: decode(s.input) });
    } else if (a.workflowExecutionUpdateAcceptedEventAttributes) {
      const req = a.workflowExecutionUpdateAcceptedEventAttributes.acceptedRequest?.input;
      this.push(at, { kind: 'update', name: req?.name ?? '', input: decode(req?.args) });
    } else this.onClosed(e, at);
  }

  private onScheduled(e: HistoryEvent, at: number): void {
    const s = e.activityTaskScheduledEventAttributes!;
    const name = s.activityType?.name ?? '';
    const input = decode(s.input);
    const entry: Scheduled = { name, input, at };
    const execution: Execution = { status: 'scheduled', attempts: 0 };
    if (name === ActivityType.CALL_MODEL) {
      const i = input as CallModelInput;
      entry.event = { kind: 'model_turn', agent: i.agentId, model: i.model.model, execution, at: '', runId: this.runId };
    } else if (name === ActivityType.RUN_TOOL) {
      const i = input as RunToolInput;
      entry.event = { kind: 'tool_call', agent: i.agentId, tool: i.call.name, arguments: i.call.arguments, execution, at: '', runId: this.runId };
    } else if (name === ActivityType.LOAD_TEAM) {
      entry.event = { kind: 'team_snapshot', agents: [], execution, at: '', runId: this.runId };
    }
    if (entry.event) {
      entry.event.at = new Date(at).toISOString();
      this.chain.events.push(entry.event);
    }
    this.scheduled.set(String(e.eventId), entry);
  }

  private onHandoff({ handoff, index }: RecordHandoffInput, at: number): void {
    this.chain.handoffs.push(handoff);
    this.push(at, { kind: 'handoff', index, ...handoff });
  }

  private onCompleted(id: string, result: unknown, at: number): void {
    const s = this.scheduled.get(id);
    const ev = s?.event;
    if (!s || !ev) return;
    Object.assign(ev.execution, { status: 'completed', latencyMs: at - s.at, attempts: Math.max(1, ev.execution.attempts) });
    if (ev.kind === 'model_turn') {
      const r = result as ModelResponse;
      Object.assign(ev, {
        inputTokens: r.usage.inputTokens,
        outputTokens: r.usage.outputTokens,
        content: r.content,
        toolCalls: r.toolCalls.map((c) => ({ name: c.name, arguments: c.arguments })),
      });
      for (const call of r.toolCalls.filter((c) => c.name === 'handoff')) {
        const args = safeJson(call.arguments) as { to?: unknown; message?: unknown };
        this.push(at, { kind: 'handoff_requested', from: ev.agent, to: String(args.to ?? '?'), message: String(args.message ?? '') });
      }
    } else if (ev.kind === 'tool_call') {
      const r = result as RunToolResult;
      Object.assign(ev, { ok: r.ok, result: r.content });
    } else if (ev.kind === 'team_snapshot') {
      this.chain.team = result as TeamSpec;
      ev.agents = Object.keys(this.chain.team.agents);
    }
  }

  private onEnded(id: string, status: Execution['status'], at: number, error: string): void {
    const s = this.scheduled.get(id);
    if (s?.event) Object.assign(s.event.execution, { status, error, latencyMs: at - s.at, attempts: Math.max(1, s.event.execution.attempts) });
  }

  private onClosed(e: HistoryEvent, at: number): void {
    const close = (status: AuditStatus) => {
      this.chain.status = status;
      this.chain.closedAt = new Date(at).toISOString();
    };
    if (e.workflowExecutionCompletedEventAttributes) {
      const result = decode<HandoffRunResult>(e.workflowExecutionCompletedEventAttributes.result);
      close('completed');
      if (result) {
        this.chain.result = result;
        this.push(at, { kind: 'final_answer', agent: result.finalAgent, output: result.output });
      }
    } else if (e.workflowExecutionFailedEventAttributes) {
      const f = e.workflowExecutionFailedEventAttributes.failure;
      const failure = { type: f?.applicationFailureInfo?.type ?? undefined, message: f?.message ?? 'failed' };
      close('failed');
      this.chain.failure = failure;
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

function safeJson(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
