/**
 * What a team definition can say beyond the front door: handoff and delegation declarations, the
 * handoff tools, sensitive arguments, guardrail and hook types, entry rules, team versions and diffs —
 * `import { diffTeams, teamVersion } from 'baton-agents/agents'`.
 * @packageDocumentation
 * @module baton-agents/agents
 */
export type { HandoffToolStyle } from './agent';
export type { DelegateDeclaration, HandoffCheck, HandoffDeclaration } from './handoff';
export {
  handoffToolSpec as createHandoffTool,
  READ_STATE_TOOL,
  transferToolSpecs,
  type HandoffTarget,
} from '../common/handoffTools';
export type { EventMessageRule, EventRule } from './eventRules';
export type { RemoteAgent, RemoteAgentAuth } from './remote';
export {
  diffTeams,
  formatTeamDiff,
  teamVersion,
  TEAM_CHANGE_KINDS,
  type TeamChangeKind,
  type TeamDiff,
  type TeamDiffEntry,
} from './version';
export type { ArgumentPath, ToolApprovalOptions, ToolSensitivity } from './tool';
export { REDACTED, type SensitiveArguments, type ToolSensitivitySpec } from '../common/sensitive';
export type { AgentGuardrails, GuardrailAnswer, GuardrailContext, GuardrailOptions } from './guardrails';
export { GatedEntry, type EntryRules } from '../common/authority/entryRules';
export { extractHandoff, HANDOFF_TOOL_NAME, isHandoffResult, type HandoffResult } from '../common/handoff';
export type { AgentHandoffListener, BatonHooks, HandoffHookContext } from './hooks';
