/**
 * The end invariant `follower-text`: what a follower of a chain (`run.stream()`) or of a
 * conversation's message (`chat.stream`) showed of each model call is the answer the harness gave
 * that call, or nothing for a call stopped first.
 */
import { stoppedCallsOf } from '../../src/client/stoppedCalls';
import { broken, clip, type Harness } from './harness';
import type { RootModel } from './model';

/**
 * What a conversation message's follower (`chat.stream`) saw of each call equals the answer the model
 * gave for that message, or nothing for a call an interrupt stopped: one the harness saw cancelled, or
 * one the conversation's record says it stopped (an interrupt that reached the workflow before the
 * answer did: the answer, given, was not taken).
 */
async function messageFollowers(h: Harness, r: RootModel): Promise<void> {
  const recordedStops = stoppedCallsOf(h.system.client, r.id);
  const stoppedIn = async (turn: number, key: string) =>
    (await recordedStops(turn).catch(() => [])).some((s) => `${s.workflowId} ${s.call}` === key);
  for (const msg of r.messages) {
    if (!msg.texts || !msg.reply) continue;
    const given = h.model.answers.filter(
      (a) => a.root === r.id && (a.call.message === msg.key || a.call.merged?.includes(msg.key)),
    );
    for (const [key, text] of msg.texts) {
      const [workflowId, call] = key.split(' ') as [string, string];
      const answers = given.filter(
        (a) => a.call.workflowId === workflowId && `${a.call.agent}#${a.call.callIndex}` === call,
      );
      const recorded =
        answers.length === 0
          ? [typeof msg.reply.output === 'string' ? msg.reply.output : JSON.stringify(msg.reply.output)]
          : answers.map((a) => a.answer.text ?? '');
      const stopped =
        text === '' &&
        (answers.some((a) => h.system.hosts.stopped.has(a.call.key)) || (await stoppedIn(msg.reply.turn, key)));
      if (!stopped && !recorded.includes(text))
        broken(
          h,
          'follower-text',
          `${r.id} message ${msg.n}: the follower of ${key} ended with ${clip(text)}, the model answered ${clip(recorded)}`,
        );
    }
  }
}

/** What a follower saw of each call equals the answer the harness gave it (or nothing, for a call stopped first). */
export async function followerText(h: Harness, r: RootModel): Promise<void> {
  if (r.kind === 'conversation') return messageFollowers(h, r);
  const f = r.follower;
  if (!f) return;
  const ended = await Promise.race([
    f.done.then(() => true),
    new Promise<boolean>((res) => setTimeout(() => res(false), 30_000)),
  ]);
  if (!ended) {
    f.stop();
    return broken(h, 'follower-text', `${r.id}: the follower did not end with the chain (${r.status})`);
  }
  if (f.error) broken(h, 'follower-text', `${r.id}: the follower failed: ${clip(f.error, 300)}`);
  const given = h.model.answers.filter((a) => a.root === r.id);
  for (const [key, text] of f.texts) {
    const [workflowId, call] = key.split(' ') as [string, string];
    const answers = given.filter(
      (a) => a.call.workflowId === workflowId && `${a.call.agent}#${a.call.callIndex}` === call,
    );
    const stopped =
      text === '' && (answers.length === 0 || answers.some((a) => h.system.hosts.stopped.has(a.call.key)));
    if (!stopped && !answers.some((a) => (a.answer.text ?? '') === text))
      broken(
        h,
        'follower-text',
        `${key}: the follower ended with ${clip(text)}, the model answered ${clip(answers.map((a) => a.answer.text ?? ''))}`,
      );
  }
  if (r.status !== 'completed' || r.replays > 0 || f.error) return;
  for (const a of given) {
    const key = `${a.call.workflowId} ${a.call.agent}#${a.call.callIndex}`;
    if (a.answer.text && !h.system.hosts.stopped.has(a.call.key) && !f.texts.has(key))
      broken(h, 'follower-text', `${key}: answered ${clip(a.answer.text)}, which the follower never showed`);
  }
}
