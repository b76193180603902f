/**
 * baton's scripted model, writing each answer word by word as a real model streams it: the chat
 * shows the answer forming without an API key. Give it to the worker as the `scripted` provider.
 */
import { ScriptedProvider, type CallModelInput, type ModelCallContext, type ModelProvider, type ModelResponse } from 'baton-agents';

/** The scripted provider, its answers' text given piece by piece, `pieceMs` apart. */
export class WritingScripted implements ModelProvider {
  readonly #scripted = new ScriptedProvider();

  /** @param pieceMs the pause before each word @default 60 */
  constructor(private readonly pieceMs = 60) {}

  async call(input: CallModelInput, context: ModelCallContext): Promise<ModelResponse> {
    const answer = await this.#scripted.call(input, context);
    if (!answer.content || !context.text) return answer;
    for (const piece of answer.content.match(/\S+\s*/g) ?? []) {
      await context.sleep(this.pieceMs);
      context.text(piece);
      context.heartbeat?.();
    }
    return answer;
  }
}
