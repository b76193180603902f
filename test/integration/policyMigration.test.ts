/**
 * A policy update survives a migration onto the current team, on a real server with real workers:
 * a chain whose `sendEmail` calls an update made wait for alice's approval is stranded when its team
 * goes away, `replay --on-current-team` moves it onto a team that lets the tool run freely, and the
 * call still waits for alice.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Baton, defineTool, Team } from '../../src';
import type { ScriptedStep } from '../../src/workflow';
import { teamPolicyOf } from '../../src/common/authority/policyUpdate';
import { tightenPolicyUpdate } from '../../src/common/messages';
import { createWorker } from '../../src/worker';
import { scriptedAgent as agent } from '../helpers/agents';
import { taskQueue, useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const server = useTemporalServer();
const sent: string[] = [];
const tool = (name: string, args: Record<string, unknown> = {}): ScriptedStep => ({
  toolCalls: [{ name, arguments: args }],
});

/** `desk` hands off to `mailer` (bob approves), which looks the customer up and sends an email freely; v2's lookup takes another parameter. */
function mailTeam(version: 1 | 2): Team {
  const sendEmail = defineTool({
    name: 'sendEmail',
    description: 'Send an email',
    parameters: z.object({ to: z.string() }),
    execute: ({ to }) => (sent.push(to), `sent to ${to}`),
  });
  const lookup = defineTool({
    name: 'lookup',
    description: 'Look a customer up',
    parameters: version === 1 ? z.object({ q: z.string() }) : z.object({ q: z.string(), limit: z.number().optional() }),
    execute: () => 'customer@example.com',
  });
  return new Team(
    [
      agent('desk', [{ handoff: { to: 'mailer', message: 'email the customer' } }], { handoffs: ['mailer'] }),
      agent(
        'mailer',
        [tool('lookup', { q: 'the customer' }), tool('sendEmail', { to: 'customer@example.com' }), { text: 'emailed' }],
        { tools: [lookup, sendEmail], approval: { approvers: ['bob'] } },
      ),
    ],
    { name: 'mail', version: `v${version}` },
  );
}

describe('a migration onto the current team', () => {
  it(
    'keeps what a policy update tightened on the chain, where the current team asks less',
    { timeout: 180_000 },
    async () => {
      sent.length = 0;
      const queue = taskQueue();
      const worker = (version: 1 | 2) =>
        createWorker({
          team: mailTeam(version),
          connection: server.env.nativeConnection,
          taskQueue: queue,
          worker: {
            workerDeploymentOptions: {
              useWorkerVersioning: false,
              version: { deploymentName: 'mail', buildId: `v${version}` },
            },
          },
        });
      const baton = new Baton({ client: server.env.client, taskQueue: queue });
      const v1 = await worker(1);
      const run = await v1.runUntil(async () => {
        const started = await baton.start('desk', 'tell the customer', { teamMismatchTimeout: '1 second' });
        await waitFor(
          () => started.pendingApprovals(),
          (p) => p.length === 1,
        );
        // The update: every sendEmail call now waits for alice.
        const policy = teamPolicyOf(mailTeam(1).spec());
        const tightened = {
          ...policy,
          version: 'mail@v1+alice',
          agents: {
            ...policy.agents,
            mailer: { ...policy.agents.mailer, toolApprovals: { sendEmail: { approvers: ['alice'] } } },
          },
        };
        const applied = await started.handle.executeUpdate(tightenPolicyUpdate, {
          args: [{ policy: tightened, appliedBy: 'ops:carol' }],
        });
        expect(applied.tightened).toEqual(['tool "sendEmail" of agent "mailer" now needs approval by alice']);
        return started;
      });
      // v1 is gone; v2 (sendEmail free) serves the queue. Bob approves; the lookup needs v1's tool, and the chain fails.
      const v2 = await worker(2);
      await v2.runUntil(async () => {
        const [handoff] = await run.pendingApprovals();
        await baton.approve(run.workflowId, handoff!.handoffId, { approver: 'bob' });
        await expect(run.result()).rejects.toThrow(/^Team mismatch: step runTool/);
        const replayed = await baton.replay(run.workflowId, { onCurrentTeam: true });
        expect(replayed.migratedFrom).toBe('mail@v1');
        // On v2 the call still waits for alice: nothing was sent.
        const [email] = await waitFor(
          () => baton.getRun(run.workflowId).pendingApprovals(),
          (p) => p.length === 1 || sent.length > 0,
          60_000,
        );
        expect(sent).toEqual([]);
        expect(email).toMatchObject({ tool: { name: 'sendEmail' }, approvers: ['alice'] });
        await expect(baton.approve(run.workflowId, email!.handoffId, { approver: 'bob' })).rejects.toThrow();
        await baton.approve(run.workflowId, email!.handoffId, { approver: 'alice' });
        expect((await baton.getRun(run.workflowId).result()).output).toBe('emailed');
        expect(sent).toEqual(['customer@example.com']);
      });
    },
  );
});
