/**
 * The benchmark chain as a Temporal workflow on Temporal's OpenAI Agents integration: agents
 * agent_0 … agent_N, each handing off to the next, the last one answering. Deterministic workflow
 * code only; the model is a name the worker's provider resolves inside the model activity.
 */
import { TemporalOpenAIRunner } from '@temporalio/openai-agents/workflow';
// The integration requires the SDK's CommonJS build; an ES import here would make the workflow
// bundler add the SDK's ES build too (two Agent classes, and a lazily loaded chunk the workflow
// sandbox cannot load: "Automatic publicPath is not supported").
import agentsCore = require('@openai/agents-core');

const { Agent, handoff } = agentsCore;

/** The one workflow input, so a run can be started by name from the client. */
export interface HandoffChainInput {
  /** Handoffs before the last agent answers. */
  handoffs: number;
}

export async function handoffChain(input: HandoffChainInput): Promise<string> {
  let next: agentsCore.Agent | undefined;
  for (let i = input.handoffs; i >= 0; i--) {
    next = new Agent({
      name: `agent_${i}`,
      instructions: 'Hand off.',
      model: 'scripted',
      handoffs: next ? [handoff(next)] : [],
    });
  }
  // Tracing off, as in the in-process Agents SDK baseline: the figure is the orchestration.
  const result = await new TemporalOpenAIRunner().run(next!, 'go', {
    maxTurns: input.handoffs + 5,
    runConfig: { tracingDisabled: true },
  });
  if (result.finalOutput !== 'done') throw new Error(`the chain ended with ${JSON.stringify(result.finalOutput)}`);
  return result.finalOutput;
}
