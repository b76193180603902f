/**
 * `readSpecialistApprovals`: what waits in a specialist, read by the chain that started it. The
 * specialist's own workflow answers (its `pendingApprovals` query, over its real history), and only
 * when Temporal records the reading chain as its parent, so a report signalled by anyone else —
 * with a token copied from history or not — can neither put an approval at the top nor hide one.
 */
import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/client';
import { pendingApprovalsQuery, type SpecialistApprovalsRead } from '../src/common/messages';

/** The specialist-reading activities. */
export const specialistActivities = {
  /** What waits in specialist `workflowId` of the calling chain. */
  async readSpecialistApprovals(input: { workflowId: string }): Promise<SpecialistApprovalsRead> {
    const ctx = Context.current();
    const parent = ctx.info.workflowExecution?.workflowId;
    if (!parent) return { kind: 'not_a_child' };
    const handle = ctx.client.workflow.getHandle(input.workflowId);
    try {
      const description = await handle.describe();
      const recorded = description.parentExecution?.workflowId ?? undefined;
      if (recorded !== parent) return { kind: 'not_a_child', ...(recorded ? { parent: recorded } : {}) };
      if (description.status.name !== 'RUNNING') return { kind: 'ended' };
      return { kind: 'pending', pending: await handle.query(pendingApprovalsQuery) };
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return { kind: 'ended' };
      throw err;
    }
  },
};
