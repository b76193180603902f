/**
 * Reading answers out of a workflow's history, event by event, as the chat shows them: a
 * conversation's turns (each opened and closed by its `batonTurn` memo records), or a chain as one
 * answer. Works on the histories the audit reads (local activities included) and across
 * continue-as-new; fed more events as they happen, it updates the answers it built.
 */
import { childEnd } from '../../audit/ending';
import { activityName, recordedApprovalEvent, recordedHandoff, withLocalActivities } from '../../audit/history';
import type { ApprovalRecord, PendingApproval } from '../../common/approvals';
import type {
  ConversationInput,
  SendMessageInput,
  TurnEndedRecord,
  TurnStartedRecord,
} from '../../common/conversation';
import { ActivityType, sendMessageUpdate, TURN_MEMO } from '../../common/messages';
import type { CallModelInput, LocalModelCall, ModelResponse } from '../../common/model';
import type { HandoffRunInput, HandoffRunResult, RecordHandoffInput } from '../../common/run';
import type { RunToolInput, RunToolResult } from '../../common/team';
import { fromPayload, fromPayloads, type HistoryEvent } from '../../payloads/read';
import type { TextDelta } from '../../streams/types';
import { AnswerBuilder, lastOf, parseJson, type ToolView } from './view';

/** Whether the caller may decide an approval whose policy names `approvers` (anyone when absent). */
export type MayDecide = (approvers: readonly string[] | undefined) => boolean;

/** Text deltas kept for answers history has not shown yet. */
const MAX_EARLY_DELTAS = 10_000;

/** What a scheduled activity was, until its end is read. */
type Scheduled =
  { kind: 'model'; agent: string; call: string } | { kind: 'tool'; toolCallId: string } | { kind: 'other' };

/** The answers of one workflow, read from its history. */
export class AnswerReader {
  readonly answers: AnswerBuilder[] = [];
  #current?: AnswerBuilder;
  #scheduled = new Map<string, Scheduled>();
  readonly #messages = new Map<string, string>();
  readonly #children = new Map<string, { from: string; to: string; workflowId: string; task: string }>();
  #agent = '';
  #early: TextDelta[] = [];

  constructor(
    /** The conversation's or chain's workflow id. */
    readonly workflowId: string,
    /** `conversation`: one answer per turn; `chain`: the whole chain is one answer, keyed by its workflow id. */
    private readonly mode: 'conversation' | 'chain',
    private readonly mayDecide: MayDecide,
  ) {}

  /** The answer to the user message `key`. */
  answer(key: string): AnswerBuilder | undefined {
    return lastOf(this.answers, (a) => a.view.key === key);
  }

  /** The answer being written, if any. */
  get current(): AnswerBuilder | undefined {
    return this.#current;
  }

