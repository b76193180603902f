/**
 * baton's workflows: deterministic code only. Workers preload this module (see
 * `src/worker/bundle.ts`), so every workflow in a worker shares one instance of baton's modules and
 * keeps only its own state.
 */
import './stackDepth';
export { handoffRun } from './handoffRun';
export { conversation } from './conversation';
export { spendLedger } from './spendLedger';
export { circuitBreaker } from './circuitBreaker';
export { evalRun } from './eval/evalRun';
export { evalCase } from './eval/evalCase';
export { experiment } from './experiment';
export { auditArchiver } from './auditArchiver';
