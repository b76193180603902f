/**
 * 'baton-agents/react': what a front end on the AI SDK's `useChat` needs to talk to baton — a
 * transport pointed at the service's UI message stream route, the view of a message without the
 * text baton replaced, and hooks for the approvals inbox, deciding approvals and following a chain
 * (docs/apps.md). Needs the `ai` package, and `react` for the hooks.
 */
export { batonChatTransport, type BatonChatTransportOptions } from './transport';
export { TEXT_RESET_PART, withoutReplacedText } from './replacedText';
export { BatonProvider, BatonRequestError, batonFetch, useBatonConnection, type BatonConnection } from './connection';
export {
  usePendingApprovals,
  useApprove,
  type ApprovalRecord,
  type ApproveView,
  type DecideOptions,
  type PendingApproval,
  type PendingApprovalsOptions,
  type PendingApprovalsView,
} from './approvals';
export { useRun, type RunCallText, type RunEventJson, type RunView } from './run';
