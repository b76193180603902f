/**
 * The contracts of the long-running workflows that hold what chains share: a spend ledger per limit,
 * key and window (`spendLedger`), and a circuit breaker per scope and target (`circuitBreaker`).
 * Chains reach them through recorded activities (update-with-start, signal-with-start); operators
 * through `baton breakers`, the HTTP service and any Temporal client.
 *
 * Workflow-safe: no I/O.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { SpendWindow } from './spec';

/** Workflow type names of the shared economics. */
export const EconomicsWorkflow = {
  /** What a key spent in one window of one limit; chains reserve before a model call and settle after. */
  SPEND_LEDGER: 'spendLedger',
  /** The circuit breaker of one target, shared by the chains of a scope. */
  CIRCUIT_BREAKER: 'circuitBreaker',
} as const;

/** Input of the `spendLedger` workflow. */
export interface SpendLedgerInput {
  name: string;
  key: string;
  window: SpendWindow;
  /** ISO 8601, UTC. */
  windowStart: string;
  windowEnd: string;
  currency: string;
  /** The ledger's state, carried by continue-as-new. */
  resume?: LedgerState;
}

/** A reservation still open: granted, not settled. */
export interface OpenReservation {
  id: string;
  chain: string;
  micros: number;
  /** Workflow time (ms) after which it is charged in full as if spent. */
  expiresAt: number;
}

/** What a ledger carries across continue-as-new. */
export interface LedgerState {
  limitMicros: number;
  spentMicros: number;
  open: OpenReservation[];
  /** Reservations settled or expired lately, with what was charged (bounded): a repeated settle or reserve is answered from here. */
  closed: [string, number][];
  granted: number;
  refused: number;
  runs: number;
}

/** A request to reserve `micros` before a model call (the call's worst case). */
export interface ReserveSpend {
  /** The reservation's id: the same for every retry of the same call. */
  id: string;
  /** The chain asking (its workflow id). */
  chain: string;
  micros: number;
  /** The limit as the chain's snapshot has it; the newest one asked with wins. */
  limitMicros: number;
  /** How long the reservation holds without a settle before it is charged in full. */
  ttlMs: number;
}

/**
 * A ledger's answer: granted (the call may go ahead), refused (it could pass the limit), wait (only
 * other calls' reservations stand in the way: ask again once they may have settled), or again (the
 * ledger was handing over to its next run). The `reserveSpend` activity asks again until it is
 * granted or refused.
 */
export type ReserveAnswer = ({ granted: true } | { granted: false } | { wait: true } | { again: true }) & {
  spentMicros: number;
  reservedMicros: number;
  limitMicros: number;
};

/** What a call turned out to cost, for the reservation `id`. */
export interface SettleSpend {
  id: string;
  micros: number;
}

/** Where a ledger stands (the `spendLedger` query). */
export interface LedgerView {
  name: string;
  key: string;
  window: SpendWindow;
  windowStart: string;
  windowEnd: string;
  currency: string;
  limitMicros: number;
  spentMicros: number;
  reservedMicros: number;
  openReservations: number;
  granted: number;
  refused: number;
}

/** Update: reserve spend for a model call; answers at once (a waiting reservation holds no update in flight). */
export const reserveSpendUpdate = defineUpdate<ReserveAnswer, [ReserveSpend]>('reserveSpend');
/**
 * Update: several reservations at once, decided in order, answered in order. A worker sends the
 * questions its chains have for one ledger together, so the ledger has one update in flight per
 * worker process however many chains ask (Temporal takes 10 in flight per workflow).
 */
export const reserveSpendBatchUpdate = defineUpdate<ReserveAnswer[], [ReserveSpend[]]>('reserveSpendBatch');
/** Signal: what a reserved call cost (0 when it failed); the reservation is released. */
export const settleSpendSignal = defineSignal<[SettleSpend]>('settleSpend');
/** Query: where the ledger stands. */
export const ledgerQuery = defineQuery<LedgerView>('spendLedger');

