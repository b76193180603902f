/** baton's workflows: deterministic code only. */
export { handoffRun } from './handoffRun';
export { conversation } from './conversation';
