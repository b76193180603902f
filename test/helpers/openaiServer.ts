/**
 * A fake OpenAI-compatible Chat Completions endpoint for the tests: scripted replies with faults
 * (openaiReplies.ts), the refusals of the servers baton meets (openaiRefusals.ts), and answers as
 * JSON or streamed (openaiAnswers.ts).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { answer, sendError } from './openaiAnswers';
import { cannotStream, refuse, refuseResponseFormat, refuseToolArguments } from './openaiRefusals';
import { type FakeReply, type FakeRequest, type FakeServerOptions, reply } from './openaiReplies';

export { reply, type FakeMessage, type FakeReply, type FakeRequest, type FakeServerOptions } from './openaiReplies';
export {
  EXTRA_SCHEMA_FIELD_ERROR,
  JSON_SCHEMA_FORMAT_ERROR,
  MISSING_CONTENT_ERROR,
  NULL_CONTENT_ERROR,
} from './openaiRefusals';

/**
 * An OpenAI-compatible Chat Completions server on 127.0.0.1 answering from a queue, as strict as
 * the servers baton meets: like OpenAI it refuses (400) a conversation in which a tool call has
 * no answer, `tool_choice` without tools and `stream_options` without a stream; like
 * llama-cpp-python it answers 500 to a message whose content is null or missing and ignores
 * `tools` sent without `tool_choice` (the model answers in plain text). It checks `response_format`
 * and honours a `json_schema` one (see {@link FakeServerOptions.responseFormat}). It streams (SSE) when asked.
 */
export async function startOpenAIServer(options: FakeServerOptions = {}) {
  const replies: FakeReply[] = [];
  const requests: FakeRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: FakeRequest['body'];
      try {
        body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as FakeRequest['body'];
      } catch {
        return sendError(res, reply.error(400, 'We could not parse the JSON body of your request.'));
      }
      const request: FakeRequest = {
        at: Date.now(),
        path: req.url ?? '',
        authorization: req.headers.authorization,
        body,
      };
      requests.push(request);
      res.on('close', () => {
        if (!res.writableFinished) request.closedEarly = true;
      });
      if (req.url !== '/v1/chat/completions') return sendError(res, reply.error(404, `no route ${req.url}`));
      const refusal =
        refuse(body) ??
        refuseResponseFormat(body, options) ??
        (options.parsesToolArguments ? refuseToolArguments(body) : undefined);
      if (refusal) return sendError(res, refusal);
      if (cannotStream(body, replies[0], options)) {
        res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
        return res.end();
      }
      const next = replies.shift() ?? reply.error(500, 'the fake server has no reply left');
      if (next.resetConnection) return void req.socket.destroy();
      setTimeout(() => answer(res, body, next, options), next.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    replies,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
