/**
 * The sizes of what arrives from outside, against {@link LIMITS}: a start input, a decision,
 * overrides, a conversation message, a specialist's report. Each answers the fields over their
 * limits; the checks of shape and meaning (src/common/input.ts) come after, on what fits.
 *
 * Workflow-safe: no I/O.
 */
import { isRecord } from './check';
import { bytesOver, charsOver, jsonOver, LIMITS, type SizeProblem } from './limits';

/** A whole value over `limit` bytes of JSON, when none of its fields was found too large. */
function whole(field: string, value: unknown, limit: number, found: SizeProblem[]): SizeProblem[] {
  return found.length > 0 ? found : jsonOver(field, value, limit);
}

/** Sizes of a `handoffRun` input: its agent, input text, options and parent link (its context has a check of its own). */
export function runInputSizes(value: unknown): SizeProblem[] {
  if (!isRecord(value)) return [];
  return [
    ...charsOver('agent', value.agent, LIMITS.agentChars),
    ...bytesOver('input', value.input, LIMITS.messageBytes),
    ...jsonOver('options', value.options, LIMITS.optionsBytes),
    ...parentSizes(value.parent),
  ];
}

/** Sizes of a `conversation` input: its agent, options and conversation options. */
export function conversationInputSizes(value: unknown): SizeProblem[] {
  if (!isRecord(value)) return [];
  return [
    ...charsOver('agent', value.agent, LIMITS.agentChars),
    ...jsonOver('options', value.options, LIMITS.optionsBytes),
    ...jsonOver('conversation', value.conversation, LIMITS.optionsBytes),
  ];
}

function parentSizes(value: unknown): SizeProblem[] {
  if (!isRecord(value)) return [];
  return [
    ...charsOver('parent.workflowId', value.workflowId, LIMITS.workflowIdChars),
    ...charsOver('parent.rootWorkflowId', value.rootWorkflowId, LIMITS.workflowIdChars),
    ...charsOver('parent.token', value.token, LIMITS.idChars),
  ];
}

/** Sizes of a decision (`approveHandoff`, `rejectHandoff`, `decideHandoff`). */
export function decisionSizes(value: unknown): SizeProblem[] {
  if (!isRecord(value)) return jsonOver('decision', value, LIMITS.decisionBytes);
  const fields = [
    ...charsOver('decision.handoffId', value.handoffId, LIMITS.idChars),
    ...charsOver('decision.approver', value.approver, LIMITS.approverChars),
    ...charsOver('decision.comment', value.comment, LIMITS.noteChars),
    ...charsOver('decision.reason', value.reason, LIMITS.noteChars),
    ...charsOver('decision.callHash', value.callHash, LIMITS.idChars),
    ...charsOver('decision.signature', value.signature, LIMITS.signatureChars),
    ...jsonOver('decision.arguments', value.arguments, LIMITS.argumentsBytes),
  ];
  return whole('decision', value, LIMITS.decisionBytes, fields);
}

/** Sizes of a `sendMessage` input: the message and its idempotency key. */
export function messageSizes(value: unknown): SizeProblem[] {
  if (!isRecord(value)) return jsonOver('sendMessage', value, LIMITS.messageBytes);
  const fields = [...bytesOver('sendMessage.message', value.message, LIMITS.messageBytes), ...charsOver('sendMessage.idempotencyKey', value.idempotencyKey, LIMITS.idempotencyKeyChars)];
  return whole('sendMessage', value, LIMITS.messageBytes + 4 * LIMITS.idempotencyKeyChars + 64, fields);
}

/** Sizes of overrides (`overrideRun`). */
export function overrideSizes(value: unknown): SizeProblem[] {
  return jsonOver('overrides', value, LIMITS.optionsBytes);
}

/** Sizes of a specialist's report (`childApprovals`). */
export function reportSizes(value: unknown): SizeProblem[] {
  if (!isRecord(value)) return jsonOver('report', value, LIMITS.reportBytes);
  const entries = Array.isArray(value.pending) && value.pending.length > LIMITS.reportEntries ? [{ field: 'report.pending', size: value.pending.length, limit: LIMITS.reportEntries, unit: 'entries' as const }] : [];
  const fields = [...charsOver('report.workflowId', value.workflowId, LIMITS.workflowIdChars), ...charsOver('report.token', value.token, LIMITS.idChars), ...entries];
  return fields.length > 0 ? fields : jsonOver('report', value, LIMITS.reportBytes);
}
