import { ApplicationFailure } from '@temporalio/common';
import { toApplicationFailure, UnexpectedModelCallError } from '../common/errors';
import { HANDOFF_TOOL_NAME } from '../common/handoff';
import type {
  CallModelInput,
  ChatMessage,
  ModelResponse,
  ScriptedModelSpec,
  ScriptedStep,
  ToolCall,
} from '../common/types';
import { estimateTokens, type ModelCallContext, type ModelProvider } from './provider';

/** The provider behind {@link scripted} model specs: answers from the spec, never from the network. */
export class ScriptedProvider implements ModelProvider {
  async call(input: CallModelInput, context: ModelCallContext): Promise<ModelResponse> {
    const spec = input.model as ScriptedModelSpec;
    const latest = latestInput(input.messages);
    const step =
      (input.purpose ? undefined : spec.steps[input.callIndex]) ??
      spec.rules.find((r) => matches(r.whenIncludes, latest))?.reply;
    if (!step) throw toApplicationFailure(new UnexpectedModelCallError(input.agentId, input.callIndex, latest));
    if (step.failAttempts !== undefined && context.attempt <= step.failAttempts) {
      throw ApplicationFailure.retryable(
        `scripted transient failure (attempt ${context.attempt} of ${step.failAttempts} failing)`,
        'ScriptedTransientError',
      );
    }
    if (step.delayMs) await context.sleep(step.delayMs);
    const toolCalls = stepToolCalls(step, input.agentId, input.callIndex);
    const promptText = input.messages.map((m) => m.content ?? '').join('\n');
    return {
      content: step.text ?? null,
      toolCalls,
      usage: step.usage ?? {
        inputTokens: estimateTokens(promptText),
        outputTokens: estimateTokens((step.text ?? '') + toolCalls.map((c) => c.arguments).join('')),
      },
      model: spec.model,
    };
  }
}

function stepToolCalls(step: ScriptedStep, agentId: string, callIndex: number): ToolCall[] {
  const calls = [
    ...(step.toolCalls ?? []).map((c) => ({ name: c.name, arguments: JSON.stringify(c.arguments) })),
    ...(step.handoff ? [{ name: HANDOFF_TOOL_NAME, arguments: JSON.stringify(step.handoff) }] : []),
  ];
  return calls.map((c, i) => ({ id: `call_${agentId}_${callIndex + 1}_${i + 1}`, ...c }));
}

/** The newest user or tool message: what a rule looks at. */
function latestInput(messages: ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m && (m.role === 'user' || m.role === 'tool')) return m.content;
  }
  return '';
}

function matches(needle: string, haystack: string): boolean {
  return haystack.toLowerCase().includes(needle.toLowerCase());
}
