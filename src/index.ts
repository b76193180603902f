/**
 * baton: durable multi-agent handoffs on Temporal. The front door: what a service needs to define a
 * team (agents, tools, handoffs, model providers), run a worker and start chains (connectBaton, Baton,
 * BatonRun, Conversation), the errors a caller catches and LIMITS. The rest lives in subpaths:
 * `baton-agents/agents`, `/models`, `/client`, `/audit`, `/eval`, `/payloads`, `/signing`, `/streams`,
 * `/economics`, `/mcp`, `/worker`, `/workflow`, `/server`, `/react` (docs/entry-points.md).
 * @packageDocumentation
 * @module baton-agents
 */
export { defineAgent, type Agent, type AgentDefinition } from './agents/agent';
export { delegate, handoff, type DelegateOptions, type HandoffOptions } from './agents/handoff';
export { Team } from './agents/team';
export type { TeamOptions } from './agents/teamOptions';
export { remoteAgent, type RemoteAgentOptions } from './agents/remote';
export { defineTool, ToolError, type Tool, type ToolContext, type ToolDefinition } from './agents/tool';
export { guardrails, type Guardrail } from './agents/guardrails';
export {
  Baton,
  type BatonOptions,
  type DecisionOptions,
  type PendingHandoff,
  type PendingToolCall,
} from './client/baton';
export type { StartOptions } from './client/chainStart';
export { BatonRun, type RunResult } from './client/run';
export type { RunEvent } from './client/runEvent';
export { connectBaton, TemporalConnectionError, type ConnectBatonOptions } from './client/connect';
export {
  BatonError,
  TeamValidationError,
  InvalidRunInputError,
  ApprovalRefusedError,
  ApprovalTimeoutError,
  ModelCallFailedError,
  ToolExecutionError,
} from './common/errors';
export { BudgetExceededError, MaxHandoffsExceededError } from './common/budgetErrors';
export { LIMITS } from './common/limits';
export type { ModelSpec, RunOptions } from './common/types';
export { aiSdk, AiSdkProvider } from './models/aiSdk';
export { OpenAIProvider } from './models/openai';
export type { ModelProvider, ModelProviders } from './models/provider';
export { ScriptedProvider } from './models/scripted';
export { model, openai, scripted } from './models/spec';
export { createWorker, type CreateWorkerOptions, KeySetError } from './worker';
export { BatonPlugin } from './worker/plugin';
export type { BatonPluginOptions } from './worker/plugin/options';
export { Conversation, type SendOptions } from './client/conversation';
export type { ConversationStartOptions } from './client/conversationStart';
