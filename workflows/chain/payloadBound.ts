/**
 * A model call whose conversation Temporal would not take in one payload fails the chain with
 * `ModelCallFailedError`, saying so, instead of failing its workflow task again and again (a task
 * whose payload is over the namespace's limit is retried, SDK 1.21 on, and would wedge the chain).
 * The limit comes from the team snapshot: recorded by a worker that neither compresses nor
 * claim-checks payloads, where nothing would shrink the conversation.
 */
import { ModelCallFailedError } from '../../src/common/errors';
import type { ChatMessage } from '../../src/common/model';
import type { TeamSpec } from '../../src/common/team';
import type { ChainEffects } from './effects';

/** `effects` whose model calls are held to the snapshot's payload limit. */
export function boundingPayloads(effects: ChainEffects, team: () => TeamSpec | undefined): ChainEffects {
  return Object.assign(Object.create(effects) as ChainEffects, {
    callModel(input, options, local) {
      const limit = team()?.payloadLimit;
      const size = limit === undefined ? 0 : conversationSize(input.messages);
      if (limit !== undefined && size > limit) {
        const reason = `the conversation is at least ${size} bytes, over the ${limit} bytes Temporal takes in one payload (the namespace's blob size limit); keep large tool results out of history with the claim check (BATON_CLAIM_CHECK_DIR), compress them (BATON_COMPRESS), or return less`;
        return Promise.reject(new ModelCallFailedError(input.agentId, reason));
      }
      return effects.callModel(input, options, local);
    },
  } satisfies Partial<ChainEffects>);
}

/** A lower bound of the conversation's size as JSON: its texts and tool arguments, counted without serializing it. */
function conversationSize(messages: readonly ChatMessage[]): number {
  let size = 0;
  for (const m of messages) {
    size += m.content?.length ?? 0;
    if (m.role === 'assistant') for (const call of m.toolCalls ?? []) size += call.arguments.length;
  }
  return size;
}
