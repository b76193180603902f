/**
 * Time to first token (bench/streaming.ts): from a new chain's start, and from a conversation's
 * message, to the first text of its answer, through the client (`run.stream()`, `chat.stream()`)
 * and through the HTTP service's Server-Sent Events, beside the model server's own.
 */
import OpenAI from 'openai';
import type { Team } from '../src';
import { Baton } from '../src/client/baton';
import type { DevServer } from '../src/devserver/server';
import { serveBaton } from '../src/server';
import { createWorker } from '../src/worker';
import { reply, type startOpenAIServer } from '../test/helpers/openaiServer';
import { median, round } from './lib';

/** The project's OpenAI-compatible test server, as the streaming benchmarks use it. */
export type Fake = Awaited<ReturnType<typeof startOpenAIServer>>;
/** `n` distinct words: `w0 w1 …`. */
export const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');

/** Time to first token straight from the model server, and through baton's client and HTTP service, for a new chain and a conversation's next message; median ms. */
export async function timeToFirstToken(
  env: DevServer,
  fake: Fake,
  team: Team,
  { reps, ttftMs }: { reps: number; ttftMs: number },
): Promise<Record<'direct' | 'chain' | 'conversation' | 'sseChain' | 'sseConversation', number>> {
  const answer = () => reply.text(words(40), { delayMs: ttftMs, chunkDelayMs: 10 });
  const client = new OpenAI({ baseURL: fake.url, apiKey: 'bench', maxRetries: 0 });
  const direct: number[] = [];
  for (let i = 0; i < reps; i++) {
    fake.replies.push(answer());
    const t0 = performance.now();
    const stream = await client.chat.completions.create({
      model: 'gpt-fake',
      messages: [{ role: 'user', content: 'go' }],
      stream: true,
    });
    let first: number | undefined;
    for await (const chunk of stream)
      if (first === undefined && chunk.choices[0]?.delta?.content) first = performance.now() - t0;
    direct.push(first!);
  }
  const worker = await createWorker({ team, connection: env.nativeConnection, taskQueue: 'bench-ttft' });
  return worker.runUntil(async () => {
    const baton = new Baton({ client: env.client, taskQueue: 'bench-ttft' });
    const chain: number[] = [];
    const conversation: number[] = [];
    for (let i = 0; i <= reps; i++) {
      fake.replies.push(answer());
      const t0 = performance.now();
      const run = await baton.start('writer', 'go');
      let first: number | undefined;
      for await (const x of run.stream()) if (x.kind === 'text' && first === undefined) first = performance.now() - t0;
      if (i > 0) chain.push(first!); // the first run warms the worker
    }
    const chat = baton.conversation('writer');
    for (let i = 0; i <= reps; i++) {
      fake.replies.push(answer());
      const t0 = performance.now();
      let first: number | undefined;
      for await (const x of chat.stream(`message ${i}`))
        if (x.kind === 'text' && first === undefined) first = performance.now() - t0;
      if (i > 0) conversation.push(first!);
    }
    await chat.end();
    // The same two through the HTTP service, as a browser or another service follows them: a
    // chain started with POST /v1/runs and followed on GET /v1/runs/{id}/stream, and a message
    // sent with `"stream": true`; from the request to the first `text` event.
    const token = 'bench-admin-token';
    const service = await serveBaton({
      baton,
      auth: { tokens: [{ token, identity: 'bench', roles: ['admin'] }] },
      port: 0,
      host: '127.0.0.1',
      metrics: false,
      log: () => undefined,
    });
    const sseChain: number[] = [];
    const sseConversation: number[] = [];
    try {
      const call = (method: string, path: string, body?: unknown) =>
        fetch(`${service.url}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            accept: 'text/event-stream',
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      for (let i = 0; i <= reps; i++) {
        fake.replies.push(answer());
        const t0 = performance.now();
        const started = (await (await call('POST', '/v1/runs', { agent: 'writer', input: `sse ${i}` })).json()) as {
          workflowId: string;
        };
        const first = await firstTextEvent(await call('GET', `/v1/runs/${started.workflowId}/stream`), t0);
        if (i > 0) sseChain.push(first);
      }
      for (let i = 0; i <= reps; i++) {
        fake.replies.push(answer());
        const t0 = performance.now();
        const sent = await call('POST', '/v1/conversations/bench-sse/messages', {
          agent: 'writer',
          message: `message ${i}`,
          stream: true,
        });
        if (i > 0) sseConversation.push(await firstTextEvent(sent, t0));
      }
      await call('POST', '/v1/conversations/bench-sse/end', {});
    } finally {
      await service.close();
    }
    return {
      sseChain: round(median(sseChain), 1),
      sseConversation: round(median(sseConversation), 1),
      direct: round(median(direct), 1),
      chain: round(median(chain), 1),
      conversation: round(median(conversation), 1),
    };
  });
}

/**
 * Milliseconds from `t0` until `res`'s event stream brought its first `text` event. The stream is
 * read to its end (the chain's end, the message's reply), so the next request does not wait behind
 * the rest of this answer.
 */
async function firstTextEvent(res: Response, t0: number): Promise<number> {
  if (!res.ok || !res.body) throw new Error(`the service answered ${res.status}: ${await res.text()}`);
  let seen = '';
  let first: number | undefined;
  for await (const chunk of res.body.pipeThrough(new TextDecoderStream())) {
    seen += chunk;
    if (first === undefined && /^event: text$/m.test(seen)) first = performance.now() - t0;
  }
  if (first === undefined) throw new Error(`the event stream ended without a text event: ${seen.slice(-500)}`);
  return first;
}
