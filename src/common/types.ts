/**
 * Serializable types shared by workflows, activities, the client and the tests, by concern.
 *
 * Everything here is plain JSON: it crosses the workflow boundary and is recorded in history.
 * Workflow-safe: no I/O, no node builtins, no zod, no openai.
 */
export * from './approvals';
export * from './approvalQuestions';
export * from './approvalReasons';
export * from './controls';
export * from './model';
export * from './options';
export { DEFAULT_RETRY, type RetryOptions } from './callRunOptions';
export * from './approvalPolicy';
export * from './conversationOptions';
export * from './run';
export * from './state';
export * from './team';
export * from './conversation';
export * from './conversationErrors';
export * from './version';
export * from './priority';
export * from './live';
export * from './experiment';
export * from './routing';
export * from './stranded';
