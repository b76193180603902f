/**
 * A message a conversation answered is never reported ended: once every conversation closed, each
 * message that came back `ConversationEndedError` is looked up in the conversation by its key, and
 * one the conversation remembers answering breaks `answered-not-ended`. (A send that followed its
 * message across a continue-as-new, sent it again with its key and found the conversation answered
 * and ended, once reported it ended: `chat_send_end` provokes that.)
 */
import { messageQuery } from '../../src/common/messages';
import { broken, clip, type Harness, type Invariant } from './harness';
import type { RootModel } from './model';

async function answeredNotEnded(h: Harness, r: RootModel): Promise<void> {
  for (const msg of r.messages) {
    if (msg.error !== 'ConversationEndedError') continue;
    const found = await h.system.client.workflow
      .getHandle(r.id)
      .query(messageQuery, { idempotencyKey: msg.key })
      .catch(
        (err: unknown) =>
          void broken(
            h,
            'answered-not-ended',
            `${r.id}: message ${msg.n} could not be looked up: ${clip(String(err), 200)}`,
          ),
      );
    if (found?.message?.status === 'answered')
      broken(
        h,
        'answered-not-ended',
        `${r.id}: message ${msg.n} (${msg.key}) came back ConversationEndedError, though the conversation answered it: ${clip(found.message.reply, 200)}`,
      );
  }
}

export const endedMessageInvariants: Invariant[] = [
  {
    name: 'answered-not-ended',
    when: 'end',
    check: (h) =>
      Promise.all(
        h.model.roots.filter((r) => r.kind === 'conversation' && !r.abandoned).map((r) => answeredNotEnded(h, r)),
      ).then(() => undefined),
  },
];
