/**
 * baton for workflow code: the `handoffRun` workflow, the message definitions, types and errors,
 * with nothing that does I/O. Import this from your own workflows (e.g. to start a chain as a
 * child workflow) — `import { handoffRun, approveHandoffSignal } from 'baton-agents/workflow'`.
 * @packageDocumentation
 * @module baton-agents/workflow
 */
export { handoffRun } from '../workflows/handoffRun';
export * from './common/answers';
export * from './common/errors';
export * from './common/modelBehaviorErrors';
export * from './common/budgetErrors';
export * from './common/errorTypes';
export * from './common/economics';
export { LIMITS, type LimitUnit, type SizeProblem } from './common/limits';
export * from './common/handoff';
export * from './common/input';
export { chainStateCheck } from './common/stateChecks';
export { conversationStateCheck } from './common/conversationStateChecks';
export { pendingApprovalCheck } from './common/approvalStateChecks';
export { modelSpecCheck, PROVIDER_NAME } from './common/modelSpecChecks';
export * from './common/messages';
export * from './common/patches';
export * from './common/types';
