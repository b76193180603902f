import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted HTTP answer of the fake endpoint. */
export interface FakeReply {
  status?: number;
  headers?: Record<string, string>;
  body: unknown;
}

/** A request the fake endpoint received. */
export interface FakeRequest {
  at: number;
  path: string;
  authorization?: string;
  body: {
    model: string;
    messages: { role: string; content: string | null; tool_calls?: { id: string }[]; tool_call_id?: string }[];
    tools?: { type: string; function: { name: string; description: string; parameters: Record<string, unknown> } }[];
  };
}

let ids = 0;

/** Build Chat Completions answers. */
export const reply = {
  text: (content: string): FakeReply => completion({ role: 'assistant', content }),
  toolCalls: (calls: { name: string; arguments: Record<string, unknown> }[]): FakeReply =>
    completion({
      role: 'assistant',
      content: null,
      tool_calls: calls.map((c) => ({ id: `call_${++ids}`, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } })),
    }),
  error: (status: number, message: string, headers: Record<string, string> = {}): FakeReply => ({
    status,
    headers,
    body: { error: { message, type: 'fake_error', param: null, code: null } },
  }),
};

function completion(message: Record<string, unknown>): FakeReply {
  return {
    body: {
      id: `chatcmpl-${++ids}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: 'gpt-fake',
      choices: [{ index: 0, finish_reason: message.tool_calls ? 'tool_calls' : 'stop', message }],
      usage: { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 },
    },
  };
}

/**
 * An OpenAI-compatible Chat Completions server on 127.0.0.1 answering from a queue. Like OpenAI,
 * it refuses (400) a conversation in which an assistant tool call has no tool answer.
 */
export async function startOpenAIServer() {
  const replies: FakeReply[] = [];
  const requests: FakeRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as FakeRequest['body'];
      requests.push({ at: Date.now(), path: req.url ?? '', authorization: req.headers.authorization, body });
      const send = (r: FakeReply) => {
        res.writeHead(r.status ?? 200, { 'content-type': 'application/json', ...r.headers });
        res.end(JSON.stringify(r.body));
      };
      if (req.url !== '/v1/chat/completions') return send(reply.error(404, `no route ${req.url}`));
      const unanswered = unansweredToolCalls(body.messages ?? []);
      if (unanswered.length > 0) {
        return send(
          reply.error(400, `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. Missing: ${unanswered.join(', ')}`),
        );
      }
      send(replies.shift() ?? reply.error(500, 'the fake server has no reply left'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    replies,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function unansweredToolCalls(messages: FakeRequest['body']['messages']): string[] {
  const answered = new Set(messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id));
  return messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id)).filter((id) => !answered.has(id));
}
