/**
 * Policy changes and stale workers, on a real server with real workers: a tightened team's approval
 * policy reaches chains and conversations already running (the `tightenPolicy` update, sent by the
 * `temporal` CLI and by baton's client; a loosening refused), and a worker whose team is older than
 * the newest registered on its task queue starts no new chains.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, Team } from '../../src';
import type { ScriptedStep } from '../../src/workflow';
import { policyStandings } from '../../src/client/policy';
import { teamPolicyOf } from '../../src/common/authority/policyUpdate';
import { TEAM_MEMO } from '../../src/common/messages';
import { TEAM_REGISTRY_MEMO, teamRegistryId, type TeamRegistryState } from '../../src/common/teamRegistry';
import { findTemporalBinary } from '../../src/devserver/binary';
import { createWorker } from '../../src/worker';
import { scriptedAgent as agent } from '../helpers/agents';
import { taskQueue, useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const server = useTemporalServer();
const run$ = promisify(execFile);
const tool = (name: string, args: Record<string, unknown> = {}): ScriptedStep => ({
  toolCalls: [{ name, arguments: args }],
});

const sent: string[] = [];

/** `desk` hands off to `mailer` (bob approves); `mailer` sends an email: freely in v1, with alice's approval in v2. */
function mailTeam(version: 1 | 2): Team {
  const sendEmail = defineTool({
    name: 'sendEmail',
    description: 'Send an email',
    parameters: z.object({ to: z.string() }),
    ...(version === 2 ? { needsApproval: { approvers: ['alice'] } } : {}),
    execute: ({ to }) => (sent.push(to), `sent to ${to}`),
  });
  return new Team(
    [
      agent('desk', [{ handoff: { to: 'mailer', message: 'email the customer' } }], { handoffs: ['mailer'] }),
      agent('mailer', [tool('sendEmail', { to: 'customer@example.com' }), { text: 'emailed' }], {
        tools: [sendEmail],
        approval: { approvers: ['bob'] },
      }),
    ],
    { name: 'mail', version: `v${version}` },
  );
}

