/**
 * A conversation (or a chain) as the AI SDK's `UIMessage[]`, from its history: each user message
 * and the assistant message that answers it, with the parts the stream would have left, the text
 * as history records it. An app loads them to show a chat again (`useChat({ messages })`), and
 * they are what a streamed chat ends with.
 */
import type { Client } from '@temporalio/client';
import { firstRunOfChain } from '../../client/firstRun';
import { decodeHistory } from '../../payloads/history';
import type { HistoryEvent } from '../../payloads/read';
import { AnswerReader, type MayDecide } from './reader';
import type { AnswerView, PartView } from './view';
import { historyOf } from '../../payloads/historyPages';

/** A message as `useChat` holds it (the AI SDK's `UIMessage`). */
export interface UiMessage {
  id: string;
  role: 'user' | 'assistant';
  parts: Record<string, unknown>[];
}

/** Read the whole history of workflow `workflowId` (every run) into its answers. */
export async function readAnswers(
  client: Client,
  workflowId: string,
  mode: 'conversation' | 'chain',
  mayDecide: MayDecide,
): Promise<AnswerReader> {
  const reader = new AnswerReader(workflowId, mode, mayDecide);
  let runId: string | undefined = await firstRunOfChain(client.workflow, workflowId);
  while (runId) {
    const history = await historyOf(client, workflowId, runId);
    const events: HistoryEvent[] =
      (await decodeHistory(history, client.options.loadedDataConverter.payloadCodecs)).events ?? [];
    reader.read(events);
    runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return reader;
}

/** The chat's messages: each answer's user message and assistant message. */
export function uiMessagesOf(answers: readonly AnswerView[]): UiMessage[] {
  return answers.flatMap((a) => [
    { id: a.key, role: 'user' as const, parts: [{ type: 'text', text: a.message ?? '' }] },
    { id: a.messageId, role: 'assistant' as const, parts: a.parts.map(uiPart) },
  ]);
}

function uiPart(p: PartView): Record<string, unknown> {
  switch (p.kind) {
    case 'step':
      return { type: 'step-start' };
    case 'text':
      return {
        type: 'text',
        text: p.text,
        state: p.done ? 'done' : 'streaming',
        providerMetadata: { baton: { part: p.id } },
      };
    case 'data':
      return { type: `data-${p.name}`, id: p.id, data: p.data };
    case 'tool': {
      const base = { type: `tool-${p.toolName}`, toolCallId: p.toolCallId, input: p.input };
      const approval = p.approvalId ? { id: p.approvalId } : undefined;
      switch (p.state) {
        case 'input':
          return { ...base, state: 'input-available' };
        case 'approval-requested':
          return p.decidable
            ? { ...base, state: 'approval-requested', approval }
            : { ...base, state: 'input-available' };
        case 'approved':
          return { ...base, state: 'approval-responded', approval: { ...approval, approved: true } };
        case 'denied':
          return { ...base, state: 'output-denied', approval: { ...approval, approved: false } };
        case 'output':
          return {
            ...base,
            state: 'output-available',
            output: p.output,
            ...(approval ? { approval: { ...approval, approved: true } } : {}),
          };
        case 'error':
          return { ...base, state: 'output-error', errorText: p.errorText ?? 'failed' };
      }
    }
  }
}
