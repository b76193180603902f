import { identityText } from '../audit/approvalLines';
import type { PendingHandoff } from '../client/baton';
import type { RunEvent } from '../client/runEvent';
import type { RunResult } from '../client/run';
import { chainPath } from '../common/budgetErrors';
import { displayText } from '../common/display';
import { formatCost } from '../common/economics/prices';
import type { ApprovalRecord, HandoffRecord, PendingApproval } from '../common/types';

/** Writes one line (or several, joined by newlines). */
export type Print = (line: string) => void;

/** The answer of a chain that started at `start`, its path and its usage. */
export function formatResult(start: string, r: RunResult): string {
  return [
    `answer from ${displayText(r.finalAgent)}:`,
    // The answer's own lines stay lines, indented under baton's; anything else that would act on the terminal shows as an escape.
    `  ${r.output.split('\n').map(displayText).join('\n  ')}`,
    `chain: ${r.handoffChain.length > 0 ? chainPath(r.handoffChain) : start} (${r.handoffChain.length} handoff${r.handoffChain.length === 1 ? '' : 's'})`,
    `usage: ${counted(r.usage.modelCalls, 'model call')}, ${counted(r.usage.toolCalls, 'tool call')}, ${counted(r.usage.totalTokens, 'token')}${r.usage.cost ? `, cost ${formatCost(r.usage.cost)}` : ''}`,
  ].join('\n');
}

/** `1 tool call`, `2 tool calls`. */
export function counted(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}

/** One handoff as it happens: `↪ triage → refunds [approved by alice]: message`. */
export function formatHandoff(h: HandoffRecord): string {
  const message = h.message.length > 100 ? `${h.message.slice(0, 97)}...` : h.message;
  const approval = h.approval
    ? ` [${h.approval.outcome === 'approved' ? `approved by ${displayText(h.approval.approver ?? '?')}` : 'approved on timeout'}]`
    : '';
  return `  ↪ ${displayText(h.from)} → ${displayText(h.to)}${approval}: ${displayText(message)}`;
}

/**
 * A delegation as it starts or ends: `⇢ lead delegates to physics: What is a qubit?`, then
 * `⇠ physics answered lead` (or how it failed).
 */
export function formatDelegation(e: Extract<RunEvent, { kind: 'delegation_started' | 'delegation_ended' }>): string {
  if (e.kind === 'delegation_started') {
    // The specialist's input opens with the task ("Task from lead: …"), then the reason and context on lines of their own.
    const task = e.task.split('\n')[0]!.replace(/^Task from [^:]*: /, '');
    return displayText(`  ⇢ ${e.agent} delegates to ${e.to}: ${task.length > 100 ? `${task.slice(0, 97)}...` : task}`);
  }
  if (e.outcome === 'completed') return displayText(`  ⇠ ${e.to} answered ${e.agent}`);
  return displayText(`  ✗ ${e.to} ${e.outcome.replace(/_/g, ' ')} for ${e.agent}${e.error ? `: ${e.error}` : ''}`);
}

/** Longest arguments shown on one line; `baton pending --json` has them whole. */
const ARGUMENTS_WIDTH = 200;

/**
 * What waits for approval: `triage → refunds` for a handoff, or, for a tool call, the agent and the
 * call with its arguments: `refunds → tool issueRefund {"orderId":"A1","amount":250}`.
 */
export function approvalSubject(
  p: Pick<PendingApproval, 'from' | 'to'> & {
    tool?: { name: string; arguments: string | object; argumentsText?: string };
  },
): string {
  if (!p.tool) return displayText(`${p.from} → ${p.to}`);
  const text =
    p.tool.argumentsText ??
    (typeof p.tool.arguments === 'string' ? p.tool.arguments : JSON.stringify(p.tool.arguments));
  return displayText(`${p.from} → tool ${p.tool.name} ${compactArguments(text)}`);
}

/** A call's arguments (JSON text as the model wrote it) on one line: compact JSON when it parses, clipped. */
export function compactArguments(text: string): string {
  let compact = text.replace(/\s+/g, ' ').trim();
  try {
    compact = JSON.stringify(JSON.parse(text));
  } catch {
    // Shown as the model wrote it: the approver should see what it sent.
  }
  return compact.length > ARGUMENTS_WIDTH ? `${compact.slice(0, ARGUMENTS_WIDTH - 1)}…` : compact;
}

/** A handoff or tool call waiting for approval, for `baton pending`. */
export function formatPending(p: PendingHandoff): string {
  const age = Math.round(p.ageMs / 1000);
  const head = `${p.workflowId}  ${p.approvalId}  ${approvalSubject(p)}  waiting ${age}s${p.approvers ? `  approvers: ${p.approvers.join(', ')}` : ''}${p.team ? `  team ${p.team}` : ''}`;
  // A tool call's message is the call itself, already on the line.
  const asked = (p.questions ?? [])
    .map(
      (q) =>
        `\n    ? ${displayText(`${q.askedBy}: ${JSON.stringify(q.question)}${q.answer !== undefined ? ` → ${q.answeredBy ?? ''}: ${JSON.stringify(q.answer)}` : ' (waits for the answer)'}`)}`,
    )
    .join('');
  return (p.tool ? displayText(head) : `${displayText(head)}\n    ${displayText(JSON.stringify(p.message))}`) + asked;
}

