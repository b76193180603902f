/**
 * Checks of the chat messages and tool calls a carried state holds: a chain's transcript, an open
 * turn's calls, a migration's fallback and a conversation turn's snapshot (stateChecks.ts,
 * conversationStateChecks.ts).
 *
 * Workflow-safe: no I/O.
 */
import { arrayOf, type Check, isRecord, nullable, oneOf, shapeOf, shown, string } from './check';
import type { ChatMessage, ToolCall } from './model';

/** Problems with a tool call a model asked for. */
export const toolCallCheck: Check<ToolCall> = shapeOf<ToolCall>()({ id: string, name: string, arguments: string });

type Message<R extends ChatMessage['role']> = Extract<ChatMessage, { role: R }>;
const byRole = {
  system: shapeOf<Message<'system'>>()({ role: oneOf(['system']), content: string }),
  user: shapeOf<Message<'user'>>()({ role: oneOf(['user']), content: string }),
  assistant: shapeOf<Message<'assistant'>>()(
    { role: oneOf(['assistant']), content: nullable(string), toolCalls: arrayOf(toolCallCheck, 'tool calls') },
    ['toolCalls'],
  ),
  tool: shapeOf<Message<'tool'>>()({ role: oneOf(['tool']), toolCallId: string, content: string }),
} satisfies { [R in ChatMessage['role']]: Check<Message<R>> };

const chatMessage: Check<ChatMessage> = (v, key) => {
  if (!isRecord(v)) return [`"${key}" must be a chat message, got ${shown(v)}`];
  const check = typeof v.role === 'string' ? byRole[v.role as ChatMessage['role']] : undefined;
  return check
    ? check(v, key)
    : [`"${key}.role" must be "system", "user", "assistant" or "tool", got ${shown(v.role)}`];
};

/** Problems with a list of chat messages, each checked by its role's fields. */
export const chatMessagesCheck: Check<ChatMessage[]> = arrayOf(chatMessage, 'chat messages');
