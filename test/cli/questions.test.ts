/** The real `baton ask`, `baton answer` and `baton reject --reason` against a chain whose tool call waits. */
import { describe, expect, it } from 'vitest';
import { Team } from '../../src';
import { useCliSession } from '../helpers/cliSession';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { toolApprovalTeam } from '../server/team';

const server = useTemporalServer();
const session = useCliSession();
const cli = session.cli.bind(session);

/** The server tests' refund team, with typed rejection reasons. */
const team = () =>
  new Team(toolApprovalTeam().agents, { rejectionReasons: [{ code: 'over_limit', label: 'Over the refund limit' }] });

describe('the baton command: request-info and typed reasons', () => {
  it(
    'asks, refuses what cannot apply, answers, shows the question in pending, and rejects with a typed reason',
    { timeout: 120_000 },
    async () => {
      const env = { TEMPORAL_ADDRESS: server.env.address };
      await withWorker(server.env, team(), async (baton) => {
        const run = await baton.start('refunds', 'Refund order A1.');
        const [waiting] = await waitFor(
          () => run.pendingApprovals(),
          (p) => p.length === 1,
        );
        const id = waiting!.handoffId;

        expect((await cli(['ask', run.workflowId, id, 'why?'], env)).stderr).toContain('--as <name> is required');
        expect((await cli(['ask', run.workflowId, id], env)).stderr).toContain(
          'expected <workflowId> <approvalId> <question>',
        );
        const mallory = await cli(['ask', run.workflowId, id, 'why?', '--as', 'mallory'], env);
        expect([mallory.code, mallory.stderr]).toEqual([
          1,
          expect.stringContaining(
            `QuestionRefusedError: Question on approval ${id} refused: mallory may not ask about approval ${id}`,
          ),
        ]);

        const asked = await cli(['ask', run.workflowId, id, 'Why 250?', '--as', 'alice'], env);
        expect(asked.stdout).toContain(`approval ${id}: alice asked "Why 250?"; it waits for the answer`);
        expect((await cli(['pending'], env)).stdout).toContain('? alice: "Why 250?" (waits for the answer)');
        const answered = await cli(['answer', run.workflowId, id, 'Shipping included.', '--as', 'desk', '--json'], env);
        expect(JSON.parse(answered.stdout)).toMatchObject({
          question: 'Why 250?',
          answer: 'Shipping included.',
          answeredBy: 'desk',
        });

        const unknown = await cli(['reject', run.workflowId, '--as', 'alice', '--reason', 'nope'], env);
        expect([unknown.code, unknown.stderr]).toEqual([
          1,
          expect.stringContaining(
            'unknown rejection reason "nope": give one of the team\'s codes: over_limit (Over the refund limit)',
          ),
        ]);
        const rejected = await cli(['reject', run.workflowId, '--as', 'alice', '--reason', 'over_limit'], env);
        expect(rejected.stdout).toContain(
          `tool call ${id} (issueRefund) rejected by alice: over_limit (Over the refund limit)`,
        );
      });
    },
  );
});
