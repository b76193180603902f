/**
 * What a viewer of a stream holds: the text of each model call, put together from deltas by their
 * offsets, a failed try's text dropped when the next try starts, and each call's text replaced by
 * the answer history records once it is known. So a viewer that applies what the board says ends
 * with the recorded answers, whatever was sent twice, cut off or written by a try that failed.
 */
import type { TextDelta } from './types';

/** New text of a model call: it goes at `offset` of the call's text (text before it is what the viewer has). */
export interface TextPiece {
  kind: 'text';
  workflowId: string;
  agent: string;
  call: string;
  turn: number;
  message?: string;
  offset: number;
  text: string;
  /** Set when the piece comes from the answer history records (the call has ended), not from the stream. */
  final?: true;
}

/**
 * Drop the text shown for a model call: a new try of the call started (`retry`), the text shown
 * differs from the answer history records, which follows in full (`correction`), or the call was
 * stopped by an interrupt before it answered (`stopped`).
 */
export interface TextReset {
  kind: 'text_reset';
  workflowId: string;
  agent: string;
  call: string;
  turn: number;
  message?: string;
  reason: 'retry' | 'correction' | 'stopped';
  /** Set when the reset comes from the answer history records (a `correction`). */
  final?: true;
}

/** What a viewer applies. */
export type TextChange = TextPiece | TextReset;

/** The text one model call has written so far, for the chain that made it. */
interface CallText {
  agent: string;
  turn: number;
  message?: string;
  restart: number;
  attempt: number;
  text: string;
  settled: boolean;
}

/** The text of every model call a viewer follows. */
export class TextBoard {
  readonly #calls = new Map<string, CallText>();

  /** What a delta changes: nothing (already shown, an earlier try's, or a settled call's), new text, or a reset and new text. */
  delta(d: TextDelta): TextChange[] {
    const key = keyOf(d.workflowId, d.call);
    let c = this.#calls.get(key);
    const out: TextChange[] = [];
    const who = {
      workflowId: d.workflowId,
      agent: d.agent,
      call: d.call,
      turn: d.turn,
      ...(d.message !== undefined ? { message: d.message } : {}),
    };
    if (!c)
      this.#calls.set(
        key,
        (c = {
          agent: d.agent,
          turn: d.turn,
          ...(d.message !== undefined ? { message: d.message } : {}),
          restart: d.restart,
          attempt: d.attempt,
          text: '',
          settled: false,
        }),
      );
    if (c.settled) return out;
    const order = compareTries(d, c);
    if (order < 0) return out;
    if (order > 0) {
      if (c.text !== '') out.push({ kind: 'text_reset', ...who, reason: 'retry' });
      Object.assign(c, { restart: d.restart, attempt: d.attempt, text: '' });
    }
    // What the viewer has already: a delta sent again adds only what is new; one past the end waits for the answer.
    const end = d.offset + d.text.length;
    if (end <= c.text.length || d.offset > c.text.length) return out;
    const fresh = d.text.slice(c.text.length - d.offset);
    out.push({ kind: 'text', ...who, offset: c.text.length, text: fresh });
    c.text += fresh;
    return out;
  }

  /**
   * The call's answer as history records it: the text shown stays when it is that answer, else it is
   * replaced (a reset and the whole answer). Later deltas of the call change nothing.
   */
  settle(
    workflowId: string,
    call: string,
    agent: string,
    recorded: string,
    context: { turn?: number; message?: string; reason?: 'stopped' } = {},
  ): TextChange[] {
    const key = keyOf(workflowId, call);
    const c = this.#calls.get(key) ?? {
      agent,
      turn: context.turn ?? 0,
      ...(context.message !== undefined ? { message: context.message } : {}),
      restart: 0,
      attempt: 0,
      text: '',
      settled: false,
    };
    this.#calls.set(key, c);
    if (c.settled) return [];
    c.settled = true;
    if (c.text === recorded) return [];
    const who = {
      workflowId,
      agent: c.agent,
      call,
      turn: c.turn,
      ...(c.message !== undefined ? { message: c.message } : {}),
    };
    const out: TextChange[] = [];
    if (c.text !== '' && !recorded.startsWith(c.text)) {
      out.push({ kind: 'text_reset', ...who, reason: context.reason ?? 'correction', final: true });
      c.text = '';
    }
    if (recorded.length > c.text.length)
      out.push({ kind: 'text', ...who, offset: c.text.length, text: recorded.slice(c.text.length), final: true });
    c.text = recorded;
    return out;
  }

  /** The text a viewer has for the call. */
  textOf(workflowId: string, call: string): string | undefined {
    return this.#calls.get(keyOf(workflowId, call))?.text;
  }
}

function keyOf(workflowId: string, call: string): string {
  return `${workflowId}\n${call}`;
}

/** Which try is later: a restart after a lost worker comes after every attempt before it. */
function compareTries(a: { restart: number; attempt: number }, b: { restart: number; attempt: number }): number {
  return a.restart - b.restart || a.attempt - b.attempt;
}

/** Apply `change` to the text `have` of its call: what a viewer does with each change. */
export function applyChange(have: string, change: TextChange): string {
  if (change.kind === 'text_reset') return '';
  return have.slice(0, change.offset) + change.text;
}
