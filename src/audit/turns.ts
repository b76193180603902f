/**
 * A model turn's calls in the audit: one event per call in the order the model made them, each
 * with the answer it got, whether a tool or the workflow gave it, and for handoff calls how they
 * ended.
 *
 * History has no event for a call the workflow answers itself (an unknown tool, a refused or
 * ignored handoff). Its answer shows in the next `callModel` input of the same activation (the
 * `tool` messages after the model's own message) or, when the turn ended in a handoff, in the
 * `batonHandoff` memo's `toolResults`; both list every call of the turn in the model's order.
 */
import { ApprovalTimeoutOutcome, type ApprovalRecord, type PendingApproval } from '../common/approvals';
import { MaxHandoffsExceededError } from '../common/budgetErrors';
import { ApprovalTimeoutError, GuardrailTrippedError } from '../common/errors';
import { HandoffLoopDetectedError, HandoffTargetNotFoundError } from '../common/modelBehaviorErrors';
import type { AgentSpec } from '../common/team';
import { DELEGATE_TOOL_NAME, SPECIALIST_DELEGATE_TOOL_NAME } from '../common/delegation';
import { extractHandoff, HANDOFF_TOOL_NAME, isHandoffCall, READ_STATE_TOOL_NAME } from '../common/handoff';
import type { CallModelInput, ToolCall } from '../common/model';
import type { RecordHandoffInput } from '../common/run';
import type { ChainState } from '../common/state';
import type { TeamSpec } from '../common/team';
import { ApprovalLinks } from './approvalLinks';
import type { Where } from './place';
import { type AuditEvent, HandoffRequestOutcome, type HandoffRequestedEvent, type ToolCallEvent } from './types';

type Placed<E> = E & Where;
type CallEvent = Placed<ToolCallEvent> | Placed<HandoffRequestedEvent>;

/** A model answer whose calls are not all answered yet. */
interface Turn {
  agent: string;
  /** How many messages the model was given; its own message follows them in the next call's input. */
  given?: number;
  calls: CallEvent[];
  /** The turn's handoff call: the first one, as the workflow weighs only that one. */
  handoff?: Placed<HandoffRequestedEvent>;
}

/** Where a turn's events go and what they need to know. */
export interface TurnSink {
  /** A new event, at `where`. */
  add(event: AuditEvent, where: Where): void;
  /** An event moves to `where`, where the step it records happened. */
  move(event: AuditEvent, where: Where): void;
  team(): TeamSpec | undefined;
}

/** Built-in tools the workflow answers itself: the handoff tool, `readState`, delegation (a specialist's answer). */
const ANSWERED_BY_WORKFLOW = [
  HANDOFF_TOOL_NAME,
  READ_STATE_TOOL_NAME,
  DELEGATE_TOOL_NAME,
  SPECIALIST_DELEGATE_TOOL_NAME,
];

/** Failures a control raises while it weighs a handoff: the handoff was refused, and the run failed with it. */
const REFUSING_FAILURES = [MaxHandoffsExceededError.name, HandoffLoopDetectedError.name, GuardrailTrippedError.name];

/** Follows the turns of a chain across its runs. */
export class TurnReader {
  private turn?: Turn;
  /** Handoffs waiting for a decision, by approval id. */
  private readonly awaiting = new Map<string, HandoffRequestedEvent>();

  /** Which approval each tool call ran under. */
  private readonly links = new ApprovalLinks();

  constructor(private readonly sink: TurnSink) {}

  /** A run that replays an earlier one started: the decisions it carries may each cover a call once more. */
  replayed(): void {
    this.links.replayed();
  }

  /** The approval a scheduled call of `agent` runs under, when it waited for one. */
  ranUnder(agent: string, call: ToolCall): string | undefined {
    return this.links.ranUnder(agent, call);
  }

