/**
 * What a `useChat` request asks (the AI SDK's `DefaultChatTransport` body: `id`, `messages`,
 * `trigger`, `messageId`, and whatever the app adds, such as `agent`): a new user message to send,
 * or the approvals the user answered in the last assistant message.
 */
import { z } from '@hono/zod-openapi';
import { HttpProblem } from '../problems';
import type { ClientMessage } from './writer';

const PartSchema = z.object({ type: z.string() }).passthrough();
const MessageSchema = z
  .object({
    id: z.string().min(1).max(200),
    role: z.enum(['user', 'assistant', 'system']),
    parts: z.array(PartSchema).max(10_000),
  })
  .passthrough();

/** The body `useChat` sends. */
export const ChatRequestSchema = z
  .object({
    id: z
      .string()
      .min(1)
      .max(1000)
      .openapi({ description: "The chat's id: the conversation's (or, for runs, the chain's) workflow id" }),
    messages: z
      .array(MessageSchema)
      .min(1)
      .openapi({ description: "The chat's messages (the AI SDK's UIMessage[]); only the last one is read" }),
    trigger: z.enum(['submit-message', 'regenerate-message']).optional(),
    messageId: z.string().optional(),
    agent: z.string().min(1).optional().openapi({
      description:
        'The agent that answers the first message (it starts the conversation); later messages go to the active agent',
    }),
  })
  .passthrough()
  .openapi('ChatRequest');

export type ChatRequest = z.infer<typeof ChatRequestSchema>;

/** An approval the user answered in the chat (`addToolApprovalResponse`). */
export interface ApprovalResponse {
  approvalId: string;
  approved: boolean;
  reason?: string;
  /** A signature the client made over the decision (docs/signatures.md), sent as it is. */
  signature?: string;
}

/** What the request asks for. */
export type ChatAsk =
  | { kind: 'message'; key: string; text: string }
  | { kind: 'approvals'; message: ClientMessage; key: string; responses: ApprovalResponse[] };

/** The ask of a request: its last message, a new user message or answered approvals; 400 naming what is wrong otherwise. */
export function askOf(body: ChatRequest): ChatAsk {
  if (body.trigger === 'regenerate-message') {
    throw new HttpProblem(
      409,
      'Cannot regenerate',
      'baton answers each message once and its history is the record: send a new message instead of regenerating an answer.',
    );
  }
  const last = body.messages.at(-1)!;
  if (last.role === 'user') {
    const text = last.parts
      .flatMap((p) => (p.type === 'text' && typeof p.text === 'string' ? [p.text] : []))
      .join('\n');
    if (text.trim() === '')
      throw invalid('messages', 'the last message is a user message without text: baton answers text messages');
    return { kind: 'message', key: last.id, text };
  }
  if (last.role !== 'assistant')
    throw invalid(
      'messages',
      `the last message must be the user's new message or the assistant's with answered approvals, not a ${last.role} message`,
    );
  const responses: ApprovalResponse[] = last.parts.flatMap((p) => {
    const approval = p.approval as
      { id?: unknown; approved?: unknown; reason?: unknown; signature?: unknown } | undefined;
    if (p.state !== 'approval-responded' || typeof approval?.id !== 'string' || typeof approval.approved !== 'boolean')
      return [];
    return [
      {
        approvalId: approval.id,
        approved: approval.approved,
        ...(typeof approval.reason === 'string' && approval.reason !== '' ? { reason: approval.reason } : {}),
        ...(typeof approval.signature === 'string' && approval.signature !== ''
          ? { signature: approval.signature }
          : {}),
      },
    ];
  });
  if (responses.length === 0)
    throw invalid(
      'messages',
      'the last message is the assistant\'s but answers no approval (no part in state "approval-responded"): send a user message, or answer an approval with addToolApprovalResponse',
    );
  const key = /^(.*):answer$/.exec(last.id)?.[1];
  if (!key)
    throw invalid(
      'messages',
      `the assistant message ${JSON.stringify(last.id)} is not one baton sent (its ids end in ":answer")`,
    );
  return { kind: 'approvals', message: last as ClientMessage, key, responses };
}

function invalid(path: string, message: string): HttpProblem {
  return new HttpProblem(400, 'Invalid chat request', 'The chat request is not valid.', [{ path, message }]);
}
