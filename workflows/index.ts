/** baton's workflows: deterministic code only. */
export { handoffRun } from './handoffRun';
export { conversation } from './conversation';
export { spendLedger } from './spendLedger';
export { circuitBreaker } from './circuitBreaker';
export { evalRun } from './eval/evalRun';
export { evalCase } from './eval/evalCase';
export { experiment } from './experiment';