  /**
   * The model answered `calls` (given `given` messages and these tools): one event per call, in
   * the model's order.
   */
  answered(agent: string, calls: ToolCall[], where: Where & { given?: number; tools: string[] }): void {
    // `readState` is answered by the workflow like an unknown tool; handoff tools are recognised by the agent's spec.
    const known = new Set(where.tools.filter((t) => !ANSWERED_BY_WORKFLOW.includes(t)));
    const spec = this.sink.team()?.agents[agent];
    const turn: Turn = { agent, calls: [], ...(where.given !== undefined ? { given: where.given } : {}) };
    const place: Where = { at: where.at, runId: where.runId, eventId: where.eventId };
    for (const call of calls) {
      const base = { ...place, ...(call.id ? { callId: call.id } : {}) };
      let event: CallEvent;
      if (isHandoffCall(call, spec)) {
        event = { ...base, ...handoffRequest(call, agent, turn.handoff, spec) };
        turn.handoff ??= event;
      } else {
        const answeredBy = known.has(call.name) ? 'tool' : 'workflow';
        event = { ...base, kind: 'tool_call', agent, tool: call.name, arguments: call.arguments, answeredBy };
        if (answeredBy === 'tool') event.execution = { status: 'not_scheduled', attempts: 0 };
      }
      turn.calls.push(event);
      this.sink.add(event, place);
    }
    this.turn = turn;
  }

  /** The `tool_call` event a scheduled `runTool` activity belongs to; `undefined` when the turn did not ask for it. */
  toolScheduled(agent: string, call: ToolCall): Placed<ToolCallEvent> | undefined {
    if (this.turn?.agent !== agent) return undefined;
    // Tools are scheduled in the model's order, so the first unscheduled call of that name is this one.
    const open = this.turn.calls.filter(
      (e): e is Placed<ToolCallEvent> =>
        e.kind === 'tool_call' && e.tool === call.name && e.execution?.status === 'not_scheduled',
    );
    return open[0];
  }

  /** A model call starts with `input`: it holds the answers to the agent's previous turn, and anything the workflow told the model since. */
  modelCalled(input: CallModelInput, where: Where): void {
    const turn = this.close();
    if (
      !turn ||
      turn.given === undefined ||
      turn.agent !== input.agentId ||
      input.messages[turn.given]?.role !== 'assistant'
    )
      return;
    const after = input.messages.slice(turn.given + 1);
    const answers = after.slice(0, turn.calls.length);
    this.answer(
      turn,
      answers.map((m) => (m.role === 'tool' ? m.content : undefined)),
      where,
    );
    for (const m of after.slice(turn.calls.length)) {
      if (m.role === 'user')
        this.sink.add({ ...where, kind: 'workflow_message', agent: input.agentId, content: m.content }, where);
    }
    const h = turn.handoff;
    if (h?.outcome === HandoffRequestOutcome.PENDING)
      h.outcome = this.mayHandOff(h) ? HandoffRequestOutcome.REFUSED : HandoffRequestOutcome.INVALID_TARGET;
  }

  /** A handoff was recorded: it closes the turn that asked for it, with every call's answer. */
  handedOff(entry: RecordHandoffInput, where: Where): void {
    const turn = this.close();
    if (turn)
      this.answer(
        turn,
        (entry.toolResults ?? []).map((r) => r.content),
        where,
      );
    const id = entry.handoff.approval?.handoffId;
    const h = (id !== undefined ? this.awaiting.get(id) : undefined) ?? turn?.handoff;
    if (id !== undefined) this.awaiting.delete(id);
    if (!h) return;
    h.outcome = HandoffRequestOutcome.EXECUTED;
    h.index = entry.index;
  }

  /** The open turn's handoff (or one of its tool calls, with `tool`) waits for a decision. */
  approvalRequested(p: Pick<PendingApproval, 'handoffId' | 'from' | 'to' | 'tool'>): void {
    this.links.requested(p);
    const h = this.turn?.handoff;
    if (h?.outcome !== HandoffRequestOutcome.PENDING || h.to !== p.to) return;
    h.outcome = HandoffRequestOutcome.AWAITING_APPROVAL;
    h.handoffId = p.handoffId;
    this.awaiting.set(p.handoffId, h);
  }