/** Input of the `circuitBreaker` workflow. */
export interface BreakerInput {
  scope: string;
  target: string;
  resume?: BreakerView;
}

/** The configuration a chain's snapshot gives its breaker calls; the newest one wins. */
export interface BreakerSettings {
  threshold: number;
  cooldownMs: number;
}

/** A chain asks whether it may hand off or delegate to the target. */
export interface AskBreaker extends BreakerSettings {
  chain: string;
}

/**
 * The breaker's answer: `closed` lets the chain through; `open` refuses it until `until`;
 * `half_open` with `trial` lets this chain make the one trial, without `trial` refuses it while
 * another chain's trial runs.
 */
export interface BreakerAnswer {
  state: 'closed' | 'open' | 'half_open';
  failures: number;
  until?: string;
  trial?: boolean;
}

/** What happened at the target in a chain. */
export interface BreakerReport extends BreakerSettings {
  /** Dedupes a report sent again. */
  id: string;
  chain: string;
  outcome: 'failure' | 'success';
  reason?: string;
}

/** An operator resets a breaker: it closes, with who did it on the record. */
export interface ResetBreaker {
  by: string;
  reason?: string;
}

/** Where a shared breaker stands (the `circuitBreaker` query, and its `batonBreaker` memo). */
export interface BreakerView {
  scope: string;
  target: string;
  state: 'closed' | 'open' | 'half_open';
  /** Failures since the last success. */
  failures: number;
  /** When it opened (ISO 8601), while open or half open. */
  openedAt?: string;
  /** When an open breaker lets a trial through. */
  until?: string;
  /** The chain making the trial, while half open, and until when it may. */
  trial?: { chain: string; until: string };
  lastFailure?: { chain: string; reason: string; at: string };
  /** The latest resets, newest last (at most 10). */
  resets: { by: string; reason?: string; at: string }[];
  /** Reports taken by id lately (bounded), so a report sent again counts once. */
  seen?: string[];
  settings: BreakerSettings;
}

/** Update: may this chain go to the target now? */
export const askBreakerUpdate = defineUpdate<BreakerAnswer, [AskBreaker]>('askBreaker');
/** Update: several chains' questions at once, answered in order (as {@link reserveSpendBatchUpdate} for ledgers). */
export const askBreakerBatchUpdate = defineUpdate<BreakerAnswer[], [AskBreaker[]]>('askBreakerBatch');
/** Signal: a failure or success of the target in a chain. */
export const reportBreakerSignal = defineSignal<[BreakerReport]>('reportToBreaker');
/** Update: close the breaker, recorded with who reset it; answers the breaker's state after. */
export const resetBreakerUpdate = defineUpdate<BreakerView, [ResetBreaker]>('resetBreaker');
/** Query: where the breaker stands. */
export const breakerQuery = defineQuery<BreakerView>('circuitBreaker');

/** The most questions one batch update carries. */
export const MAX_BATCH = 100;

/** Input of the `reserveSpend` activity: the ledger (started with it when it is not running) and the reservation. */
export interface ReserveSpendInput {
  ledger: SpendLedgerInput;
  request: ReserveSpend;
  /**
   * The chain waits on a timer of its own: a reservation that must wait for other chains' settles
   * is answered `wait` at once, instead of the activity asking again until it is granted or refused.
   */
  chainWaits?: boolean;
}

/** Input of the `settleSpend` activity. */
export interface SettleSpendInput {
  ledger: SpendLedgerInput;
  settle: SettleSpend;
}

/** Input of the `askBreaker` and `reportToBreaker` activities. */
export interface BreakerCallInput<T> {
  breaker: BreakerInput;
  message: T;
}

/** Memo key of a shared breaker's state, upserted on each change: lists read it, and metrics count it. */
export const BREAKER_MEMO = 'batonBreaker';
