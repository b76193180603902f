/**
 * A zero-latency scripted model for the Agents SDK, resolved by the worker's model activity: it
 * calls the first handoff the agent offers, and answers "done" when there is none.
 */
import { Usage, type Model, type ModelProvider, type ModelRequest, type ModelResponse } from '@openai/agents-core';
import { sleep } from '../timing';

class HandOnModel implements Model {
  constructor(private readonly latencyMs: number) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    await sleep(this.latencyMs);
    const next = request.handoffs[0];
    const output: ModelResponse['output'] = next
      ? [
          {
            type: 'function_call',
            callId: `call_${next.toolName}`,
            name: next.toolName,
            arguments: '{}',
            status: 'completed',
          },
        ]
      : [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done' }] }];
    return { usage: new Usage(), output, responseId: 'scripted' };
  }

  getStreamedResponse(): AsyncIterable<never> {
    throw new Error('the benchmark does not stream');
  }
}

/** Resolves every model name to the scripted model; each call takes `latencyMs`. */
export class ScriptedModelProvider implements ModelProvider {
  constructor(private readonly latencyMs = 0) {}

  getModel(): Model {
    return new HandOnModel(this.latencyMs);
  }
}
