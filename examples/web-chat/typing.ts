/**
 * The scripted model, writing its answers word by word as a real model streams them, so the
 * offline example shows an answer forming. (With OPENAI_API_KEY the agents run on OpenAI, which
 * streams by itself.)
 */
import { ScriptedProvider, type ModelProvider } from 'baton-agents';
import type { ModelCallContext } from 'baton-agents/models';
import type { CallModelInput, ModelResponse } from 'baton-agents/workflow';

/** The scripted provider whose text arrives a word every `wordMs`. */
export class TypingScripted implements ModelProvider {
  readonly #scripted = new ScriptedProvider();

  /** @param wordMs the pause before each word @default 60 */
  constructor(private readonly wordMs = 60) {}

  async call(input: CallModelInput, context: ModelCallContext): Promise<ModelResponse> {
    const answer = await this.#scripted.call(input, context);
    if (!answer.content || !context.text) return answer;
    for (const word of answer.content.match(/\S+\s*/g) ?? []) {
      await context.sleep(this.wordMs);
      context.text(word);
      // Each word is progress: a worker lost mid-answer is noticed within the heartbeat timeout.
      context.heartbeat?.();
    }
    return answer;
  }
}
