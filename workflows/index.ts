/**
 * baton's workflows: deterministic code only. Each workflow type's code loads when a workflow of
 * that type first runs: every workflow keeps its own instance of each module it loads, so a chain
 * waiting for approval does not hold a conversation's, an evaluation's or a ledger's.
 */
import type * as BreakerModule from './circuitBreaker';
import type * as ConversationModule from './conversation';
import type * as EvalCaseModule from './eval/evalCase';
import type * as EvalRunModule from './eval/evalRun';
import type * as ExperimentModule from './experiment';
import type * as HandoffRunModule from './handoffRun';
import type * as LedgerModule from './spendLedger';

/** A chain: agents handing work to each other until one answers (see `handoffRun.ts`). */
export const handoffRun: typeof HandoffRunModule.handoffRun = (input) => (require('./handoffRun') as typeof HandoffRunModule).handoffRun(input);
/** A conversation: messages answered turn by turn by the team (see `conversation.ts`). */
export const conversation: typeof ConversationModule.conversation = (input) => (require('./conversation') as typeof ConversationModule).conversation(input);
/** A spend limit shared across runs (see `spendLedger.ts`). */
export const spendLedger: typeof LedgerModule.spendLedger = (input) => (require('./spendLedger') as typeof LedgerModule).spendLedger(input);
/** A circuit breaker shared across runs (see `circuitBreaker.ts`). */
export const circuitBreaker: typeof BreakerModule.circuitBreaker = (input) => (require('./circuitBreaker') as typeof BreakerModule).circuitBreaker(input);
/** An evaluation of a team against recorded cases (see `eval/evalRun.ts`). */
export const evalRun: typeof EvalRunModule.evalRun = (input) => (require('./eval/evalRun') as typeof EvalRunModule).evalRun(input);
/** One case of an evaluation (see `eval/evalCase.ts`). */
export const evalCase: typeof EvalCaseModule.evalCase = (input) => (require('./eval/evalCase') as typeof EvalCaseModule).evalCase(input);
/** An experiment between team versions (see `experiment.ts`). */
export const experiment: typeof ExperimentModule.experiment = (definition) => (require('./experiment') as typeof ExperimentModule).experiment(definition);