  /** A decision, or a timeout; an approval is complete once the handoff is recorded. */
  approvalDecided(r: ApprovalRecord): void {
    this.links.decided(r);
    const h = this.awaiting.get(r.handoffId);
    if (!h) return;
    if (r.outcome === 'rejected') h.outcome = HandoffRequestOutcome.REJECTED;
    else if (r.outcome === 'timed_out' && r.onTimeout !== ApprovalTimeoutOutcome.APPROVE)
      h.outcome = HandoffRequestOutcome.TIMED_OUT;
    else return;
    this.awaiting.delete(r.handoffId);
  }

  /**
   * A run of a replay starts from a rebuilt state: a model answer it acts on again, whose calls
   * belong to the run it continues; with `replay`, the decisions it carries cover the calls it runs
   * again. Continue-as-new needs nothing: this reader follows the turn.
   */
  resumed(state: ChainState, where: Where, replay = false): void {
    if (replay) this.replayed();
    if (this.turn || !state.pendingResponse) return;
    const tools = state.team.agents[state.agentId]?.tools.map((t) => t.name) ?? [];
    this.answered(state.agentId, state.pendingResponse.toolCalls, { ...where, given: state.messages.length, tools });
  }

  /** The run ended (other than by continuing as new): what was still undecided is settled by how it ended. */
  runEnded(failure?: { type?: string; message: string }): void {
    const turn = this.close();
    const h = turn?.handoff;
    if (h?.outcome === HandoffRequestOutcome.PENDING) {
      // The run failed while the handoff was weighed: the control that failed it refused the handoff.
      h.outcome =
        failure?.type === HandoffTargetNotFoundError.name
          ? HandoffRequestOutcome.INVALID_TARGET
          : failure?.type !== undefined && REFUSING_FAILURES.includes(failure.type)
            ? HandoffRequestOutcome.REFUSED
            : HandoffRequestOutcome.ABANDONED;
      if (failure) h.reason = failure.message;
    }
    for (const waiting of this.awaiting.values()) {
      waiting.outcome =
        failure?.type === ApprovalTimeoutError.name ? HandoffRequestOutcome.TIMED_OUT : HandoffRequestOutcome.ABANDONED;
      waiting.reason ??= failure ? failure.message : 'the run ended while the handoff waited for approval';
    }
    this.awaiting.clear();
  }

  /**
   * Give each call of the turn its answer, by position (call ids may be empty or repeated). A call
   * no activity ran was answered by the workflow here, at `where`: its event moves there.
   */
  private answer(turn: Turn, answers: (string | undefined)[], where: Where): void {
    turn.calls.forEach((event, i) => {
      const text = answers[i];
      if (text === undefined) return;
      if (event.kind === 'handoff_requested') {
        event.answer = text;
        return;
      }
      event.result ??= text;
      if (!event.execution || event.execution.status === 'not_scheduled') this.sink.move(event, where);
    });
  }

  private close(): Turn | undefined {
    const turn = this.turn;
    this.turn = undefined;
    return turn;
  }

  private mayHandOff(h: HandoffRequestedEvent): boolean {
    const team = this.sink.team();
    if (!team) return true;
    return Boolean(team.agents[h.to]) && (team.agents[h.from]?.handoffs ?? []).includes(h.to);
  }
}

/** A handoff call read as the workflow reads it: the turn's first handoff call counts, later ones are ignored. */
function handoffRequest(
  call: ToolCall,
  from: string,
  first: HandoffRequestedEvent | undefined,
  spec?: AgentSpec,
): HandoffRequestedEvent {
  const read = extractHandoff(call, from, spec);
  if (read !== null && typeof read !== 'string') {
    const outcome = first ? HandoffRequestOutcome.IGNORED : HandoffRequestOutcome.PENDING;
    return { kind: 'handoff_requested', from, to: read.to, message: read.message, outcome };
  }
  const args = parseObject(call.arguments);
  return {
    kind: 'handoff_requested',
    from,
    to: typeof args.to === 'string' ? args.to : '',
    message: typeof args.message === 'string' ? args.message : '',
    outcome: first ? HandoffRequestOutcome.IGNORED : HandoffRequestOutcome.INVALID_ARGUMENTS,
    arguments: call.arguments,
    ...(first ? {} : { reason: read ?? 'not a handoff call' }),
  };
}

function parseObject(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
