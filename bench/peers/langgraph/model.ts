/**
 * A zero-latency scripted chat model for LangGraph: every call answers with the same message, a
 * call of the swarm's handoff tool or the final text.
 */
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { sleep } from '../timing';

/** What the model answers: hand off through `tool`, or say `text`. */
export type ScriptedAnswer = { handoffTool: string } | { text: string };

export class ScriptedChatModel extends BaseChatModel {
  constructor(
    private readonly answer: ScriptedAnswer,
    private readonly latencyMs = 0,
  ) {
    super({});
  }

  _llmType(): string {
    return 'scripted';
  }

  /** The answer is fixed, so binding the agent's tools changes nothing. */
  override bindTools(): this {
    return this;
  }

  async _generate(): Promise<ChatResult> {
    await sleep(this.latencyMs);
    const message =
      'handoffTool' in this.answer
        ? new AIMessage({
            content: '',
            tool_calls: [
              { type: 'tool_call', id: `call_${this.answer.handoffTool}`, name: this.answer.handoffTool, args: {} },
            ],
          })
        : new AIMessage(this.answer.text);
    return { generations: [{ text: typeof message.content === 'string' ? message.content : '', message }] };
  }
}
