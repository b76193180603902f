/**
 * A `useChat` transport for a baton conversation: the AI SDK's own `DefaultChatTransport`, pointed
 * at the service's UI message stream route with the caller's token and the agent of the first
 * message (docs/apps.md).
 */
import { DefaultChatTransport, type UIMessage } from 'ai';

/** Options of {@link batonChatTransport}. */
export interface BatonChatTransportOptions {
  /** Where the baton service is. @example 'https://baton.example.com' */
  url: string;
  /** The caller's bearer token (or a function reading the current one): decisions in the chat are made as its identity. */
  token?: string | (() => string | Promise<string>);
  /** The agent that answers the first message (it starts the conversation); later messages go to the active agent. */
  agent?: string;
  /** Chat with one chain (`/v1/ui/runs`) instead of a conversation. @default 'conversation' */
  kind?: 'conversation' | 'chain';
}

/**
 * A transport for `useChat({ id, transport })`, `id` the conversation's workflow id.
 * @example useChat({ id: 'support-42', transport: batonChatTransport({ url, token, agent: 'triage' }), sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses })
 */
export function batonChatTransport<M extends UIMessage = UIMessage>(
  options: BatonChatTransportOptions,
): DefaultChatTransport<M> {
  const base = options.url.replace(/\/+$/, '');
  const token = options.token;
  return new DefaultChatTransport<M>({
    api: `${base}${options.kind === 'chain' ? '/v1/ui/runs' : '/v1/ui/conversations'}`,
    ...(token !== undefined
      ? { headers: async () => ({ authorization: `Bearer ${typeof token === 'function' ? await token() : token}` }) }
      : {}),
    ...(options.agent !== undefined ? { body: { agent: options.agent } } : {}),
  });
}
