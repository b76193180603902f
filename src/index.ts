/** baton: durable multi-agent handoffs on Temporal. */
export { defineAgent, type Agent, type AgentDefinition } from './agents/agent';
export { createHandoffTool, type HandoffTarget } from './agents/handoff';
export { Team } from './agents/team';
export { defineTool, ToolError, type Tool, type ToolContext, type ToolDefinition } from './agents/tool';
export { Baton, BatonRun, toBatonError, type BatonOptions, type RunResult, type StartOptions } from './client/baton';
export * from './common/errors';
export { extractHandoff, HANDOFF_TOOL_NAME, isHandoffResult, type HandoffResult } from './common/handoff';
export * from './common/messages';
export * from './common/types';
export { OpenAIProvider, type OpenAIProviderOptions } from './models/openai';
export type { ModelCallContext, ModelProvider, ModelProviders } from './models/provider';
export { ScriptedProvider } from './models/scripted';
export { openai, scripted, type ScriptedOptions } from './models/spec';
export { createWorker, ensureSearchAttributes, type CreateWorkerOptions } from './worker';
export type { AgentHandoffListener, BatonHooks, HandoffHookContext } from '../activities';
