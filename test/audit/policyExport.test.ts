/**
 * `baton audit --verify` holds the calls and handoffs after a policy update to the tightened
 * policy, on exports of a real chain from a real server: with the update's approvals removed (or
 * decided by someone else, or asked of others) and every digest made again, the export is refused
 * at the call, naming the update's record and the rule the call broke; so is a record that loosens.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, Team } from '../../src';
import { exportAudit, signAuditExport, type AuditExport } from '../../src/audit/export';
import { verifyAuditExport } from '../../src/audit/verifyExport';
import { teamPolicyOf } from '../../src/common/authority/policyUpdate';
import { tightenPolicyUpdate } from '../../src/common/messages';
import { scriptedAgent as agent } from '../helpers/agents';
import { exportKeys, keys } from '../helpers/signing';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { rechained } from '../helpers/forgery';

const server = useTemporalServer();

/**
 * `desk` looks the customer up (bob approves the lookup) and hands off to `mailer`, which sends an
 * email. v1 asks nothing more; v2 gates the handoff into mailer (carol) and the email (alice).
 */
function mailTeam(version: 1 | 2): Team {
  const lookup = defineTool({
    name: 'lookup',
    description: 'Look a customer up',
    parameters: z.object({ id: z.string() }),
    needsApproval: { approvers: ['bob'] },
    execute: ({ id }) => `customer ${id}`,
  });
  const sendEmail = defineTool({
    name: 'sendEmail',
    description: 'Send an email',
    parameters: z.object({ to: z.string() }),
    ...(version === 2 ? { needsApproval: { approvers: ['alice'] } } : {}),
    execute: ({ to }) => `sent to ${to}`,
  });
  return new Team(
    [
      agent(
        'desk',
        [
          { toolCalls: [{ name: 'lookup', arguments: { id: '42' } }] },
          { handoff: { to: 'mailer', message: 'email the customer' } },
        ],
        { tools: [lookup], handoffs: ['mailer'] },
      ),
      agent(
        'mailer',
        [{ toolCalls: [{ name: 'sendEmail', arguments: { to: 'customer@example.com' } }] }, { text: 'emailed' }],
        { tools: [sendEmail], ...(version === 2 ? { approval: { approvers: ['carol'] } } : {}) },
      ),
    ],
    { name: 'mail', version: `v${version}` },
  );
}

type Ev = Record<string, unknown>;

/**
 * `doc` with `edit` applied to a copy of its events, its digests made again and its head signed
 * again with the trusted export key: only what the events mean can tell it from the true export.
 */
async function tampered(
  doc: AuditExport,
  edit: (events: AuditExport['events'], ev: (e: AuditExport['events'][number]) => Ev) => AuditExport['events'] | void,
): Promise<AuditExport> {
  const copy = structuredClone(doc);
  const events = edit(copy.events, (e) => e.event as unknown as Ev) ?? copy.events;
  const { headSignature: _old, ...unsigned } = rechained({ ...copy, events }, { recorded: true });
  return signAuditExport(unsigned, keys.audit.signer);
}

const verify = (doc: AuditExport) => verifyAuditExport(doc, { exportKeys });
const isRequestFor = (to: string) => (e: AuditExport['events'][number]) =>
  (e.event.kind === 'approval_requested' || e.event.kind === 'approval_decided') &&
  approvalTo.get(String((e.event as unknown as Ev).handoffId)) === to;
const approvalTo = new Map<string, string>();

