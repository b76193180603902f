/**
 * The same handoff chain in-process with the OpenAI Agents SDK (agents-core) and a scripted model:
 * no durability, the baseline for what orchestration costs without Temporal.
 */
import { Agent, handoff, Runner, setTracingDisabled, Usage, type Model, type ModelResponse } from '@openai/agents-core';

setTracingDisabled(true);

class ScriptedModel implements Model {
  constructor(
    private readonly output: ModelResponse['output'],
    private readonly latencyMs: number,
  ) {}
  async getResponse(): Promise<ModelResponse> {
    if (this.latencyMs > 0) await new Promise((r) => setTimeout(r, this.latencyMs));
    return { usage: new Usage(), output: this.output, responseId: 'scripted' };
  }
  getStreamedResponse(): AsyncIterable<never> {
    throw new Error('the benchmark does not stream');
  }
}

/** A chain of `handoffs` agents handing to the next, the last one answering. */
export function sdkChain(handoffs: number, latencyMs: number): () => Promise<unknown> {
  let next: Agent | undefined;
  for (let i = handoffs; i >= 0; i--) {
    const h = next ? handoff(next) : undefined;
    const output: ModelResponse['output'] = h
      ? [
          {
            type: 'function_call',
            callId: `call_${i}`,
            name: h.toolName,
            arguments: '{"message":"over"}',
            status: 'completed',
          },
        ]
      : [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done' }] }];
    next = new Agent({
      name: `agent_${i}`,
      instructions: 'Hand off.',
      model: new ScriptedModel(output, latencyMs),
      handoffs: h ? [h] : [],
    });
  }
  const first = next!;
  const runner = new Runner({ tracingDisabled: true });
  return async () => {
    const result = await runner.run(first, 'go', { maxTurns: handoffs + 5 });
    if (result.finalOutput !== 'done') throw new Error('the SDK chain did not finish');
  };
}
