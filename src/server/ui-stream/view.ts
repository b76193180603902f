/**
 * An answer as a chat shows it: the parts of the assistant message that answers one user message
 * (a conversation's turn, or a whole chain), in the order they happened. Built from the workflow
 * history (model calls, tool calls, approvals, handoffs, delegations, controls) and the text the
 * model calls write as it forms; the UI message stream is the difference between two such views.
 */
import { TextBoard } from '../../streams/board';
import type { TextDelta } from '../../streams/types';

/** The most text deltas an answer holds for calls history has not shown yet; history's record of each call's answer covers any dropped. */
const MAX_EARLY_DELTAS = 10_000;

/** Where a tool call is: asked for, waiting for a decision, approved (not yet run), refused, answered, failed. */
export type ToolState = 'input' | 'approval-requested' | 'approved' | 'denied' | 'output' | 'error';

/** A model call began: the parts after it, up to the next, are its text and its calls. */
export interface StepView {
  kind: 'step';
  /** The call, `<agent>#<n>` (or `answer` for an answer no call wrote). */
  id: string;
}

/** The text a model call wrote: as it forms while `done` is false, then as history records it. */
export interface TextView {
  kind: 'text';
  id: string;
  text: string;
  done: boolean;
}

/** A tool call of the model (the built-in `handoff` too), and what became of it. */
export interface ToolView {
  kind: 'tool';
  toolCallId: string;
  toolName: string;
  agent: string;
  input: unknown;
  state: ToolState;
  /** The approval it waits for, or waited for. */
  approvalId?: string;
  /** Whether the caller may decide that approval (a chat card), rather than someone else (shown as waiting). */
  decidable?: boolean;
  output?: unknown;
  errorText?: string;
}

/** A `data-<name>` part: a handoff, a delegation, an approval and its decision, a control's act, a failure. */
export interface DataView {
  kind: 'data';
  name: 'handoff' | 'delegation' | 'approval' | 'control' | 'failure';
  id: string;
  data: Record<string, unknown>;
}

export type PartView = StepView | TextView | ToolView | DataView;

/** The assistant message answering one user message. */
export interface AnswerView {
  /** The user message's idempotency key (a chat message's id); the whole chain's id for a run. */
  key: string;
  /** The assistant message's id: the key's, so history and streams name it alike. */
  messageId: string;
  /** What the user sent, when history holds it. */
  message?: string;
  status: 'answering' | 'answered' | 'failed';
  parts: PartView[];
  output?: unknown;
  failure?: { type: string; message: string };
}

/** The id of the assistant message answering the user message `key`. */
export function answerIdOf(key: string): string {
  return `${key}:answer`;
}

/** Builds one answer's view: history's facts and the text the model calls write as it forms. */
export class AnswerBuilder {
  readonly view: AnswerView;
  readonly #board = new TextBoard();
  readonly #parts = new Map<string, PartView>();
  /** Text of calls history has not shown yet, by call: it goes in once the call's step does. */
  readonly #early = new Map<string, TextDelta[]>();
  #earlyCount = 0;

  constructor(
    key: string,
    /** The chain whose model calls write the answer (a conversation's or a run's workflow id). */
    private readonly workflowId: string,
    message?: string,
  ) {
    this.view = {
      key,
      messageId: answerIdOf(key),
      ...(message !== undefined ? { message } : {}),
      status: 'answering',
      parts: [],
    };
  }

