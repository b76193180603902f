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

export const handoffRun: typeof HandoffRunModule.handoffRun = (input) => (require('./handoffRun') as typeof HandoffRunModule).handoffRun(input);
export const conversation: typeof ConversationModule.conversation = (input) => (require('./conversation') as typeof ConversationModule).conversation(input);
export const spendLedger: typeof LedgerModule.spendLedger = (input) => (require('./spendLedger') as typeof LedgerModule).spendLedger(input);
export const circuitBreaker: typeof BreakerModule.circuitBreaker = (input) => (require('./circuitBreaker') as typeof BreakerModule).circuitBreaker(input);
export const evalRun: typeof EvalRunModule.evalRun = (input) => (require('./eval/evalRun') as typeof EvalRunModule).evalRun(input);
export const evalCase: typeof EvalCaseModule.evalCase = (input) => (require('./eval/evalCase') as typeof EvalCaseModule).evalCase(input);
export const experiment: typeof ExperimentModule.experiment = (definition) => (require('./experiment') as typeof ExperimentModule).experiment(definition);
