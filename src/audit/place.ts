/**
 * Where each audit event sits: the history event it was read from (its run, its id, its time).
 * Some steps are only known in full later (a tool call the model asked for runs after its
 * approval; a call the workflow answers shows its answer in a later event), so an event is placed
 * again when the step it records happens, and the audit lists events in history order.
 */
import type { HistoryEvent } from '../payloads/read';

/** A history event's place: its run, its id and its time (ISO 8601). */
export interface Where {
  at: string;
  runId: string;
  eventId: number;
}

/** The time of a history event, in milliseconds. */
export function timeOf(e: HistoryEvent): number {
  const t = e.eventTime;
  return t ? Number(t.seconds?.toString() ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6) : 0;
}

export const iso = (ms: number) => new Date(ms).toISOString();

/** The place of history event `e` of run `runId`. */
export function whereOf(e: HistoryEvent, runId: string): Where {
  return { at: iso(timeOf(e)), runId, eventId: Number(e.eventId?.toString() ?? 0) };
}

/** Orders events by when they were placed: histories are read oldest first, so that is history order. */
export class Placement {
  private seq = 0;
  private readonly order = new WeakMap<object, number>();

  /** Put `event` at `where` (after everything placed so far) and return it. */
  place<E extends object>(event: E, where: Where): E & Where {
    Object.assign(event, { at: where.at, runId: where.runId, eventId: where.eventId });
    this.order.set(event, ++this.seq);
    return event as E & Where;
  }

  /** `events` in the order they were last placed. */
  sorted<E extends object>(events: E[]): E[] {
    return [...events].sort((a, b) => (this.order.get(a) ?? 0) - (this.order.get(b) ?? 0));
  }
}
