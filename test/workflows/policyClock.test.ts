/**
 * An approval policy's steps at the moment their durable timer fires: a workflow task may bring
 * the firing with a clock that still reads the task before (as one after a worker loss can), and
 * the step is taken then all the same, live and in replay alike, never put off by a second timer.
 */
import { describe, expect, it } from 'vitest';
import { runChain } from '../../workflows/loop';
import { ApprovalDesk } from '../../workflows/chain/desk';
import { policyClock } from '../../workflows/approvals/policies';
import { recordNotice } from '../../workflows/approvals/ports';
import { agentSpec, FakeEffects, fakeRun } from '../helpers/fakeEffects';

const hop = (to: string) => ({ calls: [{ name: 'handoff', args: { to, message: `over to ${to}` } }] });
const until = async (ok: () => boolean) => {
  for (let i = 0; i < 1000 && !ok(); i++) await new Promise((r) => setTimeout(r, 1));
  expect(ok()).toBe(true);
};

function escalatingRun(effects: FakeEffects) {
  const run = fakeRun(
    [agentSpec('a', { handoffs: ['b'] }), agentSpec('b', { approval: { approvers: ['alice'] } })],
    effects,
    {
      approvalPolicy: {
        escalation: [
          { after: '2 seconds', notify: ['ops'] },
          { after: '6 seconds', decide: 'reject' },
        ],
      },
    },
  );
  const desk = new ApprovalDesk(effects, { clock: policyClock({ notifyApprovers: recordNotice(effects) }) });
  desk.attach(run.chain);
  return { ...run, desk };
}

describe("an approval policy's clock", () => {
  it.each([
    ['reads the moment it was set for', 0],
    ['still reads the task before', 500],
  ])('takes a step when its timer fires with a clock that %s', async (_, staleMs) => {
    const effects = new FakeEffects({ a: [hop('b'), 'did it myself'] });
    const done = runChain(escalatingRun(effects));
    await until(() => effects.log.includes('timer 2000'));
    effects.fireTimer();
    effects.clock -= staleMs;
    await until(() => effects.log.filter((l) => l.startsWith('timer')).length === 2);
    expect(effects.log.slice(effects.log.indexOf('timer 2000') + 1)).toEqual([
      'memo approval_escalated',
      `timer ${4000 + staleMs}`,
    ]);
    effects.fireTimer();
    await expect(done).resolves.toMatchObject({ result: { output: 'did it myself', handoffChain: [] } });
  });
});