  /** Text of a model call as it forms; it goes to the answer of the message it names (a chain's only answer). */
  delta(d: TextDelta): void {
    const target =
      this.mode === 'chain'
        ? this.answers[0]
        : lastOf(
            this.answers,
            (a) => a.view.key === d.message || (d.message !== undefined && d.merged?.includes(a.view.key) === true),
          );
    // Text can arrive before history shows its turn began: it waits for the turn (a bounded few).
    if (!target) return void (this.#early.length < MAX_EARLY_DELTAS && this.#early.push(d));
    if (target.view.status === 'answering') target.delta(d);
  }

  /** The text that arrived before its answer began, given to the answer that now begins. */
  private began(): void {
    const early = this.#early;
    this.#early = [];
    for (const d of early) this.delta(d);
  }

  /** Read the next events of run `runId` (in history order). */
  read(events: HistoryEvent[]): void {
    for (const e of withLocalActivities(events)) this.onEvent(e);
  }

  private onEvent(e: HistoryEvent): void {
    const started = e.workflowExecutionStartedEventAttributes;
    if (started) {
      this.#scheduled = new Map();
      if (this.mode === 'chain' && this.answers.length === 0) {
        const input = fromPayloads<HandoffRunInput>(started.input);
        this.#current = new AnswerBuilder(this.workflowId, this.workflowId, input?.input);
        this.answers.push(this.#current);
        this.began();
      }
      const resumed = this.mode === 'conversation' ? fromPayloads<ConversationInput>(started.input)?.resume : undefined;
      for (const m of [...(resumed?.current ? [resumed.current] : []), ...(resumed?.queued ?? [])])
        if (m.updateId) this.#messages.set(m.updateId, m.message);
      return;
    }
    const update = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest;
    if (update?.input?.name === sendMessageUpdate.name && update.meta?.updateId) {
      const m = fromPayloads<SendMessageInput>(update.input.args);
      if (m) this.#messages.set(update.meta.updateId, m.message);
    }
    const memo = e.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields;
    const turn =
      this.mode === 'conversation' && memo?.[TURN_MEMO]
        ? fromPayload<TurnStartedRecord | TurnEndedRecord>(memo[TURN_MEMO])
        : undefined;
    if (turn?.phase === 'started') {
      const message = turn.updateId ? this.#messages.get(turn.updateId) : undefined;
      this.#current = new AnswerBuilder(turn.idempotencyKey, this.workflowId, message);
      this.answers.push(this.#current);
      this.began();
    } else if (turn && this.#current) {
      this.#current.end(
        turn.phase === 'answered' && turn.reply
          ? { output: turn.reply.output }
          : { failure: turn.failure ?? { type: 'Error', message: 'the turn failed' } },
      );
      this.#current = undefined;
    }
    const answer = this.#current;
    if (this.mode === 'chain') this.onChainEnd(e);
    if (!answer) return;
    this.onActivity(e, answer);
    this.onMemo(e, answer);
    this.onChild(e, answer);
  }

  private onActivity(e: HistoryEvent, answer: AnswerBuilder): void {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled) {
      const name = activityName(e);
      if (name === ActivityType.CALL_MODEL) {
        const input = fromPayloads<CallModelInput>(scheduled.input);
        if (!input || input.purpose) return void this.#scheduled.set(String(e.eventId), { kind: 'other' });
        const call = `${input.agentId}#${input.callIndex}`;
        this.#agent = input.agentId;
        // What the model is told about its earlier calls: the answer of every call, the workflow's too.
        for (const m of input.messages) if (m.role === 'tool') settleTool(answer.tool(m.toolCallId), m.content, true);
        answer.step(call);
        this.#scheduled.set(String(e.eventId), { kind: 'model', agent: input.agentId, call });
      } else if (name === ActivityType.RUN_TOOL) {
        const input = fromPayloads<RunToolInput>(scheduled.input);
        this.#scheduled.set(String(e.eventId), input ? { kind: 'tool', toolCallId: input.call.id } : { kind: 'other' });
      }
      return;
    }
    const completed = e.activityTaskCompletedEventAttributes;
    if (!completed) return;
    const s = this.#scheduled.get(String(completed.scheduledEventId));
    if (s?.kind === 'model') {
      const result = fromPayloads<ModelResponse | LocalModelCall>(completed.result);
      const response = result && 'response' in result ? result.response : result;
      if (!response) return;
      answer.answered(s.call, s.agent, response.content ?? '');
      for (const call of response.toolCalls) answer.toolCall(s.agent, call);
    } else if (s?.kind === 'tool') {
      const result = fromPayloads<RunToolResult>(completed.result);
      if (result) settleTool(answer.tool(s.toolCallId), result.content, result.ok);
    }
  }

  private onMemo(e: HistoryEvent, answer: AnswerBuilder): void {
    const handoff = recordedHandoff(e);
    if (handoff) this.onHandoff(handoff, answer);
    const recorded = recordedApprovalEvent(e);
    if (!recorded) return;
    const { type, ...fields } = recorded;
    if (type === 'approval_requested') {
      const p = fields as unknown as PendingApproval;
      const part = p.tool ? answer.tool(p.tool.toolCallId) : answer.openHandoff(p.from, p.to);
      const decidable = this.mayDecide(p.approvers);
      if (part && part.state !== 'output' && part.state !== 'error')
        Object.assign(part, { state: 'approval-requested', approvalId: p.handoffId, decidable });
      answer.data('approval', p.handoffId, {
        approvalId: p.handoffId,
        kind: p.tool ? 'tool' : 'handoff',
        status: 'waiting',
        from: p.from,
        to: p.to,
        message: p.message,
        ...(p.tool
          ? {
              tool: p.tool.name,
              arguments: parseJson(p.tool.arguments),
              toolCallId: part?.toolCallId ?? p.tool.toolCallId,
            }
          : part
            ? { toolCallId: part.toolCallId }
            : {}),
        ...(p.approvers ? { approvers: p.approvers } : {}),
        ...(p.expiresAt ? { expiresAt: p.expiresAt } : {}),
        ...(p.requireSignature ? { requireSignature: true } : {}),
        ...(p.workflowId && p.workflowId !== this.workflowId ? { workflowId: p.workflowId } : {}),
        decidable,
      });
    } else if (type === 'approval_decided') {
      const d = fields as unknown as ApprovalRecord;
      const approved = d.outcome === 'approved' || (d.outcome === 'timed_out' && d.onTimeout === 'approve');
      const part = answer.view.parts.find((p): p is ToolView => p.kind === 'tool' && p.approvalId === d.handoffId);
      if (part && part.state === 'approval-requested') part.state = approved ? 'approved' : 'denied';
      answer.data('approval', d.handoffId, {
        status: d.outcome,
        decidedAt: d.decidedAt,
        ...(d.approver ? { approver: d.approver } : {}),
        ...(d.comment ? { comment: d.comment } : {}),
        ...(d.reason ? { reason: d.reason } : {}),
        ...(d.identity ? { identity: d.identity.method } : {}),
      });
    } else if (type === 'control') {
      const { control, at, ...rest } = fields;
      answer.data('control', `control-${String(e.eventId)}`, { kind: control, at, ...rest });
    }
  }

  private onHandoff(h: RecordHandoffInput, answer: AnswerBuilder): void {
    const { from, to, message, approval } = h.handoff;
    answer.data('handoff', `handoff-${h.index}`, {
      from,
      to,
      message,
      ...(approval ? { approvedBy: approval.approver ?? approval.outcome } : {}),
    });
    const part = answer.openHandoff(from, to);
    if (part) Object.assign(part, { state: 'output', output: { handedOffTo: to } });
  }

  private onChild(e: HistoryEvent, answer: AnswerBuilder): void {
    const initiated = e.startChildWorkflowExecutionInitiatedEventAttributes;
    if (initiated) {
      const input = fromPayloads<HandoffRunInput>(initiated.input);
      this.#children.set(String(e.eventId), {
        from: this.#agent,
        to: input?.agent ?? '?',
        workflowId: initiated.workflowId ?? '',
        task: input?.input ?? '',
      });
      return;
    }
    const started = e.childWorkflowExecutionStartedEventAttributes;
    const child = started ? this.#children.get(String(started.initiatedEventId)) : undefined;
    if (child) return void answer.data('delegation', child.workflowId, { ...child, status: 'running' });
    const end = childEnd(e);
    const ended = end ? this.#children.get(end.initiatedId) : undefined;
    if (end && ended)
      answer.data('delegation', ended.workflowId, {
        ...ended,
        status: end.outcome,
        ...(end.outcome === 'completed' ? { output: end.output } : { error: end.error }),
      });
  }

  private onChainEnd(e: HistoryEvent): void {
    const answer = this.answers[0];
    if (!answer || answer.view.status !== 'answering') return;
    const done = e.workflowExecutionCompletedEventAttributes;
    if (done) return void answer.end({ output: fromPayloads<HandoffRunResult<unknown>>(done.result)?.output ?? '' });
    const failed = e.workflowExecutionFailedEventAttributes?.failure;
    if (failed)
      return void answer.end({
        failure: { type: failed.applicationFailureInfo?.type ?? 'Error', message: failed.message ?? 'failed' },
      });
    if (
      e.workflowExecutionCanceledEventAttributes ||
      e.workflowExecutionTerminatedEventAttributes ||
      e.workflowExecutionTimedOutEventAttributes
    ) {
      answer.end({ failure: { type: 'ChainEnded', message: 'the chain was cancelled, terminated or timed out' } });
    }
  }
}

/** A tool call's answer: its output (JSON when it is JSON), or the error the model was told. */
function settleTool(part: ToolView | undefined, content: string, ok: boolean): void {
  if (!part || part.state === 'output' || part.state === 'error' || part.state === 'denied') return;
  if (ok) Object.assign(part, { state: 'output', output: parseJson(content) });
  else Object.assign(part, { state: 'error', errorText: content });
}
