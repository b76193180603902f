/**
 * The conversation: `useChat` from `@ai-sdk/react` over baton's transport. A reload loads the
 * conversation from its history (`/messages`) and resumes the answer being written, if any; an
 * approval the person chatting may decide is a card in the chat, answered with
 * `addToolApprovalResponse`, and the chat sends that decision on its own.
 */
import { useChat } from '@ai-sdk/react';
import { lastAssistantMessageIsCompleteWithApprovalResponses, type UIMessage } from 'ai';
import { useEffect, useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import {
  batonChatTransport,
  batonFetch,
  BatonRequestError,
  useBatonConnection,
  withoutReplacedText,
} from 'baton-agents/react';
import { AssistantMessage, speakers } from './Parts';

/** The agent that answers a conversation's first message. */
const FIRST_AGENT = 'triage';

const SUGGESTIONS = [
  'Please refund order 1077, the espresso machine stopped working.',
  'I would like a refund for order 1042: the teapot arrived broken.',
  'I want to buy a teapot.',
];

/** The conversation `id` from its history, then the chat. */
export function Conversation({ id, mayStart }: { id: string; mayStart: boolean }) {
  const connection = useBatonConnection('Conversation');
  const [loaded, setLoaded] = useState<{ messages: UIMessage[]; started: boolean }>();
  const [error, setError] = useState<Error>();
  useEffect(() => {
    batonFetch(connection, `/v1/ui/conversations/${encodeURIComponent(id)}/messages`)
      .then((r) => r.json() as Promise<{ messages: UIMessage[] }>)
      .then(({ messages }) => setLoaded({ messages, started: true }))
      .catch((err: unknown) => {
        // No such conversation yet: its first message starts it.
        if (err instanceof BatonRequestError && err.status === 404) setLoaded({ messages: [], started: false });
        else setError(err as Error);
      });
  }, [connection, id]);
  if (error) {
    return (
      <section className="chat" aria-label="Conversation">
        <p role="alert" className="error">
          {error.message}
        </p>
      </section>
    );
  }
  if (!loaded) {
    return (
      <section className="chat" aria-label="Conversation" aria-busy="true">
        <p className="muted center">Loading the conversation…</p>
      </section>
    );
  }
  return <Chat id={id} initial={loaded.messages} resume={loaded.started} mayStart={mayStart} />;
}

function Chat({
  id,
  initial,
  resume,
  mayStart,
}: {
  id: string;
  initial: UIMessage[];
  resume: boolean;
  mayStart: boolean;
}) {
  const { token } = useBatonConnection('Chat');
  const transport = useMemo(
    () => batonChatTransport({ url: '', ...(token !== undefined ? { token } : {}), agent: FIRST_AGENT }),
    [token],
  );
  const { messages, sendMessage, addToolApprovalResponse, status, error } = useChat({
    id,
    messages: initial,
    transport,
    // A reload in the middle of an answer follows it from where the service is.
    resume,
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const shown = useMemo(() => messages.map((m) => withoutReplacedText(m)), [messages]);
  const firstAgents = useMemo(() => speakers(shown, FIRST_AGENT), [shown]);
  const busy = status === 'submitted' || status === 'streaming';
  const end = useRef<HTMLDivElement>(null);
  useEffect(() => {
    end.current?.scrollIntoView({ block: 'end' });
  }, [shown]);
  const send = (text: string) => void sendMessage({ text });
  return (
    <section className="chat" aria-label="Conversation" data-status={status}>
      <ol className="messages" aria-live="polite">
        {shown.length === 0 && (
          <li className="empty">
            <h2>How can we help?</h2>
            <p className="muted">
              Triage reads your message and hands you to the right team. Handoffs to refunds need your approval.
            </p>
            {mayStart && (
              <div className="suggestions">
                {SUGGESTIONS.map((s) => (
                  <button key={s} type="button" className="suggestion" onClick={() => send(s)}>
                    {s}
                  </button>
                ))}
              </div>
            )}
          </li>
        )}
        {shown.map((m, i) =>
          m.role === 'user' ? (
            <li key={m.id} className="msg user" aria-label="You said">
              <p className="bubble">{m.parts.map((p) => (p.type === 'text' ? p.text : '')).join('')}</p>
            </li>
          ) : (
            <li key={m.id} className="msg assistant" data-message-id={m.id}>
              <AssistantMessage
                message={m}
                firstAgent={firstAgents[i]!}
                busy={busy && i === shown.length - 1}
                onDecide={(approvalId, approved, reason) =>
                  void addToolApprovalResponse({ id: approvalId, approved, ...(reason ? { reason } : {}) })
                }
              />
            </li>
          ),
        )}
      </ol>
      {status === 'submitted' && <p className="muted typing-note">Sending…</p>}
      {error && (
        <p role="alert" className="error">
          {error.message}
        </p>
      )}
      <div ref={end} />
      {mayStart ? (
        <Composer disabled={busy} onSend={send} />
      ) : (
        <p className="muted composer-note">This token may read and decide, not chat: decide approvals in the inbox.</p>
      )}
    </section>
  );
}

function Composer({ disabled, onSend }: { disabled: boolean; onSend: (text: string) => void }) {
  const [text, setText] = useState('');
  const submit = (e?: FormEvent) => {
    e?.preventDefault();
    if (disabled || text.trim() === '') return;
    onSend(text.trim());
    setText('');
  };
  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey) submit(e);
  };
  return (
    <form className="composer" onSubmit={submit}>
      <label className="visually-hidden" htmlFor="message">
        Message
      </label>
      <textarea
        id="message"
        rows={1}
        placeholder="Write a message…"
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKey}
      />
      <button type="submit" disabled={disabled || text.trim() === ''}>
        Send
      </button>
    </form>
  );
}