/** The `temporal` CLI, as another program would run it; its failure's text when it fails. */
async function temporal(args: string[]): Promise<{ ok: boolean; text: string }> {
  try {
    const { stdout } = await run$(findTemporalBinary('cli')!, [...args, '--address', server.env.address]);
    return { ok: true, text: stdout };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    return { ok: false, text: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

const updateArgs = (workflowId: string, input: unknown) => [
  'workflow',
  'update',
  'execute',
  '--workflow-id',
  workflowId,
  '--name',
  'tightenPolicy',
  '--input',
  JSON.stringify(input),
];

describe('policy updates', () => {
  it(
    'bring a tightened policy to chains and conversations in flight, refuse a loosening, and leave waiting approvals as they are',
    { timeout: 180_000 },
    async () => {
      sent.length = 0;
      const v2 = mailTeam(2).spec();
      await withWorker(server.env, mailTeam(1), async (baton, queue) => {
        const chain = await baton.start('desk', 'tell the customer');
        const chat = baton.conversation('desk');
        const replied = chat.send('tell the customer');
        const conversationId = chat.id;
        // Both wait for bob's approval of the handoff into mailer, under v1.
        await waitFor(
          () => chain.pendingApprovals(),
          (p) => p.length === 1,
        );
        await waitFor(
          () => baton.getRun(conversationId).pendingApprovals(),
          (p) => p.length === 1,
        );

        const before = await policyStandings(server.env.client, v2, { taskQueue: queue });
        expect(before.map((s) => s.workflowId).sort()).toEqual([chain.workflowId, conversationId].sort());
        for (const s of before)
          expect(s).toMatchObject({
            runsUnder: 'mail@v1',
            looser: ['tool "sendEmail" of agent "mailer" now needs approval by alice'],
            tighter: [],
          });

        // A loosening, by the temporal CLI: the handoff into mailer without bob. Refused, naming it.
        const loosen = await temporal(
          updateArgs(chain.workflowId, {
            policy: { version: 'mail@v0', approvals: [], agents: { mailer: {} } },
            appliedBy: 'mallory',
          }),
        );
        expect(loosen.ok).toBe(false);
        expect(loosen.text).toMatch(
          /the handoff desk → mailer would need no approval; allowed: the same approval or more/,
        );
        const malformed = await temporal(
          updateArgs(chain.workflowId, {
            policy: { version: 'mail@v2', approvals: 'none', agents: {} },
            appliedBy: '',
          }),
        );
        expect(malformed.ok).toBe(false);
        expect(malformed.text).toMatch(/"tightenPolicy.policy.approvals" must be an array of approval rules/);
        expect(malformed.text).toMatch(/"tightenPolicy.appliedBy"/);

        // The v2 policy, by the temporal CLI, to the chain.
        const applied = await temporal(
          updateArgs(chain.workflowId, { policy: teamPolicyOf(v2), appliedBy: 'ops:carol', reason: 'v2 rollout' }),
        );
        expect(applied.ok, applied.text).toBe(true);
        expect(applied.text).toContain('now needs approval by alice');
        const loosenV2 = await temporal(
          updateArgs(chain.workflowId, {
            policy: {
              ...teamPolicyOf(v2),
              agents: {
                ...teamPolicyOf(v2).agents,
                mailer: {
                  ...teamPolicyOf(v2).agents.mailer,
                  toolApprovals: { sendEmail: { approvers: ['alice', 'mallory'] } },
                },
              },
            },
            appliedBy: 'mallory',
          }),
        );
        expect(loosenV2.ok).toBe(false);
        expect(loosenV2.text).toMatch(
          /tool \\?"sendEmail\\?" of agent \\?"mailer\\?" could be decided by mallory, not only alice/,
        );

        // baton's client: the rest of the queue (the conversation); the chain already runs under v2.
        const outcomes = await baton.applyPolicy(v2, { appliedBy: 'ops:carol' });
        expect(Object.fromEntries(outcomes.map((o) => [o.workflowId, o.outcome]))).toEqual({
          [chain.workflowId]: 'unchanged',
          [conversationId]: 'tightened',
        });
        const after = await policyStandings(server.env.client, v2, { taskQueue: queue });
        for (const s of after) expect(s).toMatchObject({ runsUnder: 'mail@v2', looser: [] });

        // The handoff approvals asked before the update stand as they were (bob); the email waits for alice.
        for (const [i, id] of [chain.workflowId, conversationId].entries()) {
          const [handoff] = await baton.getRun(id).pendingApprovals();
          expect(handoff).toMatchObject({ to: 'mailer', approvers: ['bob'] });
          await baton.approve(id, handoff!.handoffId, { approver: 'bob' });
          const [email] = await waitFor(
            () => baton.getRun(id).pendingApprovals(),
            (p) => p.length === 1 && p[0]!.to === 'tool:sendEmail',
          );
          expect(email).toMatchObject({ approvers: ['alice'] });
          expect(sent).toHaveLength(i);
          await expect(baton.approve(id, email!.handoffId, { approver: 'bob' })).rejects.toThrow();
          await baton.approve(id, email!.handoffId, { approver: 'alice' });
        }
        expect((await chain.result()).output).toBe('emailed');
        expect((await replied).output).toBe('emailed');
        expect(sent).toEqual(['customer@example.com', 'customer@example.com']);

        const audit = await baton.audit(chain.workflowId);
        expect(audit.events.filter((e) => e.kind === 'policy_updated')).toEqual([
          expect.objectContaining({
            from: 'mail@v1',
            to: 'mail@v2',
            appliedBy: 'ops:carol',
            reason: 'v2 rollout',
            tightened: ['tool "sendEmail" of agent "mailer" now needs approval by alice'],
          }),
        ]);
        await chat.end();
      });
    },
  );
});

describe('stale workers', () => {
  it(
    'a worker whose team is older than the newest registered on its queue starts no new chains or conversations',
    { timeout: 180_000 },
    async () => {
      const queue = taskQueue();
      // Two workers in one process need build ids of their own; unversioned (useWorkerVersioning: false), so the server routes no task by version.
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
      // v1 registers, then v2 (the rollout); v2's worker is not running yet when v1 comes back.
      const v1 = await worker(1);
      const v2 = await worker(2);
      const client = server.env.client;
      const registry = () =>
        client.workflow
          .getHandle(teamRegistryId(queue))
          .describe()
          .then((d) => d.memo?.[TEAM_REGISTRY_MEMO] as TeamRegistryState | undefined);
      const teamOf = (id: string) =>
        client.workflow
          .getHandle(id)
          .describe()
          .then((d) => (d.memo?.[TEAM_MEMO] as { id?: string } | undefined)?.id);
      await v1.runUntil(async () => {
        const known = await waitFor(registry, (s) => (s?.teams.length ?? 0) === 2);
        expect(known!.teams.map((t) => [t.id, t.seq]).sort((a, b) => Number(a[1]) - Number(b[1]))).toEqual([
          ['mail@v1', 1],
          ['mail@v2', 2],
        ]);
        const starts = await Promise.all(
          [1, 2, 3, 4].map((i) =>
            client.workflow.start('handoffRun', {
              taskQueue: queue,
              workflowId: `stale-${queue}-${i}`,
              args: [{ agent: 'desk', input: 'hi' }],
            }),
          ),
        );
        const chats = await Promise.all(
          [1, 2].map((i) =>
            client.workflow.start('conversation', {
              taskQueue: queue,
              workflowId: `stale-chat-${queue}-${i}`,
              args: [{ agent: 'desk' }],
            }),
          ),
        );
        // Only v1 polls: it refuses every snapshot, so nothing runs on v1's looser policy.
        await new Promise((r) => setTimeout(r, 4000));
        for (const h of [...starts, ...chats]) expect(await teamOf(h.workflowId)).toBeUndefined();
        // v2's worker comes: it takes them all.
        await v2.runUntil(async () => {
          for (const h of [...starts, ...chats])
            await waitFor(
              () => teamOf(h.workflowId),
              (t) => t !== undefined,
              60_000,
            );
        });
        for (const h of [...starts, ...chats]) expect(await teamOf(h.workflowId)).toBe('mail@v2');
        for (const h of [...starts, ...chats]) await h.terminate('test over');
      });
    },
  );
});
