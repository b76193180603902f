/**
 * A spend ledger's book: what a key spent in one window, and the reservations of calls in flight.
 * A reservation is granted when what is spent, what is reserved and it fit the limit; it waits
 * while only other chains' reservations stand in the way (they may settle for less); it is refused
 * when what is already spent leaves no room for it. So the spend of a window never passes its limit
 * by more than what calls cost beyond their reservations.
 *
 * Pure: no Temporal API, no I/O.
 */
import { isRecord } from '../../src/common/check';
import type { LedgerState, OpenReservation, ReserveSpend, SettleSpend } from '../../src/common/economics/messages';

/** Reservations and settles remembered after they close, so one sent again counts once. */
const REMEMBERED = 2000;
/** Reservations open at once; beyond it a reservation is refused (a bound on what outsiders can make a ledger hold). */
export const MAX_OPEN_RESERVATIONS = 10_000;
/** The largest amount one request may name, in micros (a billion of the currency). */
const MAX_MICROS = 1e15;

/** A new ledger's state. */
export function newLedger(limitMicros: number): LedgerState {
  return { limitMicros, spentMicros: 0, open: [], closed: [], granted: 0, refused: 0, runs: 1 };
}

/** What a reservation request gets now. */
export type Decision = 'granted' | 'refused' | 'wait';

export class Ledger {
  constructor(readonly state: LedgerState) {}

  get reservedMicros(): number {
    return this.state.open.reduce((sum, r) => sum + r.micros, 0);
  }

  /** Whether `r` is granted, refused, or must wait for reservations that stand in its way. */
  decide(r: ReserveSpend): Decision {
    const s = this.state;
    if (s.open.some((o) => o.id === r.id) || s.closed.some(([id]) => id === r.id)) return 'granted';
    if (s.spentMicros + r.micros > r.limitMicros || s.open.length >= MAX_OPEN_RESERVATIONS) return 'refused';
    return s.spentMicros + this.reservedMicros + r.micros <= r.limitMicros ? 'granted' : 'wait';
  }

  /** Act on a decision that is not `wait`: a grant opens the reservation (once); both count. */
  take(r: ReserveSpend, decision: 'granted' | 'refused', now: number): void {
    const s = this.state;
    s.limitMicros = r.limitMicros;
    if (decision === 'refused') {
      s.refused++;
      return;
    }
    if (s.open.some((o) => o.id === r.id) || s.closed.some(([id]) => id === r.id)) return;
    s.granted++;
    s.open.push({ id: r.id, chain: r.chain, micros: r.micros, expiresAt: now + r.ttlMs });
  }

  /**
   * A call's cost: its reservation closes and the cost counts. A settle for a reservation that
   * expired corrects what the expiry charged; one for a reservation never made (a call made without
   * one) counts as it is; one sent again counts once.
   */
  settle(s: SettleSpend): void {
    const book = this.state;
    const open = book.open.findIndex((o) => o.id === s.id);
    const closed = book.closed.findIndex(([id]) => id === s.id);
    if (open >= 0) {
      book.open.splice(open, 1);
      book.spentMicros += s.micros;
    } else if (closed >= 0) {
      const [, charged] = book.closed[closed]!;
      // Negative: the reservation is still open in another form (it expired); a settle already taken is marked -1.
      if (charged < 0) return;
      book.spentMicros += s.micros - charged;
      book.closed.splice(closed, 1);
    } else book.spentMicros += s.micros;
    this.remember(s.id, -1);
  }

  /** Reservations past their time are charged in full, as if spent; the time of the next expiry, if any. */
  expire(now: number): number | undefined {
    const book = this.state;
    const [due, kept] = partition(book.open, (o) => o.expiresAt <= now);
    book.open = kept;
    for (const o of due) {
      book.spentMicros += o.micros;
      this.remember(o.id, o.micros);
    }
    return kept.length > 0 ? Math.min(...kept.map((o) => o.expiresAt)) : undefined;
  }

  private remember(id: string, charged: number): void {
    const book = this.state;
    book.closed = [...book.closed.filter(([x]) => x !== id), [id, charged] as [string, number]].slice(-REMEMBERED);
  }
}

function partition<T>(list: T[], pick: (x: T) => boolean): [T[], T[]] {
  return [list.filter(pick), list.filter((x) => !pick(x))];
}

const ID = (v: unknown) => typeof v === 'string' && v !== '' && v.length <= 600;
const MICROS = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && v <= MAX_MICROS;

/** Problems with a reservation request (the update's validator refuses it with them). */
export function reserveProblems(r: unknown): string[] {
  if (!isRecord(r)) return ['a reservation must be {id, chain, micros, limitMicros, ttlMs}'];
  const problems: string[] = [];
  if (!ID(r.id)) problems.push('"id" must be a non-empty string of at most 600 characters');
  if (!ID(r.chain)) problems.push('"chain" must name the chain asking (a workflow id)');
  if (!MICROS(r.micros)) problems.push(`"micros" must be an integer from 0 to ${MAX_MICROS}`);
  if (!MICROS(r.limitMicros) || r.limitMicros === 0)
    problems.push(`"limitMicros" must be an integer from 1 to ${MAX_MICROS}`);
  if (typeof r.ttlMs !== 'number' || !Number.isInteger(r.ttlMs) || r.ttlMs < 1000 || r.ttlMs > 31 * 86_400_000)
    problems.push('"ttlMs" must be an integer from 1000 to 31 days in milliseconds');
  return problems;
}

/** Whether a settle is well formed (a bad one is dropped: signals have no caller to answer). */
export function validSettle(s: unknown): s is SettleSpend {
  return isRecord(s) && ID(s.id) && MICROS(s.micros);
}

export type { OpenReservation };
