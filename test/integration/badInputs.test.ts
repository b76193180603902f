/** Rows of docs/bad-inputs.md that no other test covered, on a real server. */
import { WorkflowNotFoundError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { ApprovalRefusedError, InvalidRunInputError, openai, Team } from '../../src';
import { scriptedAgent as agent } from '../helpers/agents';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const server = useTemporalServer();

describe('bad inputs on a real server', () => {
  it('baton.start refuses an empty input before starting anything', async () => {
    await withWorker(server.env, new Team([agent('a', [{ text: 'x' }])]), async (baton) => {
      const workflowId = `empty-input-${Date.now()}`;
      const err = await baton.start('a', '  ', { workflowId }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InvalidRunInputError);
      expect((err as InvalidRunInputError).problems).toEqual([
        '"input" must not be empty: it is what the first agent is asked',
      ]);
      await expect(baton.getRun(workflowId).handle.describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    });
  });

  it('baton.override naming an agent the chain does not have: the run refuses it, says so in its audit, and goes on', async () => {
    const team = new Team([
      agent('a', [{ handoff: { to: 'b', message: 'over' } }]),
      agent('b', [{ text: 'answer from b', delayMs: 1500 }]),
    ]);
    await withWorker(server.env, team, async (baton) => {
      const run = await baton.start('a', 'go');
      await waitFor(
        () => run.chain(),
        (c) => c.length === 1,
      );
      await baton.override(run.workflowId, { models: { ghost: openai('gpt-4o') } });
      expect((await run.result()).output).toBe('answer from b');
      const audit = await baton.audit(run.workflowId);
      expect(audit.events.find((e) => e.kind === 'overrides_refused')).toMatchObject({
        problems: ['"overrides.models.ghost": "ghost" is not in the team (a, b)'],
      });
      expect(audit.events.some((e) => e.kind === 'overrides_applied')).toBe(false);
    });
  });

  it('a decision on a chain that ended while its approval waited is refused, saying how the chain ended', async () => {
    const team = new Team([
      agent('a', [{ handoff: { to: 'b', message: 'over' } }]),
      agent('b', [{ text: 'never' }], { approval: { approvers: ['alice'] } }),
    ]);
    await withWorker(server.env, team, async (baton) => {
      const run = await baton.start('a', 'go');
      const [waiting] = await waitFor(
        () => run.pendingApprovals(),
        (p) => p.length === 1,
      );
      // Ended from outside (an operator's terminate): the chain's memo still lists the approval.
      await run.handle.terminate('ended by an operator');
      const err = await baton
        .approve(run.workflowId, { approvalId: waiting!.handoffId, approver: 'alice' })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApprovalRefusedError);
      expect((err as ApprovalRefusedError).reason).toBe(
        `chain ${run.workflowId} ended (terminated) before the decision reached it: nothing was decided`,
      );
    });
  });
});
