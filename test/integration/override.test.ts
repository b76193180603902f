import { describe, expect, it } from 'vitest';
import { MaxHandoffsExceededError, Team } from '../../src';
import { UserError } from '../../src/workflow';
import { scriptedAgent as agent } from '../helpers/agents';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const server = useTemporalServer();
const hop = (to: string) => ({ handoff: { to, message: `over to ${to}` } });

describe('baton.override', () => {
  it('changes a running chain from its next step on, and the audit shows it', async () => {
    const team = new Team([agent('a', [hop('b'), hop('b')]), agent('b', [{ ...hop('a'), delayMs: 1500 }, hop('a')])]);
    await withWorker(server.env, team, async (baton) => {
      const run = await baton.start('a', 'go', { maxHandoffs: 10 });
      await waitFor(
        () => run.chain(),
        (c) => c.length === 1,
      );
      await expect(baton.override(run.workflowId, { options: { maxHandoffs: -1 } })).rejects.toBeInstanceOf(UserError);
      await baton.override(run.workflowId, { options: { maxHandoffs: 2 } });
      const failure = await run.result().catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(MaxHandoffsExceededError);
      expect((failure as MaxHandoffsExceededError).limit).toBe(2);
      const audit = await baton.audit(run.workflowId);
      expect(audit.events.find((e) => e.kind === 'overrides_applied')).toMatchObject({ options: { maxHandoffs: 2 } });
    });
  });
});
