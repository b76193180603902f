/**
 * What the oversized-field tests share: the teams they run (`a` hands off to `b`, whom alice
 * approves; `solo` answers every message), the decisions they send by signal with a field past its
 * limit, and the wait for the refusal a signal leaves on the record.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { LIMITS, scripted, Team } from '../../src';
import { approveHandoffSignal, rejectHandoffSignal } from '../../src/workflow';
import { scriptedAgent } from '../helpers/agents';
import { waitFor } from '../helpers/wait';
import { approvalEvents, big, MB_1_5 } from './history';

/** `a` hands off to `b` when asked to hand over; a handoff into `b` needs alice's approval. */
export const team = () =>
  new Team([
    scriptedAgent('a', [], {
      model: scripted({
        rules: [
          { whenIncludes: 'hand', reply: { handoff: { to: 'b', message: 'over' } } },
          { whenIncludes: '', reply: { text: 'answer from a' } },
        ],
      }),
    }),
    scriptedAgent('b', [], {
      model: scripted({ rules: [{ whenIncludes: '', reply: { text: 'answer from b' } }] }),
      approval: { approvers: ['alice'] },
    }),
  ]);

/** One agent, `solo`, that answers `ok` to every message. */
export const solo = () =>
  new Team([scriptedAgent('solo', [], { model: scripted({ rules: [{ whenIncludes: '', reply: { text: 'ok' } }] }) })]);

/** Send `send` and wait until the workflow has recorded one more refusal. */
export async function refusedSignal(
  handle: WorkflowHandle,
  send: () => Promise<void>,
): Promise<Record<string, unknown>> {
  const before = (await approvalEvents(handle)).filter((e) => e.type === 'decision_refused').length;
  await send();
  const after = await waitFor(
    () => approvalEvents(handle),
    (events) => events.filter((e) => e.type === 'decision_refused').length > before,
    15_000,
  );
  return after.filter((e) => e.type === 'decision_refused').at(-1)!;
}

// A payload more than twice its limit is refused by its size, unread: the decision's, not a field's.
const unread = /^"decision" is \d+ bytes; the limit is 81920 bytes$/;

/**
 * Decisions sent by signal with one field too large, each as its name, the signal and input for a
 * pending handoff's id, and the reason the workflow records for refusing it.
 */
export const oversizedSignals = [
  [
    'a comment',
    (id: string) => ({
      signal: approveHandoffSignal,
      input: { handoffId: id, approver: 'alice', comment: big(MB_1_5) },
    }),
    unread,
  ],
  [
    'an approver',
    (id: string) => ({ signal: rejectHandoffSignal, input: { handoffId: id, approver: big(MB_1_5) } }),
    unread,
  ],
  [
    'a handoffId',
    () => ({ signal: approveHandoffSignal, input: { handoffId: big(MB_1_5), approver: 'alice' } }),
    unread,
  ],
  [
    'a comment just over its limit',
    (id: string) => ({
      signal: approveHandoffSignal,
      input: { handoffId: id, approver: 'alice', comment: big(LIMITS.noteChars + 1) },
    }),
    `"decision.comment" is ${LIMITS.noteChars + 1} characters; the limit is ${LIMITS.noteChars}`,
  ],
  [
    'an approver just over its limit',
    (id: string) => ({
      signal: rejectHandoffSignal,
      input: { handoffId: id, approver: big(LIMITS.approverChars + 1) },
    }),
    `"decision.approver" is ${LIMITS.approverChars + 1} characters; the limit is ${LIMITS.approverChars}`,
  ],
  [
    'a handoffId just over its limit',
    () => ({ signal: approveHandoffSignal, input: { handoffId: big(LIMITS.idChars + 1), approver: 'alice' } }),
    `"decision.handoffId" is ${LIMITS.idChars + 1} characters; the limit is ${LIMITS.idChars}`,
  ],
] as const;
