/**
 * An answer's view and the chunks written from it, read back by the AI SDK's own stream reader:
 * text that arrives before history shows its model call — a stream resumed from the start reads
 * the text transport and history at once — still lands in its call's step, so the client's text
 * part stays open for the text that follows.
 */
import { readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { describe, expect, it } from 'vitest';
import { AnswerBuilder } from '../../src/server/ui-stream/view';
import { ChunkWriter } from '../../src/server/ui-stream/writer';
import type { TextDelta } from '../../src/streams/types';

const WORKFLOW = 'conversation-1';

function delta(call: string, offset: number, text: string, attempt = 1): TextDelta {
  return {
    workflowId: WORKFLOW,
    runId: 'run-1',
    agent: call.slice(0, call.indexOf('#')),
    call,
    turn: 1,
    restart: 0,
    attempt,
    offset,
    text,
  };
}

/** What the AI SDK makes of the chunks, and the errors it met. */
async function asTheClientReadsThem(chunks: UIMessageChunk[]): Promise<{ message?: UIMessage; errors: unknown[] }> {
  const errors: unknown[] = [];
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const c of chunks) controller.enqueue(c);
      controller.close();
    },
  });
  let message: UIMessage | undefined;
  for await (const m of readUIMessageStream({ stream, onError: (e) => errors.push(e), terminateOnError: true }))
    message = m;
  return { ...(message ? { message } : {}), errors };
}

/** Drive an answer with `steps`, writing its chunks after each as the route does. */
function written(steps: ((answer: AnswerBuilder) => void)[]): UIMessageChunk[] {
  const answer = new AnswerBuilder('m1', WORKFLOW, 'Please refund order 1077');
  const writer = new ChunkWriter();
  const chunks: UIMessageChunk[] = [];
  for (const step of steps) {
    step(answer);
    chunks.push(...(writer.write(answer.view) as UIMessageChunk[]));
  }
  return [...chunks, ...(writer.finish('stop') as UIMessageChunk[])];
}

const HISTORY_SO_FAR = [
  (a: AnswerBuilder) => a.step('triage#0'),
  (a: AnswerBuilder) =>
    a.toolCall('triage', { id: 'call-1', name: 'handoff', arguments: '{"to":"refunds","message":"order 1077"}' }),
  (a: AnswerBuilder) => a.step('refunds#0'),
  (a: AnswerBuilder) =>
    a.toolCall('refunds', { id: 'call-2', name: 'issueRefund', arguments: '{"orderId":"1077","amount":249}' }),
];

describe('the text of a call that history has not shown yet', () => {
  it('waits for its step, after the calls before it, and the client ends with the recorded answer', async () => {
    const chunks = written([
      // The transport answered first: the answer's text so far, before any of history.
      (a) => a.delta(delta('refunds#1', 0, 'Your refund ')),
      ...HISTORY_SO_FAR,
      (a) => a.step('refunds#1'),
      (a) => a.delta(delta('refunds#1', 12, 'is on its way.')),
      (a) => a.answered('refunds#1', 'refunds', 'Your refund is on its way.'),
      (a) => a.end({ output: 'Your refund is on its way.' }),
    ]);
    const { message, errors } = await asTheClientReadsThem(chunks);
    expect(errors).toEqual([]);
    expect(message!.parts.map((p) => p.type)).toEqual([
      'step-start',
      'tool-handoff',
      'step-start',
      'tool-issueRefund',
      'step-start',
      'text',
    ]);
    expect(message!.parts.flatMap((p) => (p.type === 'text' ? [p.text] : []))).toEqual(['Your refund is on its way.']);
  });

  it('goes in when history shows the call answered, if that comes first', async () => {
    const chunks = written([
      (a) => a.delta(delta('refunds#1', 0, 'Your refund ')),
      ...HISTORY_SO_FAR,
      (a) => a.answered('refunds#1', 'refunds', 'Your refund is on its way.'),
      (a) => a.end({ output: 'Your refund is on its way.' }),
    ]);
    const { message, errors } = await asTheClientReadsThem(chunks);
    expect(errors).toEqual([]);
    expect(message!.parts.flatMap((p) => (p.type === 'text' ? [p.text] : []))).toEqual(['Your refund is on its way.']);
  });
});
