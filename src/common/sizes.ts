/**
 * The sizes of what arrives from outside, against {@link LIMITS}: a start input, a decision,
 * overrides, a conversation message, a specialist's report. Each answers the fields over their
 * limits; the checks of shape and meaning (src/common/input.ts) come after, on what fits.
 *
 * Workflow-safe: no I/O.
 */
import { isRecord } from './check';
import { shapeOver, type ShapeLimits } from './jsonShape';
import { bytesOver, charsOver, jsonOver, LIMITS, type SizeProblem } from './limits';

/** A whole value over `limit` bytes of JSON, when none of its fields was found too large. */
function whole(field: string, value: unknown, limit: number, found: SizeProblem[]): SizeProblem[] {
  return found.length > 0 ? found : jsonOver(field, value, limit);
}

/** A value too deep or with too many entries, else over `limit` bytes of JSON (measured only once its shape fits). */
function json(field: string, value: unknown, limit: number, shape: ShapeLimits = {}): SizeProblem[] {
  const over = shapeOver(field, value, shape);
  return over.length > 0 ? over : jsonOver(field, value, limit);
}

/**
 * A carried state (`resume`), which baton writes: its size is what the run has grown to, but it
 * nests no deeper than a team's schemas and a chain's records do.
 */
const CARRIED_SHAPE: ShapeLimits = { depth: LIMITS.jsonDepth * 4, entries: Number.POSITIVE_INFINITY };

/** Sizes of a `handoffRun` input: its agent, input text, options and parent link (its context has a check of its own). */
export function runInputSizes(value: unknown): SizeProblem[] {
  if (!isRecord(value)) return shapeOver('start input', value, CARRIED_SHAPE);
  const fields = [
    ...charsOver('agent', value.agent, LIMITS.agentChars),
    ...bytesOver('input', value.input, LIMITS.messageBytes),
    ...json('options', value.options, LIMITS.optionsBytes),
    ...shapeOver('context', value.context),
    ...shapeOver('parent', value.parent),
    ...parentSizes(value.parent),
    ...shapeOver('resume', value.resume, CARRIED_SHAPE),
  ];
  return fields.length > 0 ? fields : startShape(value);
}

/** Fields a start does not know are refused by name later; here only what would be too deep to name. */
function startShape(value: Record<string, unknown>): SizeProblem[] {
  return shapeOver(
    'start input',
    { ...value, resume: undefined },
    { depth: CARRIED_SHAPE.depth, entries: Number.POSITIVE_INFINITY },
  );
}

/** Sizes of a `conversation` input: its agent, options and conversation options. */
export function conversationInputSizes(value: unknown): SizeProblem[] {
  if (!isRecord(value)) return shapeOver('start input', value, CARRIED_SHAPE);
  const fields = [
    ...charsOver('agent', value.agent, LIMITS.agentChars),
    ...json('options', value.options, LIMITS.optionsBytes),
    ...json('conversation', value.conversation, LIMITS.optionsBytes),
    ...shapeOver('context', value.context),
    ...shapeOver('resume', value.resume, CARRIED_SHAPE),
  ];
  return fields.length > 0 ? fields : startShape(value);
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
  if (!isRecord(value)) return json('decision', value, LIMITS.decisionBytes);
  const shape = shapeOver('decision.arguments', value.arguments);
  if (shape.length > 0) return shape;
  // A decision is a handful of strings; any other value in it is measured as a whole.
  let bound = 64;
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === 'string') bound += 6 * (k.length + v.length) + 6;
    else if (k !== 'arguments' || typeof v === 'object') bound = Number.POSITIVE_INFINITY;
  }
  if (bound === Number.POSITIVE_INFINITY) {
    const rest = shapeOver('decision', value);
    if (rest.length > 0) return rest;
  }
  const fields = [
    ...charsOver('decision.handoffId', value.handoffId, LIMITS.idChars),
    ...charsOver('decision.approver', value.approver, LIMITS.approverChars),
    ...charsOver('decision.comment', value.comment, LIMITS.noteChars),
    ...charsOver('decision.reason', value.reason, LIMITS.noteChars),
    ...charsOver('decision.callHash', value.callHash, LIMITS.idChars),
    ...charsOver('decision.signature', value.signature, LIMITS.signatureChars),
    ...charsOver('decision.onBehalfOf', value.onBehalfOf, LIMITS.approverChars),
    ...charsOver('decision.delegation', value.delegation, LIMITS.signatureChars),
    ...jsonOver('decision.arguments', value.arguments, LIMITS.argumentsBytes),
  ];
  // Strings only, each at most six bytes a character as JSON: under the limit without writing it out.
  return bound <= LIMITS.decisionBytes ? fields : whole('decision', value, LIMITS.decisionBytes, fields);
}

/** Sizes of a `sendMessage` input: the message and its idempotency key. */
export function messageSizes(value: unknown): SizeProblem[] {
  if (!isRecord(value)) return json('sendMessage', value, LIMITS.messageBytes);
  const shape = shapeOver('sendMessage', value);
  if (shape.length > 0) return shape;
  const fields = [
    ...bytesOver('sendMessage.message', value.message, LIMITS.messageBytes),
    ...charsOver('sendMessage.idempotencyKey', value.idempotencyKey, LIMITS.idempotencyKeyChars),
  ];
  return whole('sendMessage', value, LIMITS.messageBytes + 4 * LIMITS.idempotencyKeyChars + 64, fields);
}

/** Sizes of overrides (`overrideRun`). */
export function overrideSizes(value: unknown): SizeProblem[] {
  return json('overrides', value, LIMITS.optionsBytes);
}

/** Sizes of a specialist's report (`childApprovals`). */
export function reportSizes(value: unknown): SizeProblem[] {
  // A report lists up to `reportEntries` approvals, each a record of its own: deep, never.
  const shape = shapeOver('report', value, { entries: Number.POSITIVE_INFINITY });
  if (shape.length > 0) return shape;
  if (!isRecord(value)) return jsonOver('report', value, LIMITS.reportBytes);
  const entries =
    Array.isArray(value.pending) && value.pending.length > LIMITS.reportEntries
      ? [{ field: 'report.pending', size: value.pending.length, limit: LIMITS.reportEntries, unit: 'entries' as const }]
      : [];
  const fields = [
    ...charsOver('report.workflowId', value.workflowId, LIMITS.workflowIdChars),
    ...charsOver('report.token', value.token, LIMITS.idChars),
    ...entries,
  ];
  return fields.length > 0 ? fields : jsonOver('report', value, LIMITS.reportBytes);
}
