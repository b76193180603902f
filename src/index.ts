/**
 * baton: durable multi-agent handoffs on Temporal. The main entry point: agents, tools and teams,
 * model providers, the client (run, approve, audit, replay), the worker, payload codecs and errors.
 * @packageDocumentation
 * @module baton-agents
 */
export { defineAgent, type Agent, type AgentDefinition, type HandoffToolStyle } from './agents/agent';
export { delegate, handoff, type DelegateDeclaration, type DelegateOptions, type HandoffCheck, type HandoffDeclaration, type HandoffOptions } from './agents/handoff';
export { handoffToolSpec as createHandoffTool, READ_STATE_TOOL, transferToolSpecs, type HandoffTarget } from './common/handoffTools';
export { Team, type TeamOptions } from './agents/team';
export { diffTeams, formatTeamDiff, teamVersion, TEAM_CHANGE_KINDS, type TeamChangeKind, type TeamDiff, type TeamDiffEntry } from './agents/version';
export { defineTool, ToolError, type ArgumentPath, type Tool, type ToolApprovalOptions, type ToolContext, type ToolDefinition, type ToolSensitivity } from './agents/tool';
export { REDACTED, type SensitiveArguments, type ToolSensitivitySpec } from './common/sensitive';
export { guardrails, type AgentGuardrails, type Guardrail, type GuardrailAnswer, type GuardrailContext, type GuardrailOptions } from './agents/guardrails';
export { Baton, BatonRun, toBatonError, type BatonOptions, type DecisionOptions, type PendingHandoff, type PendingOptions, type PendingToolCall, type RunResult, type StartOptions } from './client/baton';
export { redactPending } from './client/sensitive';
export type { RunEvent, RunEventBody, RunEventsOptions } from './client/events';
export { connectBaton, TemporalConnectionError, temporalConfig, type ConnectBatonOptions, type TemporalConfigOptions } from './client/connect';
export * from './common/errors';
export { LIMITS, type LimitUnit, type SizeProblem } from './common/limits';
export { extractHandoff, HANDOFF_TOOL_NAME, isHandoffResult, type HandoffResult } from './common/handoff';
export * from './common/messages';
export * from './common/types';
export { OpenAIProvider, type OpenAIProviderOptions, type ResponseFormatMode } from './models/openai';
export type { ModelCallContext, ModelProvider, ModelProviders } from './models/provider';
export { ScriptedProvider } from './models/scripted';
export { model, openai, scripted, type ScriptedOptions } from './models/spec';
export { createWorker, ensureSearchAttributes, type CreateWorkerOptions } from './worker';
export { BatonMetrics, BatonTracing, serveMetrics, tracingOptionsFromEnv, type TracingOptions, type WorkerMetricsOptions, type WorkerTelemetryOptions } from './worker/telemetry';
export { batonDataConverter, batonPayloadCodecs, GzipPayloadCodec } from './payloads/codec';
export { AesGcmPayloadCodec, CodecConfigError, newEncryptionKey, PayloadDecryptionError, type EncryptionKey } from './payloads/encryption';
export { CODEC_ENV, codecOptionsFromEnv, parseEncryptionKeys, readKeyFile, type PayloadCodecOptions } from './payloads/keys';
export { decodeHistory } from './payloads/history';
export { codecServerHandler, startCodecServer, type CodecServerOptions, type StartCodecServerOptions } from './payloads/codecServer';
export { checkHistories, historiesFromFiles, historiesFromServer, type HistorySource, type ReplayCheck } from './worker/determinism';
export { HandoffRequestOutcome } from './audit/chain';
export type { AnsweredBy, AuditChain, AuditEvent, AuditStatus, Execution, HandoffRequestedEvent, ModelTurnEvent, ToolCallEvent } from './audit/chain';
export { formatTimeline, toMermaid } from './audit/format';
export type { ReplayOptions, ReplayStarted } from './client/replay';
export type { AgentHandoffListener, BatonHooks, HandoffHookContext } from './agents/hooks';
export { IDEMPOTENCY_KEY_META, mcpServer, type McpApprovals, type McpHttpServerOptions, type McpSensitivity, type McpServer, type McpStdioServerOptions } from './mcp/server';
export { McpConnectionError, McpServerUnavailableError } from './mcp/errors';
export type { McpWorkerOptions } from './mcp/tools';
export { Conversation, conversationError, type ConversationStartOptions, type ConversationTurn } from './client/conversation';
export { MAX_MESSAGES_IN_FLIGHT } from './client/lanes';
export { auditConversation, buildConversationAudit, CONVERSATION_AUDIT_SCHEMA, formatConversation, type CompactionAudit, type ConversationAudit, type ConversationTurnAudit, type TurnApproval } from './audit/conversation';
export { CLAIM_CHECK_ENCODING, ClaimCheckError, ClaimCheckPayloadCodec, FileBlobStore, type BlobStore, type ClaimCheckOptions } from './payloads/claimCheck';
export { runEval, resolveEvalOptions, InvalidEvalInputError, type EvalOptions } from './eval/run';
export { evalCases, DEFAULT_QUERY_LIMIT, type CaseSelection } from './eval/cases';
export { createEvalWorker, type EvalWorkerOptions } from './eval/worker';
export { appendToDataset, DatasetError, lineFromChain, readDataset, type DatasetLine } from './eval/dataset';
export { formatCaseLine, formatEvalReport } from './eval/format';
export { DEFAULT_THRESHOLD, parseThreshold, withThreshold } from './eval/summary';
export { caseWorkflowId, candidateWorkflowId, EvalWorkflowType, evalProgressQuery, evalTaskQueue, MAX_EVAL_CASES } from './eval/messages';
export * from './eval/types';
export { Experiments, ExperimentError, experimentWorkflowId, type VariantStart } from './client/experiments';
export { experimentStats, type Comparison, type ExperimentStats, type VariantStats } from './eval/stats/experiment';
export { agentEdgeStats, type AgentEdgeStats, type AgentStats, type AgentStatsOptions, type EdgeStats } from './eval/stats/agents';
export { formatAgentEdgeStats, formatExperimentStats } from './eval/stats/format';
export { ALPHA, mannWhitneyU, twoProportionZ, type TestResult } from './eval/stats/significance';
