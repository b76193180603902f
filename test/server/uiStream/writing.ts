/**
 * The scripted model, writing each answer word by word as a real model streams it; a call whose
 * answer starts with `DRAFT ` first writes a draft, then fails once (retryably), and the retry writes
 * the answer: followers must show the answer, never the draft.
 */
import { ApplicationFailure } from '@temporalio/common';
import { ScriptedProvider, type ModelProvider } from '../../../src';
import type { ModelCallContext } from '../../../src/models';
import type { CallModelInput, ModelResponse } from '../../../src/common/model';

/** The text a draft call writes before it fails. */
export const DRAFT_TEXT = 'A draft that must not stay. ';

export class WritingScripted implements ModelProvider {
  readonly #scripted = new ScriptedProvider();

  /** @param pieceMs the pause before each word */
  constructor(private readonly pieceMs = 20) {}

  async call(input: CallModelInput, context: ModelCallContext): Promise<ModelResponse> {
    const answer = await this.#scripted.call(input, context);
    if (!answer.content || !context.text) return answer;
    const draft = answer.content.startsWith('DRAFT ');
    const content = draft ? answer.content.slice('DRAFT '.length) : answer.content;
    if (draft && context.attempt === 1) {
      context.text(DRAFT_TEXT);
      await context.sleep(300);
      throw ApplicationFailure.retryable('the model call failed after writing a draft', 'DraftFailure');
    }
    for (const piece of content.match(/\S+\s*/g) ?? []) {
      await context.sleep(this.pieceMs);
      context.text(piece);
      context.heartbeat?.();
    }
    return { ...answer, content };
  }
}
