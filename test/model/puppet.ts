/**
 * The puppet model, in the worker process: each model call of a chain is reported to the harness,
 * which says what the model answers (the generated commands choose it). A call started again (a
 * retry, a restart after a lost worker) has the same key, and the harness answers it as it
 * answered before, so each call's answer is one the harness knows. A summary (a conversation's
 * compaction) is answered here, at once. The answer's text is streamed in pieces when the chain
 * streams, as a real model's would be.
 */
import { createHash } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { CallModelInput, ModelResponse, ToolSpec } from '../../src/workflow';
import type { ModelCallContext, ModelProvider } from '../../src/models/provider';
import { callKeyParts, type FromWorker, type OfferedTool, type PuppetAnswer } from './protocol';

const waiting = new Map<string, { resolve: (a: PuppetAnswer) => void }[]>();
const attempts = { made: 0 };

/** An answer from the harness: every attempt waiting for `key` gets it. */
export function answerCall(key: string, answer: PuppetAnswer): void {
  const waiters = waiting.get(key) ?? [];
  waiting.delete(key);
  for (const w of waiters) w.resolve(answer);
}

/** The puppet provider of a worker process that reports to its parent with `send`. */
export function puppetProvider(send: (m: FromWorker) => void): ModelProvider {
  return {
    async call(input: CallModelInput, context: ModelCallContext): Promise<ModelResponse> {
      if (input.purpose) return summary(input);
      const { key, attempt, answer } = await askHarness(send, input, context, context.signal);
      failIfTold(send, key, attempt, answer);
      const text = answer.text ?? '';
      if (context.text && text) {
        // In three pieces, as a model streams; followers must end with the recorded answer whatever they saw.
        for (const piece of inPieces(text)) {
          context.text(piece);
          await context.sleep(15);
        }
      }
      send({ type: 'call_ended', key, attempt, how: 'answered' });
      const toolCalls = (answer.toolCalls ?? []).map((c) => ({
        id: c.id,
        name: c.name,
        arguments: JSON.stringify(c.arguments),
      }));
      return { content: answer.text ?? null, toolCalls, usage: puppetUsage(input, text), model: 'puppet' };
    },
  };
}

/** The call ends failed for good when the harness says the provider is down. */
export function failIfTold(send: (m: FromWorker) => void, key: string, attempt: number, answer: PuppetAnswer): void {
  if (answer.fail === undefined) return;
  send({ type: 'call_ended', key, attempt, how: 'answered' });
  throw ApplicationFailure.nonRetryable(answer.fail, 'PuppetProviderDown');
}

/**
 * Report the call to the harness and wait for its answer; `signal` stops the wait (the call is then
 * reported stopped and fails as cancelled).
 */
export async function askHarness(
  send: (m: FromWorker) => void,
  input: CallModelInput,
  context: ModelCallContext,
  signal: AbortSignal,
): Promise<{ key: string; attempt: number; answer: PuppetAnswer }> {
  const execution = Context.current().info.workflowExecution;
  const workflowId = execution?.workflowId ?? '';
  const runId = execution?.runId ?? '';
  const prompt = createHash('sha256').update(JSON.stringify(input.messages)).digest('hex').slice(0, 16);
  const key = callKeyParts(workflowId, runId, input.agentId, input.callIndex, prompt);
  const attempt = ++attempts.made;
  const answer = await new Promise<PuppetAnswer>((resolve, reject) => {
    const waiter = { resolve };
    waiting.set(key, [...(waiting.get(key) ?? []), waiter]);
    const stop = () => {
      waiting.set(
        key,
        (waiting.get(key) ?? []).filter((w) => w !== waiter),
      );
      send({ type: 'call_ended', key, attempt, how: 'stopped' });
      reject(new CancelledFailure('the model call was stopped'));
    };
    if (signal.aborted) return stop();
    signal.addEventListener('abort', stop, { once: true });
    send({
      type: 'call',
      key,
      attempt,
      workflowId,
      runId,
      agent: input.agentId,
      callIndex: input.callIndex,
      tools: input.tools.map(offered),
      latest: latest(input),
      streamed: input.stream !== undefined && context.text !== undefined,
      ...(input.stream?.message !== undefined ? { message: input.stream.message } : {}),
      ...(input.stream?.merged ? { merged: input.stream.merged } : {}),
    });
  });
  return { key, attempt, answer };
}

/** An answer's text in three pieces, as a model streams it (empty pieces left out). */
export function inPieces(text: string): string[] {
  const cut = [Math.floor(text.length / 3), Math.floor((2 * text.length) / 3)];
  return [text.slice(0, cut[0]), text.slice(cut[0], cut[1]), text.slice(cut[1])].filter((p) => p !== '');
}

/** The usage the puppet reports: from the lengths of the prompt and the answer. */
export function puppetUsage(input: CallModelInput, text: string): ModelResponse['usage'] {
  const promptChars = input.messages.reduce((n, m) => n + (m.content ?? '').length, 0);
  return { inputTokens: Math.ceil(promptChars / 4), outputTokens: Math.ceil((text.length + 1) / 4) };
}

/** A compaction's (or a handoff filter's) summary, made here: the harness does not choose it. */
export function summary(input: CallModelInput): ModelResponse {
  const transcript = input.messages.at(-1)?.content ?? '';
  return {
    content: `summary of ${transcript.length} characters`,
    toolCalls: [],
    usage: { inputTokens: Math.ceil(transcript.length / 4), outputTokens: 5 },
    model: 'puppet',
  };
}

function offered(t: ToolSpec): OfferedTool {
  const p = t.parameters as { required?: string[]; properties?: Record<string, { enum?: unknown[] }> };
  const to = p.properties?.to?.enum;
  return { name: t.name, required: p.required ?? [], ...(Array.isArray(to) ? { targets: to.map(String) } : {}) };
}

function latest(input: CallModelInput): string {
  for (let i = input.messages.length - 1; i >= 0; i--) {
    const m = input.messages[i]!;
    if (m.role === 'user' || m.role === 'tool') return (m.content ?? '').slice(0, 300);
  }
  return '';
}