/** How to decide a waiting handoff (or, with `tool`, a tool call) from another shell. */
export function decideHint(workflowId: string, approvalId: string, tool = false): string {
  return `decide with: npx baton approve ${workflowId} --id ${approvalId} --as <you>${tool ? ` [--args '<json object of fields to change>']` : ''}   (or reject)`;
}

/**
 * A handoff or tool call waiting for approval, as a run follows it: `⏸ triage → refunds waits for
 * approval (handoff …)`, `⏸ refunds → tool issueRefund {"orderId":"A1"} waits for approval (tool call …)`.
 */
export function formatWaiting(p: PendingApproval): string {
  return `  ⏸ ${approvalSubject(p)} waits for approval (${p.tool ? 'tool call' : 'handoff'} ${p.handoffId}${p.approvers ? `, approvers: ${p.approvers.join(', ')}` : ''})`;
}

/** A decision as `baton approve` prints it: `tool call … (issueRefund) approved by alice with edited arguments {…}`. */
export function formatDecision(d: ApprovalRecord): string {
  const what = d.tool ? `tool call ${d.handoffId} (${d.tool})` : `handoff ${d.handoffId}`;
  return displayText(
    `${what} ${d.outcome.replace(/_/g, ' ')}${d.approver ? ` by ${d.approver}${d.onBehalfOf ? ` for ${d.onBehalfOf}` : ''}` : ''}${d.reasonLabel ? `: ${d.reason} (${d.reasonLabel})` : ''}${d.editedArguments ? ` with edited arguments ${compactArguments(d.editedArguments)}` : ''}${identityText(d.identity)}`,
  );
}

/**
 * A decision that no handoff line will show (an approved handoff shows it in its own line):
 * `✗ triage → refunds rejected by bob: not this one`, or a timeout and what the policy made of it.
 */
export function formatRefusal(d: ApprovalRecord, edge: string): string {
  if (d.outcome === 'rejected')
    return displayText(`  ✗ ${edge} rejected by ${d.approver ?? 'someone'}${d.reason ? `: ${d.reason}` : ''}`);
  const after = d.timeout !== undefined ? ` in ${typeof d.timeout === 'number' ? `${d.timeout} ms` : d.timeout}` : '';
  return `  ⌛ ${edge}: no decision${after}, so ${d.onTimeout === 'fail' ? 'the run fails' : d.onTimeout === 'approve' ? 'it goes ahead' : 'it is rejected'}`;
}

/** Frames of the spinner on a {@link LiveLine}. */
const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** Erase the terminal's current line and go back to its start. */
const ERASE = '\r\x1b[2K';

/**
 * One line of a terminal that redraws itself in place (a spinner and what `render` says), below
 * the lines printed through {@link LiveLine.wrap}. Only for a TTY: see {@link LiveLine.on}.
 */
export class LiveLine {
  #render: (now: number) => string = () => '';
  #shown = false;
  #paused = false;
  #frame = 0;
  #timer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly stream: NodeJS.WriteStream,
    private readonly intervalMs: number,
  ) {}

  /** A live line on `stream` when it is a terminal; `undefined` elsewhere (a pipe, a file). */
  static on(stream: NodeJS.WriteStream, intervalMs = 100): LiveLine | undefined {
    return stream.isTTY ? new LiveLine(stream, intervalMs) : undefined;
  }

  /** Redraw every `intervalMs` with what `render` says (nothing while it says `''`). */
  show(render: (now: number) => string): void {
    this.#render = render;
    this.#timer ??= setInterval(() => this.draw(), this.intervalMs).unref();
    this.draw();
  }

  /** `print`, with the live line erased before and drawn again after. */
  wrap(print: Print): Print {
    return (line) => {
      this.erase();
      print(line);
      this.draw();
    };
  }

  /** Erase the line and leave the terminal alone (while a prompt asks something) until {@link resume}. */
  pause(): void {
    this.erase();
    this.#paused = true;
  }

  resume(): void {
    this.#paused = false;
    this.draw();
  }

  /** Erase the line for good. */
  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    this.erase();
    this.#paused = true;
  }

  private draw(): void {
    if (this.#paused) return;
    const text = this.#render(Date.now());
    if (!text) return this.erase();
    this.#frame = (this.#frame + 1) % SPINNER.length;
    // A line longer than the terminal wraps, and `\r` would then redraw only its last part.
    const width = Math.max(10, (this.stream.columns || 80) - 1);
    const line = `${SPINNER[this.#frame]} ${text}`;
    this.stream.write(`${ERASE}${line.length > width ? `${line.slice(0, width - 1)}…` : line}`);
    this.#shown = true;
  }

  private erase(): void {
    if (!this.#shown) return;
    this.stream.write(ERASE);
    this.#shown = false;
  }
}
