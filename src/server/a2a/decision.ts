/**
 * A client's reply to a task in `input-required`: "approve" or "reject" (a comment may follow), or a
 * data part `{decision, approvalId?, comment?, arguments?, callHash?, signature?}`.
 */
import type { Message } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { ProtocolDecision } from '../decisions';

const WORDS: Record<string, 'approve' | 'reject'> = {
  approve: 'approve',
  approved: 'approve',
  yes: 'approve',
  reject: 'reject',
  rejected: 'reject',
  no: 'reject',
};
const HOW =
  'reply "approve" or "reject" (a comment may follow), or a data part {"decision": "approve" | "reject", "approvalId"?, "comment"?}';

/** The decision a reply carries; an A2A error naming what is valid when it carries none. */
export function decisionOf(message: Message): ProtocolDecision {
  for (const part of message.parts) {
    if (part.content?.$case !== 'data') continue;
    const value = part.content.value as Record<string, unknown> | null;
    if (!value || typeof value !== 'object' || !('decision' in value)) continue;
    return fromData(value);
  }
  const text = message.parts
    .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
    .join('\n')
    .trim();
  const m = /^(\w+)\b[\s:,.;-]*([\s\S]*)$/.exec(text);
  const decision = m ? WORDS[m[1]!.toLowerCase()] : undefined;
  if (!decision)
    throw new RequestMalformedError(
      `the task waits for a decision: ${HOW}; got ${text === '' ? 'no text' : JSON.stringify(text.slice(0, 80))}`,
    );
  return { decision, ...(m![2]!.trim() ? { comment: m![2]!.trim() } : {}) };
}

function fromData(value: Record<string, unknown>): ProtocolDecision {
  const { decision, approvalId, comment, arguments: args, callHash, signature } = value;
  const problems = [
    ...(decision === 'approve' || decision === 'reject'
      ? []
      : [`"decision" must be "approve" or "reject", got ${JSON.stringify(decision)}`]),
    ...optionalString('approvalId', approvalId),
    ...optionalString('comment', comment),
    ...optionalString('callHash', callHash),
    ...optionalString('signature', signature),
    ...(args === undefined || (typeof args === 'object' && args !== null && !Array.isArray(args))
      ? []
      : ['"arguments" must be an object of the tool\'s arguments']),
  ];
  if (problems.length > 0) throw new RequestMalformedError(`the decision is not valid: ${problems.join('; ')}`);
  return {
    decision: decision as 'approve' | 'reject',
    ...(approvalId !== undefined ? { approvalId: approvalId as string } : {}),
    ...(comment !== undefined ? { comment: comment as string } : {}),
    ...(args !== undefined ? { arguments: args as Record<string, unknown> } : {}),
    ...(callHash !== undefined ? { callHash: callHash as string } : {}),
    ...(signature !== undefined ? { signature: signature as string } : {}),
  };
}

function optionalString(name: string, value: unknown): string[] {
  return value === undefined || (typeof value === 'string' && value.length > 0 && value.length <= 10_000)
    ? []
    : [`"${name}" must be a non-empty string`];
}
