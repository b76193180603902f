/**
 * The harness's client of the AI SDK's UI message stream route (`/v1/ui/conversations`), as a
 * `useChat` client uses it: the service runs in this process on the sequence's Baton (`app.fetch`),
 * with a token of alice's that may start and decide; a request is posted, a stream read with the
 * `ai` package's own parser and `readUIMessageStream`, and a conversation's stored chat read back.
 */
import {
  parseJsonEventStream,
  readUIMessageStream,
  uiMessageChunkSchema,
  type UIMessage,
  type UIMessageChunk,
} from 'ai';
import { createBatonApp } from '../../src/server';
import type { ServiceApp } from '../../src/server/context';
import { withoutReplacedText } from '../../src/react';
import { errorText, type Harness } from './harness';
import type { SentMessage } from './model';

const TOKEN = 'model-harness-alice';
const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

/** One stream the route answered for a message: how it finished and the text it shows. */
export interface UiStreamRead {
  finish?: string;
  messageId?: string;
  text?: string;
  error?: string;
}

const apps = new WeakMap<Harness, ServiceApp>();

/** The service of the sequence: alice's token may start and decide. */
function appOf(h: Harness): ServiceApp {
  let app = apps.get(h);
  if (!app) {
    app = createBatonApp({
      baton: h.baton,
      auth: { tokens: [{ token: TOKEN, identity: 'alice', roles: ['starter', 'approver'] }] },
      metrics: false,
      uiStream: { keepAliveMs: 1000 },
    });
    apps.set(h, app);
  }
  return app;
}

/** The user's message `msg`, as a chat sends it. */
export const userMessage = (msg: SentMessage): UIMessage => ({
  id: msg.key,
  role: 'user',
  parts: [{ type: 'text', text: msg.text }],
});

/** POST a chat request; the response once the route answered (a stream, or a problem). */
export function post(h: Harness, body: unknown): Promise<Response> {
  return Promise.resolve(
    appOf(h).fetch(
      new Request('http://baton/v1/ui/conversations', { method: 'POST', headers: auth, body: JSON.stringify(body) }),
    ),
  );
}

/** Read a stream to its end, as the AI SDK's client does. */
export async function readStream(res: Response): Promise<UiStreamRead> {
  const read: UiStreamRead = {};
  const chunks = parseJsonEventStream({ stream: res.body!, schema: uiMessageChunkSchema }).pipeThrough(
    new TransformStream<{ success: boolean; value?: UIMessageChunk; error?: unknown }, UIMessageChunk>({
      transform(part, controller) {
        if (!part.success) throw part.error;
        if (part.value!.type === 'finish') read.finish = part.value!.finishReason;
        controller.enqueue(part.value!);
      },
    }),
  );
  try {
    for await (const m of readUIMessageStream({
      stream: chunks,
      onError: (err) => void (read.error = errorText(err)),
    })) {
      read.messageId = m.id;
      const texts = withoutReplacedText(m).parts.flatMap((p) => (p.type === 'text' ? [p.text] : []));
      read.text = texts.at(-1) ?? '';
    }
  } catch (err) {
    read.error = errorText(err);
  }
  return read;
}

/** The typed error a stream's \`error\` chunk names (\`<Type>: <message>\`), else \`UiRouteError\`. */
export function typeIn(errorText: string): string {
  return /\b([A-Z]\w*Error): /.exec(errorText)?.[1] ?? 'UiRouteError';
}

/** The chat the service stores for conversation `id`, or `undefined` when it does not answer 200. */
export async function storedChat(h: Harness, id: string): Promise<UIMessage[] | undefined> {
  const res = await appOf(h).fetch(
    new Request(`http://baton/v1/ui/conversations/${encodeURIComponent(id)}/messages`, { headers: auth }),
  );
  if (res.status !== 200) return undefined;
  return ((await res.json()) as { messages: UIMessage[] }).messages;
}