describe('baton audit --verify after a policy update', () => {
  it(
    'holds the calls and handoffs after the update to the tightened policy, naming the update, the call and the rule',
    { timeout: 180_000 },
    async () => {
      await withWorker(server.env, mailTeam(1), async (baton) => {
        const run = await baton.start('desk', 'tell the customer');
        const [lookup] = await waitFor(
          () => run.pendingApprovals(),
          (p) => p.length === 1,
        );
        const applied = await run.handle.executeUpdate(tightenPolicyUpdate, {
          args: [{ policy: teamPolicyOf(mailTeam(2).spec()), appliedBy: 'ops:dave', reason: 'v2 rollout' }],
        });
        expect(applied.tightened).toEqual(
          expect.arrayContaining([
            'the handoff desk → mailer now needs approval by carol',
            'tool "sendEmail" of agent "mailer" now needs approval by alice',
          ]),
        );
        // Asked before the update: decided as it was asked (bob). The handoff and the email wait under v2.
        await baton.approve(run.workflowId, lookup!.handoffId, { approver: 'bob' });
        const [handoff] = await waitFor(
          () => run.pendingApprovals(),
          (p) => p.length === 1 && p[0]!.to === 'mailer',
        );
        expect(handoff).toMatchObject({ approvers: ['carol'] });
        await baton.approve(run.workflowId, handoff!.handoffId, { approver: 'carol' });
        const [email] = await waitFor(
          () => run.pendingApprovals(),
          (p) => p.length === 1 && p[0]!.to === 'tool:sendEmail',
        );
        await baton.approve(run.workflowId, email!.handoffId, { approver: 'alice' });
        expect((await run.result()).output).toBe('emailed');
        approvalTo.set(handoff!.handoffId, 'mailer').set(email!.handoffId, 'tool:sendEmail');

        const doc = await signAuditExport(exportAudit(await baton.audit(run.workflowId)), keys.audit.signer);
        expect(verifyAuditExport(doc, { exportKeys })).toMatchObject({ ok: true, approvedCalls: 3, claimed: 3 });
        const update = doc.events.find((e) => e.event.kind === 'policy_updated')!;
        const record = `the policy update at event #${update.seq} (mail@v1 → mail@v2, applied by ops:dave)`;

        // The email's approval deleted, the call left naming none.
        const noEmailApproval = await tampered(doc, (events, ev) => {
          const call = events.find((e) => e.event.kind === 'tool_call' && ev(e).tool === 'sendEmail')!;
          delete ev(call).approval;
          delete ev(call).requestedArguments;
          return events.filter((e) => !isRequestFor('tool:sendEmail')(e));
        });
        const at = noEmailApproval.events.find(
          (e) => e.event.kind === 'tool_call' && (e.event as unknown as Ev).tool === 'sendEmail',
        )!.seq;
        expect(verify(noEmailApproval)).toMatchObject({
          ok: false,
          failure: {
            seq: at,
            kind: 'tool_call',
            reason: expect.stringContaining(
              `the tool call mailer/sendEmail happened after ${record}, under which it needs approval by alice, but it names none`,
            ),
          },
        });

        // The handoff's approval deleted, the handoff left naming none.
        const noHandoffApproval = await tampered(doc, (events, ev) => {
          delete ev(events.find((e) => e.event.kind === 'handoff')!).approval;
          return events.filter((e) => !isRequestFor('mailer')(e));
        });
        expect(verify(noHandoffApproval)).toMatchObject({
          ok: false,
          failure: {
            kind: 'handoff',
            reason: expect.stringContaining(
              `the handoff desk → mailer happened after ${record}, under which it needs approval by carol, but it names none`,
            ),
          },
        });

        // The email approved by bob, whom v2 does not name for it.
        const byBob = await tampered(doc, (events, ev) => {
          ev(events.find((e) => e.event.kind === 'approval_decided' && isRequestFor('tool:sendEmail')(e))!).approver =
            'bob';
        });
        expect(verify(byBob).failure?.reason).toBe(
          `the tool call mailer/sendEmail ran under approval ${email!.handoffId}, asked after ${record}, whose rule for it is approval by alice, but bob decided it`,
        );

        // The email's approval asked of mallory too.
        const askedOfMallory = await tampered(doc, (events, ev) => {
          ev(
            events.find((e) => e.event.kind === 'approval_requested' && isRequestFor('tool:sendEmail')(e))!,
          ).approvers = ['alice', 'mallory'];
        });
        expect(verify(askedOfMallory).failure?.reason).toContain(
          'whose rule for it is approval by alice, but the request let mallory decide',
        );

        // The record rewritten to loosen: the lookup without bob.
        const loosened = await tampered(doc, (events, ev) => {
          const policy = ev(events[update.seq]!).policy as { agents: Record<string, { toolApprovals?: unknown }> };
          delete policy.agents.desk!.toolApprovals;
        });
        expect(verify(loosened)).toMatchObject({
          ok: false,
          failure: {
            seq: update.seq,
            kind: 'policy_updated',
            reason: expect.stringContaining('tool "lookup" of agent "desk" would run without approval'),
          },
        });
      });
    },
  );
  it(
    'lets those an escalation reassigned an approval to decide it after the update, as the chain did',
    { timeout: 180_000 },
    async () => {
      await withWorker(server.env, mailTeam(1), async (baton) => {
        // The run's own timing: every approval waiting a second goes to erin.
        const run = await baton.start('desk', 'tell the customer', {
          approvalPolicy: { escalation: [{ after: '1 second', reassign: ['erin'] }] },
        });
        await waitFor(
          () => run.pendingApprovals(),
          (p) => p.length === 1,
        );
        await run.handle.executeUpdate(tightenPolicyUpdate, {
          args: [{ policy: teamPolicyOf(mailTeam(2).spec()), appliedBy: 'ops:dave' }],
        });
        for (const to of ['tool:lookup', 'mailer', 'tool:sendEmail']) {
          const [w] = await waitFor(
            () => run.pendingApprovals(),
            (p) => p.length === 1 && p[0]!.to === to && p[0]!.approvers?.[0] === 'erin',
            30_000,
          );
          await baton.approve(run.workflowId, w!.handoffId, { approver: 'erin' });
        }
        expect((await run.result()).output).toBe('emailed');
        const doc = exportAudit(await baton.audit(run.workflowId));
        expect(doc.events.filter((e) => e.event.kind === 'approval_escalated')).toHaveLength(3);
        expect(verifyAuditExport(doc, { acceptUntrustedHead: true })).toMatchObject({ ok: true, approvedCalls: 3 });
      });
    },
  );
});
