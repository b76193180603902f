/**
 * Audit: a chain's or conversation's history as an audit, its timeline and Mermaid formats, the
 * signed export and its verification — `import { exportAudit, verifyAuditExport } from 'baton-agents/audit'`.
 * @packageDocumentation
 * @module baton-agents/audit
 */
export {
  HandoffRequestOutcome,
  type AnsweredBy,
  type AuditChain,
  type AuditEvent,
  type AuditStatus,
  type Execution,
  type HandoffRequestedEvent,
  type ModelTurnEvent,
  type ToolCallEvent,
} from './chain';
export { formatTimeline, toMermaid } from './format';
export {
  AUDIT_EXPORT_SCHEMA,
  eventDigest,
  exportAudit,
  genesisDigest,
  signAuditExport,
  type AuditExport,
  type ExportedChain,
  type ExportedEvent,
  type ExportOptions,
  type RecordedPayload,
} from './export';
export { verifyAuditExport, type ExportVerification, type HeadVouch, type VerifyExportOptions } from './verifyExport';
export { verifyAgainstHistory, type HistoryVerification } from './verifyHistory';
export { countActions, type HistoryActions } from './actions';
export {
  auditConversation,
  buildConversationAudit,
  CONVERSATION_AUDIT_SCHEMA,
  type CompactionAudit,
  type ConversationAudit,
  type ConversationTurnAudit,
  type TurnApproval,
} from './conversation';
export { formatConversation } from './conversationFormat';
