/**
 * A delegate decides for an approver's slot through every surface: `baton.approve`/`reject`, the
 * `baton` command's `--on-behalf-of`/`--delegation`, and the HTTP decision's `onBehalfOf` and
 * `delegation`; a forged or expired grant is refused, naming why, and the chain keeps waiting.
 */
import { describe, expect, it } from 'vitest';
import { type Baton, defineAgent, scripted, Team, type BatonRun } from '../../src';
import type { ApprovalPolicy } from '../../src/workflow';
import { ApprovalRefusedError, UserError } from '../../src/common/errors';
import type { PendingApproval } from '../../src/common/approvals';
import { signDelegation } from '../../src/client/signing/delegation';
import { decisionSigner, generateApproverKey } from '../../src/client/signing/signer';
import { scriptedAgent as agent } from '../helpers/agents';
import { useCliSession } from '../helpers/cliSession';
import { useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { tempFile } from '../cli/command';
import { type Caller, TOKENS, withService } from '../server/service';

const server = useTemporalServer();
const session = useCliSession();
const bob = generateApproverKey({ approvers: ['bob'] });
const mallory = generateApproverKey({ approvers: ['mallory'] });
const DAY = 86400_000;

/** triage hands off to refunds, which needs bob and carol (2 of 2); bob's and mallory's keys trusted. */
const refundTeam = (approval: ApprovalPolicy = { quorum: { of: ['bob', 'carol'], needed: 2 } }) =>
  new Team(
    [
      defineAgent({
        id: 'triage',
        instructions: 'You are triage.',
        model: scripted({
          steps: [{ handoff: { to: 'refunds', message: 'refund order 42' } }, { text: 'triage answered itself' }],
          requireAllSteps: false,
        }),
      }),
      agent('refunds', [{ text: 'refunded' }], { approval }),
    ],
    { approverKeys: [bob.approverKey, mallory.approverKey] },
  );

const waiting = (run: BatonRun, ok: (p: PendingApproval) => boolean = () => true) =>
  waitFor(
    () => run.pendingApprovals(),
    (p) => p.length > 0 && ok(p[0]!),
  ).then((p) => p[0]!);
/** bob's grant of his slot to alice, for this chain. */
const bobsGrant = (workflowId: string, now = Date.now(), until = now + 2 * DAY) =>
  signDelegation(decisionSigner(bob.privateJwk), { slot: 'bob', delegate: 'alice', until, workflowId, now });
/** The same grant signed with mallory's key: bob never gave it. */
const forgedGrant = (workflowId: string) =>
  signDelegation(decisionSigner(mallory.privateJwk), {
    slot: 'bob',
    delegate: 'alice',
    until: Date.now() + DAY,
    workflowId,
  });
/** A grant of bob's that ran out yesterday. */
const expiredGrant = (workflowId: string) => bobsGrant(workflowId, Date.now() - 5 * DAY, Date.now() - DAY);

describe('deciding for another approver with a delegation grant', () => {
  it('the library: alice approves for bob; a forged or expired grant is refused naming why, and the chain still waits', async () => {
    await withServiceAndRun(async ({ baton, run, p }) => {
      const approve = (delegation: string) =>
        baton.approve(run.workflowId, { approvalId: p.handoffId, approver: 'alice', onBehalfOf: 'bob', delegation });
      await expect(approve(await forgedGrant(run.workflowId))).rejects.toThrow(ApprovalRefusedError);
      await expect(approve(await forgedGrant(run.workflowId))).rejects.toThrow(/delegation refused: .*(key|signature)/);
      await expect(approve(await expiredGrant(run.workflowId))).rejects.toThrow(/delegation refused: .*expired/);
      await expect(
        baton.approve(run.workflowId, { approvalId: p.handoffId, approver: 'alice', onBehalfOf: 'bob' }),
      ).rejects.toThrow(UserError);
      await expect(
        baton.approve(run.workflowId, {
          approvalId: p.handoffId,
          approver: 'alice',
          delegation: await bobsGrant(run.workflowId),
        }),
      ).rejects.toThrow(/goes with onBehalfOf/);
      expect(await waiting(run)).toMatchObject({ handoffId: p.handoffId, votes: [], approvers: ['bob', 'carol'] });

      const vote = await approve(await bobsGrant(run.workflowId));
      expect(vote).toMatchObject({
        outcome: 'voted',
        approver: 'alice',
        onBehalfOf: 'bob',
        votes: [{ slot: 'bob', approver: 'alice', delegation: { grantedBy: 'bob' } }],
      });
      expect(
        await baton.reject(run.workflowId, { approvalId: p.handoffId, approver: 'carol', reason: 'not today' }),
      ).toMatchObject({ outcome: 'rejected' });
      expect(await run.result()).toMatchObject({ output: 'triage answered itself' });
    });
  });

  it(
    'the baton command: --on-behalf-of bob --delegation <file> or <grant>; a forged or expired one exits 1 naming why',
    { timeout: 120_000 },
    async () => {
      await withServiceAndRun(async ({ run, p }) => {
        const env = { TEMPORAL_ADDRESS: server.env.address };
        const cli = (...args: string[]) =>
          session.cli(['approve', run.workflowId, '--id', p.handoffId, '--as', 'alice', ...args], env);

        expect((await cli('--on-behalf-of', 'bob')).stderr).toContain(
          '--on-behalf-of bob needs --delegation <file|grant>',
        );
        expect((await cli('--on-behalf-of', 'bob', '--delegation', '/nowhere/grant.jws')).stderr).toContain(
          '--delegation /nowhere/grant.jws: neither a grant',
        );
        expect(
          (await cli('--on-behalf-of', 'bob', '--delegation', tempFile('notes.txt', 'not a grant'))).stderr,
        ).toContain('the file does not hold a grant');
        const forged = await cli('--on-behalf-of', 'bob', '--delegation', await forgedGrant(run.workflowId));
        expect([forged.code, forged.stderr]).toEqual([
          1,
          expect.stringMatching(/ApprovalRefusedError: .*delegation refused/),
        ]);
        const expired = await cli(
          '--on-behalf-of',
          'bob',
          '--delegation',
          tempFile('expired.jws', `${await expiredGrant(run.workflowId)}\n`),
        );
        expect([expired.code, expired.stderr]).toEqual([1, expect.stringMatching(/delegation refused: .*expired/)]);
        expect(await waiting(run)).toMatchObject({ votes: [] });

        const voted = await cli(
          '--on-behalf-of',
          'bob',
          '--delegation',
          tempFile('bob.jws', `${await bobsGrant(run.workflowId)}\n`),
        );
        expect([voted.code, voted.stdout]).toEqual([
          0,
          expect.stringContaining(`handoff ${p.handoffId} voted by alice for bob`),
        ]);
        const last = await session.cli(['approve', run.workflowId, '--as', 'carol'], env);
        expect(last.stdout).toContain(`handoff ${p.handoffId} approved by carol`);
        expect(await run.result()).toMatchObject({ output: 'refunded' });
      });
    },
  );

  it('HTTP: alice decides for bob with his grant in the decision body; forged and expired grants get 409 naming why', async () => {
    await withServiceAndRun(async ({ call, run, p }) => {
      const decide = (body: Record<string, unknown>) =>
        call('POST', `/v1/runs/${run.workflowId}/approvals/${p.handoffId}`, {
          token: TOKENS.alice,
          body: { decision: 'approve', ...body },
        });
      // alice is not among the approvers: on her own she may not decide.
      expect((await decide({})).status).toBe(403);
      const lone = await decide({ onBehalfOf: 'bob' });
      expect([lone.status, lone.body.errors]).toEqual([
        400,
        [{ path: 'delegation', message: expect.stringContaining('deciding for bob needs "delegation"') }],
      ]);
      const notASlot = await decide({ onBehalfOf: 'dave', delegation: await bobsGrant(run.workflowId) });
      expect(notASlot.status).toBe(403);
      for (const grant of [await forgedGrant(run.workflowId), await expiredGrant(run.workflowId)]) {
        const refused = await decide({ onBehalfOf: 'bob', delegation: grant });
        expect([refused.status, refused.body.detail]).toEqual([409, expect.stringContaining('delegation refused')]);
      }
      expect(await waiting(run)).toMatchObject({ votes: [] });

      const voted = await decide({
        onBehalfOf: 'bob',
        delegation: await bobsGrant(run.workflowId),
        comment: 'for bob, who is away',
      });
      expect([voted.status, voted.body]).toEqual([
        200,
        expect.objectContaining({ outcome: 'voted', approver: 'alice', onBehalfOf: 'bob' }),
      ]);
      const by = await waiting(run, (w) => w.votes?.length === 1);
      expect(by).toMatchObject({
        approvers: ['carol'],
        votes: [{ slot: 'bob', approver: 'alice', comment: 'for bob, who is away' }],
      });
    });
  });
});

/** A chain of {@link refundTeam} waiting for its quorum, behind the HTTP service. */
async function withServiceAndRun(
  fn: (f: { baton: Baton; call: Caller; run: BatonRun; p: PendingApproval }) => Promise<void>,
): Promise<void> {
  await withService(server.env, refundTeam(), async ({ baton, call }) => {
    const run = await baton.start('triage', 'I want a refund');
    const p = await waiting(run);
    expect(p).toMatchObject({ approvers: ['bob', 'carol'] });
    await fn({ baton, call, run, p });
  });
}
