/**
 * Economics: model prices and costs, spend limits and their ledger, shared circuit breakers, chain
 * budgets, and the client that reads them — `import { BatonEconomics, DEFAULT_PRICES } from 'baton-agents/economics'`.
 * @packageDocumentation
 * @module baton-agents/economics
 */
export { BatonEconomics, type ListEconomicsOptions, type SharedBreakerState } from '../client/economics';
export { chainPath, MaxTurnsExceededError } from '../common/budgetErrors';
export { toMicros, fromMicros, priceOf, noCost, callCost, addCost, costAmount, formatCost, priceTableProblems, currencyOf, type ModelPrice, type PriceTable, type Cost, DEFAULT_CURRENCY, type CallTokens, DEFAULT_PRICES, MICROS, economicsProblems, economicsSpec, windowOf, idPart, ledgerId, breakerId, keyFromContext, type SpendWindow, type SpendLimit, type SpendLimitSpec, type SharedBreakers, type SharedBreakersSpec, type EconomicsSpec, type EconomicsOptions, type SpendRefusal, EconomicsWorkflow, type SpendLedgerInput, type OpenReservation, type LedgerState, type ReserveSpend, type ReserveAnswer, type SettleSpend, type LedgerView, reserveSpendUpdate, reserveSpendBatchUpdate, settleSpendSignal, ledgerQuery, type BreakerInput, type BreakerSettings, type AskBreaker, type BreakerAnswer, type BreakerReport, type ResetBreaker, type BreakerView, askBreakerUpdate, askBreakerBatchUpdate, reportBreakerSignal, resetBreakerUpdate, breakerQuery, MAX_BATCH, type ReserveSpendInput, type SettleSpendInput, type BreakerCallInput, BREAKER_MEMO, PriceUnknownError, SpendLimitExceededError, edgeKey, type EconomicsState } from '../common/economics';
