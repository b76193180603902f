/**
 * baton's workflows: deterministic code only. Workers preload this module (see
 * `src/worker/bundle.ts`), so every workflow in a worker shares one instance of baton's modules and
 * keeps only its own state.
 */
import './stackDepth';
import { readingItsInput } from './arrivals';
import { conversation as conversationWorkflow } from './conversation';
import { handoffRun as chainWorkflow } from './handoffRun';

/** One chain of handoffs (see `./handoffRun`), reading its input itself: a start that is not JSON fails the chain, typed. */
export const handoffRun = readingItsInput(chainWorkflow);
/** A multi-turn conversation (see `./conversation`), reading its input itself. */
export const conversation = readingItsInput(conversationWorkflow);
export { spendLedger } from './spendLedger';
export { circuitBreaker } from './circuitBreaker';
export { evalRun } from './eval/evalRun';
export { evalCase } from './eval/evalCase';
export { experiment } from './experiment';
export { auditArchiver } from './auditArchiver';
export { teamRegistry } from './teamRegistry';
