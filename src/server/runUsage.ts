/** A chain's usage so far as the service shows it: counted from its audit. */
import type { AuditChain } from '../audit/types';
import { addCost } from '../common/economics/prices';
import type { Usage } from '../common/run';

/** Usage so far, counted from the audit's model turns and tool calls. */
export function usageOf(chain: AuditChain): Usage {
  const usage: Usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0, modelCalls: 0, toolCalls: 0 };
  for (const e of chain.events) {
    if (e.kind === 'model_turn' && e.execution.status === 'completed') {
      usage.modelCalls += 1;
      usage.inputTokens += e.inputTokens ?? 0;
      usage.outputTokens += e.outputTokens ?? 0;
      if (e.cost) usage.cost = addCost(usage.cost, e.cost);
    } else if (e.kind === 'tool_call' && e.answeredBy === 'tool' && e.execution?.status === 'completed')
      usage.toolCalls += 1;
  }
  usage.totalTokens = usage.inputTokens + usage.outputTokens;
  return usage;
}
