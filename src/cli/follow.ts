import type { RunEvent } from '../client/runEvent';
import type { BatonRun, RunResult } from '../client/run';
import type { PendingApproval } from '../common/types';
import type { SensitiveArguments } from '../common/sensitive';
import { controlLine } from '../audit/format';
import { displayText } from '../common/display';
import { InFlight, specialistLines } from './inFlight';
import { LiveText } from './liveText';
import {
  approvalSubject,
  decideHint,
  formatDelegation,
  formatHandoff,
  formatRefusal,
  formatWaiting,
  type LiveLine,
  type Print,
} from './print';

/** What {@link follow} does besides printing. */
export interface FollowOptions {
  /**
   * Called once for each handoff that starts waiting for approval; it says so itself. Without it,
   * follow prints the waiting handoff and how to decide it.
   */
  onPending?: (run: BatonRun, pending: PendingApproval & { sensitive?: SensitiveArguments }) => Promise<void>;
  /**
   * The terminal `print` writes to, as a live line: what each agent is doing then shows there with
   * a spinner and the elapsed time ("refunds: model call… 4.2 s"), instead of a line per call.
   * Without it, each model and tool call is a line of its own ("refunds: model call").
   */
  live?: LiveLine;
  /**
   * Write model text as it forms (raw, no newline added): each call's text shows as it is written,
   * on a line of its own (`  writer: …`). Without it, only the events show.
   */
  write?: (text: string) => void;
  /**
   * Said once, through `note`, when an answer arrives whole that no text came for as it formed: why
   * the text did not stream and how to have it (the worker is another process and no shared broker
   * carries it).
   */
  textNote?: string;
  /** Where `textNote` goes (stderr: it is about the command, not the chain). @default `print` */
  note?: Print;
}

/**
 * Print what `run` does as it happens, from its history (`BatonRun.events()`, no query polling):
 * each model and tool call, each handoff, each approval asked for and each refused, and each time a
 * control acted (a loop, a circuit breaker, a guardrail, a budget); then return its result, or
 * throw its typed error.
 */
export async function follow(run: BatonRun, print: Print, options: FollowOptions = {}): Promise<RunResult> {
  const { live } = options;
  const out = live ? live.wrap(print) : print;
  const doing = new InFlight();
  live?.show((now) => doing.describe(now));
  const result = run.result();
  // A failure is thrown below, once the progress up to it is printed: until then it is not unhandled.
  result.catch(() => undefined);
  try {
    await showProgress(run, out, doing, options);
    return await result;
  } finally {
    live?.stop();
  }
}

async function showProgress(run: BatonRun, print: Print, doing: InFlight, options: FollowOptions): Promise<void> {
  const printed = new Set<number>();
  const asked = new Set<string>();
  const edges = new Map<string, string>();
  const waiting = new Map<string, PendingApproval & { sensitive?: SensitiveArguments }>();
  const events = run.stream();
  const text = options.write ? new LiveText(options.write) : undefined;
  let next = events.next();
  // Whether text came as it formed (or the note on why it does not was said).
  let textSeen = false;
  try {
    for (;;) {
      // Asked only once the history read so far is used up, so a handoff decided meanwhile is not asked about.
      if (waiting.size > 0 && !(await settlesAtOnce(next))) {
        for (const p of waiting.values()) await askOrHint(run, p, print, options);
        waiting.clear();
      }
      const { value: e, done } = await next;
      if (done) return;
      next = events.next();
      if (e.kind === 'text' || e.kind === 'text_reset') {
        // Text that comes only with the recorded answer did not stream.
        if (!e.final) textSeen = true;
        // The live line keeps off the text while it is written (a note on text already closed writes no line to keep).
        if (text && !text.open) options.live?.pause();
        text?.apply(e);
        if (text && !text.open) options.live?.resume();
        continue;
      }
      if (text?.open) {
        text.end();
        options.live?.resume();
      }
      if (e.kind === 'text_unavailable') {
        if (options.write) print(`  (live text unavailable: ${e.error}; each answer shows when its call ends)`);
        continue;
      }
      if (options.textNote && !textSeen && answeredWhole(e)) {
        (options.note ?? print)(options.textNote);
        textSeen = true;
      }
      doing.apply(e);
      switch (e.kind) {
        case 'model_call':
          if (!options.live) print(displayText(`  ${e.agent}: model call`));
          break;
        case 'tool_call':
          if (!options.live) print(displayText(`  ${e.agent}: tool ${e.tool}`));
          break;
        case 'handoff':
          if (!printed.has(e.index)) print(formatHandoff(e.handoff));
          printed.add(e.index);
          break;
        case 'approval_requested':
          edges.set(e.approval.handoffId, approvalSubject(e.approval));
          if (!asked.has(e.approval.handoffId)) waiting.set(e.approval.handoffId, e.approval);
          asked.add(e.approval.handoffId);
          break;
        case 'approval_decided':
          waiting.delete(e.decision.handoffId);
          if (
            e.decision.outcome !== 'approved' &&
            !(e.decision.outcome === 'timed_out' && e.decision.onTimeout === 'approve')
          ) {
            print(formatRefusal(e.decision, edges.get(e.decision.handoffId) ?? `handoff ${e.decision.handoffId}`));
          }
          break;
        case 'delegation_started':
        case 'delegation_ended':
          print(formatDelegation(e));
          break;
        case 'specialist':
          if (!options.live) for (const line of specialistLines(e)) print(line);
          break;
        case 'control': {
          const [what, text] = controlLine(e.control);
          print(displayText(`  ⚠ ${what}: ${text}`));
          break;
        }
        default:
          break;
      }
    }
  } catch (err) {
    // Progress is a courtesy: the result (or the typed error) still comes from the run itself.
    print(`  (progress not shown from here on: ${(err as Error).message})`);
  } finally {
    text?.end();
    // Not awaited: a history long-poll still open would hold it up.
    void events.return(undefined).catch(() => undefined);
  }
}

/** Hand a waiting handoff to `onPending`, or, without one, say how to decide it. */
async function askOrHint(
  run: BatonRun,
  p: PendingApproval & { sensitive?: SensitiveArguments },
  print: Print,
  options: FollowOptions,
): Promise<void> {
  if (!options.onPending) {
    print(`${formatWaiting(p)}\n    ${decideHint(run.workflowId, p.handoffId, p.tool !== undefined)}`);
    return;
  }
  // A prompt may take the terminal: the live line keeps off it meanwhile.
  options.live?.pause();
  try {
    await options.onPending(run, p).catch((err: Error) => print(`    could not decide: ${err.message}`));
  } finally {
    options.live?.resume();
  }
}

/** Whether `p` settles before the event loop turns, i.e. without waiting for the server. */
function settlesAtOnce(p: Promise<unknown>): Promise<boolean> {
  return Promise.race([
    p.then(
      () => true,
      () => true,
    ),
    new Promise<boolean>((resolve) => setImmediate(() => resolve(false))),
  ]);
}

/** Whether `e` is a model's answer with text, of the chain or of a specialist. */
function answeredWhole(e: RunEvent): boolean {
  if (e.kind === 'specialist') return answeredWhole(e.event);
  return e.kind === 'model_answered' && typeof e.text === 'string' && e.text !== '';
}