  /** A model call began (history shows it scheduled, or answered): the text that came before it goes in now. */
  step(call: string): void {
    if (this.#parts.has(`step:${call}`)) return;
    this.add(`step:${call}`, { kind: 'step', id: call });
    const early = this.#early.get(call);
    if (!early) return;
    this.#early.delete(call);
    this.#earlyCount -= early.length;
    for (const d of early) this.delta(d);
  }

  /**
   * Text of a model call as it forms. Text that arrives before history shows its call (a stream
   * resumed from the start reads the transport and history at once) waits for the call's step: put
   * in at once, it would come before the steps of the calls history has not shown yet, and a new
   * step ends the text parts the client has open.
   */
  delta(d: TextDelta): void {
    if (d.workflowId !== this.workflowId) return;
    if (!this.#parts.has(`step:${d.call}`)) {
      if (this.#earlyCount >= MAX_EARLY_DELTAS) return;
      const held = this.#early.get(d.call) ?? [];
      held.push(d);
      this.#early.set(d.call, held);
      this.#earlyCount += 1;
      return;
    }
    for (const change of this.#board.delta(d))
      if (change.kind === 'text' || change.kind === 'text_reset') this.showText(d.call, false);
  }

  /** A model call answered with `text` (history's record), the text it wrote replaced by it. */
  answered(call: string, agent: string, text: string): void {
    this.step(call);
    this.#board.settle(this.workflowId, call, agent, text);
    this.showText(call, true);
  }

  /** A tool call the model asked for. */
  toolCall(agent: string, call: { id: string; name: string; arguments: string }): ToolView {
    // Providers may repeat an id; each call keeps a part of its own.
    let id = call.id || `${agent}-call`;
    for (let n = 2; this.#parts.has(`tool:${id}`); n++) id = `${call.id || `${agent}-call`}~${n}`;
    const part: ToolView = {
      kind: 'tool',
      toolCallId: id,
      toolName: call.name,
      agent,
      input: parseJson(call.arguments),
      state: 'input',
    };
    this.add(`tool:${id}`, part);
    return part;
  }

  /** The tool part of a call, by the model's id (the latest with it). */
  tool(toolCallId: string): ToolView | undefined {
    const tools = this.view.parts.filter(
      (p): p is ToolView =>
        p.kind === 'tool' && (p.toolCallId === toolCallId || p.toolCallId.startsWith(`${toolCallId}~`)),
    );
    return tools.at(-1);
  }

  /** The latest handoff call of `agent` still waiting for what becomes of it. */
  openHandoff(agent: string, to?: string): ToolView | undefined {
    return lastOf(
      this.view.parts,
      (p): p is ToolView =>
        p.kind === 'tool' &&
        p.agent === agent &&
        isHandoffTool(p.toolName) &&
        (p.state === 'input' || p.state === 'approval-requested' || p.state === 'approved') &&
        (to === undefined ||
          (p.input as { to?: unknown })?.to === undefined ||
          (p.input as { to?: unknown }).to === to),
    );
  }

  /** A data part, new or updated in place (by its name and id). */
  data(name: DataView['name'], id: string, data: Record<string, unknown>): void {
    const existing = this.#parts.get(`data:${name}:${id}`) as DataView | undefined;
    if (existing) existing.data = { ...existing.data, ...data };
    else this.add(`data:${name}:${id}`, { kind: 'data', name, id, data });
  }

  /** The answer ended: its output (the record the last text is settled to) or its failure. */
  end(outcome: { output: unknown } | { failure: { type: string; message: string } }): void {
    if ('failure' in outcome) {
      this.view.status = 'failed';
      this.view.failure = outcome.failure;
      this.data('failure', 'failure', { ...outcome.failure });
    } else {
      this.view.status = 'answered';
      this.view.output = outcome.output;
      const recorded = typeof outcome.output === 'string' ? outcome.output : JSON.stringify(outcome.output);
      const last = lastOf(this.view.parts, (p): p is TextView => p.kind === 'text');
      // The answer history records is the last word: shown once, whatever the calls wrote.
      if (recorded !== '' && last?.text !== recorded) {
        this.step('answer');
        this.add('text:answer', { kind: 'text', id: 'answer', text: recorded, done: true });
      }
    }
    for (const p of this.view.parts) {
      if (p.kind === 'text') p.done = true;
      if (p.kind === 'tool' && (p.state === 'input' || p.state === 'approved' || p.state === 'approval-requested'))
        Object.assign(p, { state: 'error', errorText: 'not run: the answer ended first' });
    }
  }

  private showText(call: string, done: boolean): void {
    const text = this.#board.textOf(this.workflowId, call) ?? '';
    const part = this.#parts.get(`text:${call}`) as TextView | undefined;
    if (part) Object.assign(part, { text, done: part.done || done });
    else if (text !== '') this.add(`text:${call}`, { kind: 'text', id: call, text, done });
  }

  private add(key: string, part: PartView): void {
    this.#parts.set(key, part);
    this.view.parts.push(part);
  }
}

/** Whether a tool is the built-in handoff (or a per-target `handoff_to_<id>`). */
export function isHandoffTool(name: string): boolean {
  return name === 'handoff' || name.startsWith('handoff_to_');
}

/** JSON text as its value; text that is not JSON as it is. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The last item of `items` that `test` holds for. */
export function lastOf<T, S extends T>(items: readonly T[], test: (item: T) => item is S): S | undefined;
export function lastOf<T>(items: readonly T[], test: (item: T) => boolean): T | undefined;
export function lastOf<T>(items: readonly T[], test: (item: T) => boolean): T | undefined {
  for (let i = items.length - 1; i >= 0; i--) if (test(items[i]!)) return items[i];
  return undefined;
}
